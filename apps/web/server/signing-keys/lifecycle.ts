// Keys that never lapse (decision 027): what the signing-key lifecycle job does for a project,
// decided by a pure function of its keys, its settings and the time.
// - A key that expires within ROTATION_LEAD_DAYS gets its successor (the existing rotation): both
//   sign during the overlap, and the old key retires a day before it expires at the latest.
// - The owner is mailed 30 and 7 days before a key expires, once each (the time is recorded).
// - Repositories are re-signed (re-published) when the keys that should sign differ from the
//   ones that signed the last publish (a successor, a key retired or expired), and, when the
//   project turned Valid-Until on, once half the period has passed since the last signature,
//   so no client ever sees an expired signature or an expired Release.
import { ROTATION_LEAD_DAYS } from "@packyard/contract";
import { DAY_MS } from "../projects/repository-settings.ts";

export { ROTATION_LEAD_DAYS };
/** At the latest, an old key stops signing this long before it expires. */
export const RETIRE_BEFORE_EXPIRY_MS = DAY_MS;
export const EXPIRY_NOTICE_DAYS = [30, 7] as const;
export type ExpiryNoticeDays = (typeof EXPIRY_NOTICE_DAYS)[number];

export interface LifecycleKey {
  id: string;
  fingerprint: string;
  expires_at: string | null;
  retire_at: string | null;
  notice_30_at: string | null;
  notice_7_at: string | null;
}

export interface LifecycleInput {
  /** Every key of the project, oldest first. */
  keys: readonly LifecycleKey[];
  now: Date;
  /** Fingerprints that signed the last publish (space-separated); null: never published. */
  signedBy: string | null;
  /** When its APT repositories were last signed; null: it has none. */
  aptSignedAt: Date | null;
  validUntilDays: number | null;
  /** How long the old key keeps signing next to its successor. */
  overlapMs: number;
}

export interface LifecyclePlan {
  /** Make the successor; the current keys retire at `retireAt`. */
  rotate: { retireAt: Date } | null;
  notices: { keyId: string; days: ExpiryNoticeDays }[];
  resign: "signers-changed" | "valid-until" | null;
}

const time = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** The fingerprints that sign at `now`, as SigningKeyService.active picks them. */
export function expectedSigners(keys: readonly LifecycleKey[], now: Date): string[] {
  const at = now.getTime();
  const notRetired = keys.filter((k) => k.retire_at === null || time(k.retire_at)! > at);
  const unexpired = notRetired.filter((k) => k.expires_at === null || time(k.expires_at)! > at);
  return (unexpired.length > 0 ? unexpired : notRetired.slice(-1)).map((k) => k.fingerprint);
}

export function planKeyLifecycle(input: LifecycleInput): LifecyclePlan {
  const now = input.now.getTime();
  const current = input.keys.at(-1);
  let rotate: LifecyclePlan["rotate"] = null;
  const currentExpiry = current ? time(current.expires_at) : null;
  if (current && currentExpiry !== null && currentExpiry - now <= ROTATION_LEAD_DAYS * DAY_MS) {
    const retireAt = Math.max(now, Math.min(now + input.overlapMs, currentExpiry - RETIRE_BEFORE_EXPIRY_MS));
    rotate = { retireAt: new Date(retireAt) };
  }

  const notices: LifecyclePlan["notices"] = [];
  for (const key of input.keys) {
    const expiry = time(key.expires_at);
    if (expiry === null || expiry <= now) continue;
    const left = expiry - now;
    // The most urgent notice due; a skipped 30-day one (a short expiry set late) is not sent after it.
    if (left <= 7 * DAY_MS) {
      if (key.notice_7_at === null) notices.push({ keyId: key.id, days: 7 });
    } else if (left <= 30 * DAY_MS && key.notice_30_at === null) notices.push({ keyId: key.id, days: 30 });
  }

  let resign: LifecyclePlan["resign"] = null;
  if (input.signedBy !== null) {
    if (rotate || expectedSigners(input.keys, input.now).join(" ") !== input.signedBy)
      resign = "signers-changed";
    else if (
      input.validUntilDays !== null &&
      input.aptSignedAt !== null &&
      now >= input.aptSignedAt.getTime() + (input.validUntilDays * DAY_MS) / 2
    )
      resign = "valid-until";
  }
  return { rotate, notices, resign };
}
