// The signature of a delivery (docs/webhooks.md): `Packyard-Signature: t=<unix seconds>,v1=<hex>`
// where v1 is HMAC-SHA256, keyed by the webhook's secret, of "<t>.<body>". The time is signed so
// a receiver can refuse an old delivery replayed; a new secret signs from its rotation on.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A new signing secret: 32 random bytes, shown to the owner once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Whether a header is a valid signature of the body with the secret, made at most
 * `toleranceSeconds` from `now` (what a receiver checks; the tests use it too).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  options: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map(
    header.split(",").map((part) => {
      const at = part.indexOf("=");
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}
