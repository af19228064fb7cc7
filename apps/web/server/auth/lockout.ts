// Per-account sign-in lockout: better-auth's rate limit counts per client address, so a guesser
// spread over many addresses is not slowed by it. This counts password sign-in attempts per
// email address, in the database (every process sees the same counts): after
// SIGN_IN_LOCKOUT.maxFailures attempts within SIGN_IN_LOCKOUT.windowMs that did not sign in,
// further attempts for that email are refused with 429 for SIGN_IN_LOCKOUT.cooldownMs, whether
// or not an account has that email (the answer must not tell). A successful sign-in or a
// password reset clears the count.
//
// Attempts are counted before the password is checked (and uncounted by success), so a burst of
// parallel guesses cannot all slip past the check while the first ones are still hashing.

import { createHash } from "node:crypto";
import type { AuthContext, BetterAuthPlugin } from "@better-auth/core";
import { getCurrentAuthEndpointContext } from "@better-auth/core/context";
import { SIGN_IN_LOCKED_MESSAGE } from "@packyard/contract/messages.ts";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";

export const SIGN_IN_LOCKOUT = {
  maxFailures: 10,
  windowMs: 15 * 60 * 1000,
  cooldownMs: 15 * 60 * 1000,
} as const;

/** The error code of the 429 answer. */
export const SIGN_IN_LOCKED_CODE = "TOO_MANY_SIGN_IN_ATTEMPTS";

const MODEL = "signInLockout";
const SIGN_IN_PATH = "/sign-in/email";

interface LockoutRow {
  id: string;
  key: string;
  attempts: number;
  windowStart: Date;
  lockedUntil: Date | null;
}

// Only what the lockout uses, so any auth instance's adapter fits whatever its options.
type Adapter = Pick<AuthContext["adapter"], "findOne" | "create" | "incrementOne" | "update" | "deleteMany">;

