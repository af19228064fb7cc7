// The per-account sign-in lockout through the HTTP API, with better-auth's per-address rate limit
// on as in production and every request from its own client address (a distributed guesser).
// SQLite, and PostgreSQL when TEST_DATABASE_URL is set.

import { SIGN_IN_LOCKED_MESSAGE } from "@packyard/contract/messages.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cookiesFrom, createTestApp, databaseKind, TEST_PASSWORD, type TestApp } from "../../test/harness.ts";
import { admitSignInAttempt, lockoutKey, SIGN_IN_LOCKED_CODE, SIGN_IN_LOCKOUT } from "./lockout.ts";

const N = SIGN_IN_LOCKOUT.maxFailures;
const WRONG = "not the password at all";

let app: TestApp;
beforeAll(async () => {
  // TRUST_PROXY: the client address comes from X-Forwarded-For, which the app copies into
  // CLIENT_IP_HEADER for better-auth.
  app = await createTestApp({ AUTH_RATE_LIMIT: "true", TRUST_PROXY: "true" });
});
afterAll(async () => {
  await app?.close();
});

let lastAddress = 0;
/** A client address no request has used yet, so the per-address limit never answers. */
function freshAddress(): string {
  lastAddress++;
  return `10.${(lastAddress >> 16) & 255}.${(lastAddress >> 8) & 255}.${lastAddress & 255}`;
}

function post(path: string, body: unknown, address = freshAddress()) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify(body),
  });
}

function signIn(email: string, password: string, address?: string) {
  return post("/api/auth/sign-in/email", { email, password }, address);
}

/** Signs up and verifies, each request from a new address. */
async function account(email: string, password = TEST_PASSWORD): Promise<void> {
  const signUp = await post("/api/auth/sign-up/email", {
    email,
    name: "Lock Test",
    password,
    callbackURL: "/",
  });
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const mail = app.outbox().findLast((m) => m.to.includes(email) && /verify/i.test(m.subject));
  const link = new URL(mail!.links.find((l) => l.includes("/verify-email"))!);
  const verified = await app.request(`${link.pathname}${link.search}`, {
    headers: { "x-forwarded-for": freshAddress() },
  });
  if (!cookiesFrom(verified).includes("session_token")) throw new Error("verification did not sign in");
}

async function failTimes(email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await signIn(email, WRONG);
    expect(res.status, `failed attempt ${i + 1}`).toBe(401);
    expect((await res.json()).code).toBe("INVALID_EMAIL_OR_PASSWORD");
  }
}

async function expectLocked(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(await res.json()).toEqual({ code: SIGN_IN_LOCKED_CODE, message: SIGN_IN_LOCKED_MESSAGE });
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(SIGN_IN_LOCKOUT.cooldownMs / 1000);
  expect(cookiesFrom(res)).not.toContain("session_token=");
}

describe(`per-account sign-in lockout (${databaseKind})`, () => {
  it(`refuses even the right password with 429 after ${N} failures from ${N} different addresses`, async () => {
    const email = "locked@example.com";
    await account(email);
    await failTimes(email, N);
    await expectLocked(await signIn(email, TEST_PASSWORD));
    // Still refused from yet another address, and wrong passwords are refused the same way.
    await expectLocked(await signIn(email, TEST_PASSWORD));
    await expectLocked(await signIn(email, WRONG));
  });

  it(`answers an email no account has exactly the same after ${N} tries`, async () => {
    const known = "known-locked@example.com";
    const unknown = "nobody-here@example.com";
    await account(known);
    await failTimes(known, N);
    await failTimes(unknown, N);
    const fromKnown = await signIn(known, TEST_PASSWORD);
    const fromUnknown = await signIn(unknown, TEST_PASSWORD);
    await expectLocked(fromUnknown.clone());
    expect(fromUnknown.status).toBe(fromKnown.status);
    expect(await fromUnknown.text()).toBe(await fromKnown.text());
    expect(fromUnknown.headers.get("content-type")).toBe(fromKnown.headers.get("content-type"));
  });

  it("counts one email however it is capitalized", async () => {
    const email = "mixed-case@example.com";
    await account(email);
    await failTimes("Mixed-Case@Example.com", N / 2);
    await failTimes("MIXED-CASE@EXAMPLE.COM", N / 2);
    await expectLocked(await signIn("mixed-case@example.com", TEST_PASSWORD));
  });

  it("leaves other accounts alone", async () => {
    const victim = "victim@example.com";
    const other = "bystander@example.com";
    await account(victim);
    await account(other);
    await failTimes(victim, N);
    await expectLocked(await signIn(victim, TEST_PASSWORD));
    const ok = await signIn(other, TEST_PASSWORD);
    expect(ok.status).toBe(200);
    expect(cookiesFrom(ok)).toContain("session_token=");
    const wrong = await signIn(other, WRONG);
    expect(wrong.status).toBe(401);
  });

  it("forgets the failures after a successful sign-in", async () => {
    const email = "recovers@example.com";
    await account(email);
    await failTimes(email, N - 1);
    expect((await signIn(email, TEST_PASSWORD)).status).toBe(200);
    // A fresh count: N more failures before the lock.
    await failTimes(email, N);
    await expectLocked(await signIn(email, TEST_PASSWORD));
  });

  it("forgets the failures after a password reset", async () => {
    const email = "resets@example.com";
    await account(email);
    await failTimes(email, N);
    await expectLocked(await signIn(email, TEST_PASSWORD));

    const requested = await post("/api/auth/request-password-reset", {
      email,
      redirectTo: "/auth/reset-password",
    });
    expect(requested.status).toBe(200);
    const mail = app
      .outbox()
      .findLast((m) => m.to.includes(email) && m.subject === "Reset your Packyard password");
    const link = new URL(mail!.links.find((l) => l.includes("/reset-password/"))!);
    const token = link.pathname.split("/").pop();
    const reset = await post("/api/auth/reset-password", { newPassword: "a fresh new password", token });
    expect(reset.status).toBe(200);

    const signedIn = await signIn(email, "a fresh new password");
    expect(signedIn.status).toBe(200);
  });

  it("lets only the first attempts through when many arrive at once", async () => {
    const email = "burst@example.com";
    await account(email);
    const answers = await Promise.all(Array.from({ length: N + 6 }, () => signIn(email, WRONG)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(N);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    await expectLocked(await signIn(email, TEST_PASSWORD));
  });

  it("does not count what the per-address limit refused, nor hold one address's limit against the account", async () => {
    // Four quick attempts from one address: better-auth's per-address rule for /sign-in
    // (3 in 10 s) refuses the fourth before Packyard counts it.
    const email = "one-address@example.com";
    await account(email);
    const address = freshAddress();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await signIn(email, WRONG, address)).status);
    expect(answers).toEqual([401, 401, 401, 429]);
    // 3 counted: N - 3 more from other addresses before the account's lock.
    await failTimes(email, N - 3);
    await expectLocked(await signIn(email, TEST_PASSWORD));
  });
});

