// The delivery signature: what docs/webhooks.md tells receivers to compute.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, signatureHeader, verifySignature } from "./signature.ts";

describe("webhook signatures", () => {
  it("is HMAC-SHA256 of '<t>.<body>', verified within the tolerance only", () => {
    const secret = newWebhookSecret();
    const body = '{"event":"ping"}';
    const header = signatureHeader(secret, 1_700_000_000, body);
    const mac = createHmac("sha256", secret).update(`1700000000.${body}`).digest("hex");
    expect(header).toBe(`t=1700000000,v1=${mac}`);
    expect(verifySignature(secret, header, body, { now: 1_700_000_100 })).toBe(true);
    expect(verifySignature(secret, header, `${body} `, { now: 1_700_000_100 })).toBe(false);
    expect(verifySignature(newWebhookSecret(), header, body, { now: 1_700_000_100 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: 1_700_001_000 })).toBe(false);
  });

  it("makes a new random secret each time", () => {
    expect(newWebhookSecret()).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
  });
});