/** The row key for an email: a hash, so the table does not list every address anyone tried. */
export function lockoutKey(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/**
 * Counts one attempt for the key. Returns when the key may try again if it is locked out
 * (the attempt is refused and not counted), or null when the attempt may go ahead.
 */
export async function admitSignInAttempt(
  adapter: Adapter,
  key: string,
  now = new Date(),
): Promise<Date | null> {
  const { maxFailures, windowMs, cooldownMs } = SIGN_IN_LOCKOUT;
  // Each pass either decides or saw another request change the row first; then read it again.
  for (let pass = 0; pass < 5; pass++) {
    const row = await findRow(adapter, key);
    if (!row) {
      try {
        await adapter.create({
          model: MODEL,
          data: { key, attempts: 1, windowStart: now, lockedUntil: null },
        });
      } catch (error) {
        if (!(await findRow(adapter, key))) throw error;
        continue; // another attempt created it first
      }
      await pruneSignInAttempts(adapter, now);
      return null;
    }
    if (row.lockedUntil && row.lockedUntil > now) return row.lockedUntil;
    const sameWindow = { field: "windowStart", value: row.windowStart };
    if (row.lockedUntil || row.windowStart.getTime() <= now.getTime() - windowMs) {
      // The window (or the cool-down) is over: this attempt starts a new one.
      const restarted = await adapter.incrementOne({
        model: MODEL,
        where: [{ field: "key", value: key }, sameWindow],
        increment: {},
        set: { attempts: 1, windowStart: now, lockedUntil: null },
      });
      if (restarted) return null;
      continue;
    }
    const counted = await adapter.incrementOne({
      model: MODEL,
      where: [
        { field: "key", value: key },
        sameWindow,
        { field: "attempts", operator: "lt", value: maxFailures },
      ],
      increment: { attempts: 1 },
    });
    if (counted) return null;
    const current = await findRow(adapter, key);
    if (!current || current.windowStart.getTime() !== row.windowStart.getTime()) continue;
    if (current.lockedUntil) {
      if (current.lockedUntil > now) return current.lockedUntil;
      continue;
    }
    // The limit is reached in this window: lock from now.
    const lockedUntil = new Date(now.getTime() + cooldownMs);
    await adapter.update({
      model: MODEL,
      where: [{ field: "key", value: key }, sameWindow],
      update: { lockedUntil },
    });
    return lockedUntil;
  }
  // Still contended after every pass: many attempts at once for one email. Refuse this one.
  return new Date(now.getTime() + cooldownMs);
}

/**
 * Deletes the rows nothing will read again: a row's lock, if any, began within its window, so
 * it is over once window and cool-down have both passed since the window started. Run when a
 * new row is made, so the table stays as small as the set of emails tried lately. Best effort: a
 * failure here must not fail a sign-in.
 */
export async function pruneSignInAttempts(adapter: Adapter, now = new Date()): Promise<void> {
  const { windowMs, cooldownMs } = SIGN_IN_LOCKOUT;
  const before = new Date(now.getTime() - windowMs - cooldownMs);
  try {
    await adapter.deleteMany({
      model: MODEL,
      where: [{ field: "windowStart", operator: "lt", value: before }],
    });
  } catch {
    // The next new row tries again.
  }
}

/** Forgets the attempts for the key: after a successful sign-in or a password reset. */
export async function clearSignInAttempts(adapter: Adapter, key: string): Promise<void> {
  await adapter.deleteMany({ model: MODEL, where: [{ field: "key", value: key }] });
}

async function findRow(adapter: Adapter, key: string): Promise<LockoutRow | null> {
  const row = await adapter.findOne<LockoutRow>({ model: MODEL, where: [{ field: "key", value: key }] });
  if (!row) return null;
  // Dates come back as Date from both databases; be lenient with strings all the same.
  return {
    ...row,
    attempts: Number(row.attempts),
    windowStart: new Date(row.windowStart),
    lockedUntil: row.lockedUntil ? new Date(row.lockedUntil) : null,
  };
}

export function lockedOutError(lockedUntil: Date, now = new Date()): APIError {
  const retryAfter = Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
  return new APIError(
    "TOO_MANY_REQUESTS",
    { code: SIGN_IN_LOCKED_CODE, message: SIGN_IN_LOCKED_MESSAGE },
    { "Retry-After": String(retryAfter) },
  );
}

/**
 * For `emailAndPassword.onPasswordReset`: a password reset clears the count. better-auth calls it
 * inside the /reset-password endpoint, whose context holds the database adapter.
 */
export async function clearSignInAttemptsOnPasswordReset({
  user,
}: {
  user: { email: string };
}): Promise<void> {
  const { context } = getCurrentAuthEndpointContext();
  await clearSignInAttempts(context.adapter, lockoutKey(user.email));
}

/**
 * The better-auth plugin: its table (created by better-auth's migrations), a before hook on
 * /sign-in/email that counts or refuses, and an after hook that clears on success. Wire
 * {@link clearSignInAttemptsOnPasswordReset} into the options as well.
 */
export function signInLockout() {
  return {
    id: "packyard-sign-in-lockout",
    schema: {
      [MODEL]: {
        fields: {
          key: { type: "string", required: true, unique: true },
          attempts: { type: "number", required: true },
          windowStart: { type: "date", required: true, index: true },
          lockedUntil: { type: "date", required: false },
        },
      },
    },
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === SIGN_IN_PATH,
          handler: createAuthMiddleware(async (ctx) => {
            const email: unknown = ctx.body?.email;
            // A missing or malformed email is better-auth's to refuse.
            if (typeof email !== "string" || email.trim() === "") return;
            const now = new Date();
            const lockedUntil = await admitSignInAttempt(ctx.context.adapter, lockoutKey(email), now);
            if (lockedUntil) throw lockedOutError(lockedUntil, now);
          }),
        },
      ],
      after: [
        {
          matcher: (ctx) => ctx.path === SIGN_IN_PATH,
          handler: createAuthMiddleware(async (ctx) => {
            const email: unknown = ctx.body?.email;
            if (typeof email !== "string" || email.trim() === "") return;
            const returned = ctx.context.returned;
            // Signed in, or the right password for an unverified email: not a guess that failed.
            const rightPassword = isAPIError(returned)
              ? returned.body?.code === "EMAIL_NOT_VERIFIED"
              : returned !== undefined;
            if (rightPassword) await clearSignInAttempts(ctx.context.adapter, lockoutKey(email));
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