describe(`admitSignInAttempt over time (${databaseKind})`, () => {
  async function adapter() {
    return (await app.services.auth.$context).adapter;
  }
  const minutes = (n: number) => n * 60 * 1000;

  it("starts a new count once the window has passed without a lock", async () => {
    const db = await adapter();
    const key = lockoutKey("window@example.com");
    const start = new Date("2030-01-01T00:00:00Z");
    for (let i = 0; i < N; i++) expect(await admitSignInAttempt(db, key, start)).toBeNull();
    const later = new Date(start.getTime() + SIGN_IN_LOCKOUT.windowMs + 1);
    for (let i = 0; i < N; i++) expect(await admitSignInAttempt(db, key, later)).toBeNull();
    expect(await admitSignInAttempt(db, key, later)).toEqual(
      new Date(later.getTime() + SIGN_IN_LOCKOUT.cooldownMs),
    );
  });

  it("keeps the lock for the cool-down, then lets the email try again", async () => {
    const db = await adapter();
    const key = lockoutKey("cooldown@example.com");
    const start = new Date("2030-02-01T00:00:00Z");
    for (let i = 0; i < N; i++) expect(await admitSignInAttempt(db, key, start)).toBeNull();
    const lockedAt = new Date(start.getTime() + minutes(1));
    const until = await admitSignInAttempt(db, key, lockedAt);
    expect(until).toEqual(new Date(lockedAt.getTime() + SIGN_IN_LOCKOUT.cooldownMs));
    // Refusals during the cool-down do not extend it.
    expect(await admitSignInAttempt(db, key, new Date(lockedAt.getTime() + minutes(14)))).toEqual(until);
    expect(await admitSignInAttempt(db, key, new Date(until!.getTime() - 1))).toEqual(until);
    expect(await admitSignInAttempt(db, key, until!)).toBeNull();
    // A whole new count after the cool-down.
    for (let i = 1; i < N; i++) expect(await admitSignInAttempt(db, key, until!)).toBeNull();
    expect(await admitSignInAttempt(db, key, until!)).not.toBeNull();
  });

  it("forgets emails whose window and cool-down are both over", async () => {
    const db = await adapter();
    const count = (key: string) =>
      db.count({ model: "signInLockout", where: [{ field: "key", value: key }] });
    const start = new Date("2030-03-01T00:00:00Z");
    const stale = lockoutKey("stale@example.com");
    const recent = lockoutKey("recent@example.com");
    for (let i = 0; i <= N; i++) await admitSignInAttempt(db, stale, start);
    await admitSignInAttempt(db, recent, new Date(start.getTime() + minutes(20)));
    expect(await count(stale)).toBe(1); // locked until 00:15, window from 00:00: kept until 00:30
    const later = new Date(start.getTime() + SIGN_IN_LOCKOUT.windowMs + SIGN_IN_LOCKOUT.cooldownMs + 1);
    await admitSignInAttempt(db, lockoutKey("newcomer@example.com"), later);
    expect(await count(stale)).toBe(0);
    expect(await count(recent)).toBe(1);
  });

  it("the cool-down ends through HTTP too", async () => {
    const db = await adapter();
    const email = "expired-lock@example.com";
    await account(email);
    // Lock the email as if the failures had happened 20 minutes ago.
    const past = new Date(Date.now() - minutes(20));
    for (let i = 0; i <= N; i++) await admitSignInAttempt(db, lockoutKey(email), past);
    expect(
      await admitSignInAttempt(db, lockoutKey(email), new Date(Date.now() - minutes(10))),
    ).not.toBeNull();
    const res = await signIn(email, TEST_PASSWORD);
    expect(res.status).toBe(200);
  });
});
