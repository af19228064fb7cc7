// The issuer's keys as trusted publishing fetches them (decision 082), against a real local
// issuer: the token checks jose makes with them, the 10-minute cache, the refetch for an unknown
// key id at most every 30 s, the address rules and the time limit.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CiIssuer, githubClaims, startCiIssuer } from "../../test/ci-issuer.ts";
import { DomainError } from "../platform/core/errors.ts";
import { ISSUER_KEYS_MAX_AGE_MS, ISSUER_KEYS_REFETCH_MS, IssuerKeys } from "./issuer-keys.ts";

const AUDIENCE = "https://packyard.test";
let ci: CiIssuer;
let clock = Date.now();

beforeAll(async () => {
  ci = await startCiIssuer();
});
afterAll(async () => {
  await ci?.stop();
});

const keys = () => new IssuerKeys({ allowPrivate: true, now: () => clock });
const claims = () => ({ ...githubClaims(), aud: AUDIENCE });
const at = () => new Date(clock);

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("an issuer's keys", () => {
  it("verify a token it signed and answer its claims", async () => {
    const payload = await keys().verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    expect(payload.repository).toBe("octo/app");
    expect(payload.iss).toBe(ci.issuer);
  });

  it("refuse a wrong audience, an expired token, one not yet valid, one issued in the future, a forged signature and an unknown key id", async () => {
    const k = keys();
    const cases: [string, RegExp][] = [
      [await ci.sign({ ...claims(), aud: "https://elsewhere.test" }, { now: at() }), /another audience/],
      // Expired six minutes ago: past the five minutes of skew.
      [await ci.sign(claims(), { now: at(), issuedAt: -900, expiresIn: -360 }), /expired/],
      [await ci.sign(claims(), { now: at(), notBefore: 600 }), /not valid yet/],
      [await ci.sign(claims(), { now: at(), issuedAt: 600, expiresIn: 900 }), /issued in the future/],
      [await ci.sign(claims(), { now: at(), foreignKey: true }), /does not publish/],
      [await ci.sign(claims(), { now: at(), kid: "made-up" }), /does not publish/],
    ];
    for (const [token, message] of cases) {
      const refused = await refusal(k.verify(token, ci.issuer, AUDIENCE));
      expect(refused.code).toBe("OIDC_TOKEN_INVALID");
      expect(refused.message).toMatch(message);
    }
  });

  it("accept a token within the five minutes of skew", async () => {
    // Expired four minutes ago by the issuer's clock.
    const token = await ci.sign(claims(), { now: at(), issuedAt: -600, expiresIn: -240 });
    await expect(keys().verify(token, ci.issuer, AUDIENCE)).resolves.toMatchObject({
      repository: "octo/app",
    });
  });

  it("refuse a signature made with another key under a published key id", async () => {
    const published = JSON.parse(
      Buffer.from((await ci.sign(claims())).split(".")[0]!, "base64url").toString(),
    ).kid;
    const forged = await ci.sign(claims(), { now: at(), foreignKey: true, kid: published });
    const refused = await refusal(keys().verify(forged, ci.issuer, AUDIENCE));
    expect(refused).toMatchObject({
      code: "OIDC_TOKEN_INVALID",
      message: expect.stringMatching(/signature does not verify/),
    });
  });

  it("are kept 10 minutes, fetched again for an unknown key id at most every 30 s, and pick up a rotated key", async () => {
    const k = keys();
    const before = ci.fetches();
    const fetched = () => ci.fetches().jwks - before.jwks;
    await k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    await k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    expect(fetched()).toBe(1);
    // Made-up key ids within 30 s of the fetch: refused without asking the issuer again.
    for (let i = 0; i < 5; i++)
      await refusal(
        k.verify(await ci.sign(claims(), { now: at(), kid: `made-up-${i}` }), ci.issuer, AUDIENCE),
      );
    expect(fetched()).toBe(1);
    // The issuer rotates its key: within 30 s the new kid is not known yet…
    await ci.rotate();
    clock += ISSUER_KEYS_REFETCH_MS - 1000;
    const refused = await refusal(k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE));
    expect(refused.code).toBe("OIDC_TOKEN_INVALID");
    expect(fetched()).toBe(1);
    // …after 30 s it is fetched once, and verifies.
    clock += 1000;
    await k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    expect(fetched()).toBe(2);
    // Another unknown kid right after: no fetch.
    await refusal(
      k.verify(await ci.sign(claims(), { now: at(), kid: "made-up-again" }), ci.issuer, AUDIENCE),
    );
    expect(fetched()).toBe(2);
    // After 10 minutes the keys are fetched again even for a known kid.
    clock += ISSUER_KEYS_MAX_AGE_MS - 1000;
    await k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    expect(fetched()).toBe(2);
    clock += 1000;
    await k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE);
    expect(fetched()).toBe(3);
  });

  it("answer OIDC_ISSUER_UNREACHABLE when the discovery document fails, and fetch it again on the next token", async () => {
    const k = keys();
    ci.failWith(503);
    const refused = await refusal(k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE));
    expect(refused.code).toBe("OIDC_ISSUER_UNREACHABLE");
    expect(refused.message).toContain("503");
    ci.failWith(200);
    await expect(k.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE)).resolves.toBeTruthy();
  });

  it("refuse a loopback issuer unless WEBHOOK_ALLOW_PRIVATE is set", async () => {
    const guarded = new IssuerKeys({ allowPrivate: false, now: () => clock });
    const before = ci.fetches().discovery;
    const refused = await refusal(
      guarded.verify(await ci.sign(claims(), { now: at() }), ci.issuer, AUDIENCE),
    );
    expect(refused.code).toBe("OIDC_ISSUER_UNREACHABLE");
    expect(refused.message).toMatch(/refused/);
    expect(ci.fetches().discovery).toBe(before);
  });

  it("give up on an issuer that does not answer within the time limit", async () => {
    const sockets = new Set<import("node:net").Socket>();
    const silent: Server = createServer(() => {});
    silent.on("connection", (s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const k = new IssuerKeys({ allowPrivate: true, now: () => clock, timeoutMs: 300 });
      const token = await ci.sign({ ...claims(), iss: issuer }, { now: at() });
      const refused = await refusal(k.verify(token, issuer, AUDIENCE));
      expect(refused.code).toBe("OIDC_ISSUER_UNREACHABLE");
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
