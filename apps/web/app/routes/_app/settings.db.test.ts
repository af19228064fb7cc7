// /settings in memory, on SQLite and PostgreSQL: the sessions it lists (browser and OS from the
// user agent, this device) and signing them out, the linked accounts and the last-account rule,
// and setting a first password through the page's action (set-password is server-only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cookiesFrom,
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  TEST_PASSWORD,
  type TestApp,
} from "../../../test/harness.ts";
import { describeUserAgent } from "../../lib/account-settings.server.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

/** Signs in again from another "device": a second session. */
async function signInFrom(email: string, userAgent: string): Promise<string> {
  const res = await app.request("/api/auth/sign-in/email", {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ email, password: TEST_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return cookiesFrom(res);
}

async function settingsHtml(cookie: string): Promise<string> {
  const res = await app.request("/settings", { cookie });
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return (await res.text()).replace(/<!-- -->/g, "");
}

async function sessionIds(userId: string) {
  const context = await app.services.auth.$context;
  return (await context.internalAdapter.listSessions(userId, { onlyActiveSessions: true })).map((s) => s.id);
}

function post(cookie: string, values: Record<string, string>) {
  return app.request("/settings", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

async function isSignedIn(cookie: string) {
  return (await (await app.request("/api/auth/get-session", { cookie })).json()) !== null;
}

describe("describeUserAgent", () => {
  it("names the browser and system", () => {
    expect(describeUserAgent(FIREFOX_WINDOWS)).toEqual({
      browser: "Firefox 128",
      os: "Windows 10",
      device: "desktop",
    });
    expect(describeUserAgent(SAFARI_IPHONE)).toMatchObject({
      browser: "Safari 17",
      os: "iOS 17.5",
      device: "mobile",
    });
    expect(describeUserAgent("curl/8.5.0").browser).toBe("curl/8.5.0");
    expect(describeUserAgent(null)).toEqual({ browser: "Unknown browser", os: "Unknown system", device: "" });
  });
});

describe(`sessions (${databaseKind})`, () => {
  it("lists each session with its browser, system, address and dates, and marks this device", async () => {
    const { cookie } = await onboardedUser(app, "lister");
    await signInFrom("lister@example.com", FIREFOX_WINDOWS);
    await signInFrom("lister@example.com", SAFARI_IPHONE);
    const html = await settingsHtml(cookie);
    expect(html).toContain("Firefox 128 on Windows 10");
    expect(html).toContain("Safari 17 on iOS 17.5");
    expect(html).toContain("This device");
    expect(html).toContain("127.0.0.1");
    expect(html).toContain("Last active");
    expect(html).toContain("Sign out of other sessions");
  });

  it("signs out one other session from the page's action, and only the user's own", async () => {
    const { cookie, userId } = await onboardedUser(app, "revoker");
    const phone = await signInFrom("revoker@example.com", SAFARI_IPHONE);
    const stranger = await onboardedUser(app, "stranger");
    const [strangerSession] = await sessionIds(stranger.userId);
    // Another user's session id: refused, and that session lives on.
    const refused = await post(cookie, { intent: "revoke-session", sessionId: strangerSession! });
    expect(refused.status).toBe(404);
    expect(await isSignedIn(stranger.cookie)).toBe(true);

    const phoneSession = (await (await app.request("/api/auth/get-session", { cookie: phone })).json())
      .session.id as string;
    expect(await sessionIds(userId)).toContain(phoneSession);
    const revoked = await post(cookie, { intent: "revoke-session", sessionId: phoneSession });
    expect(revoked.status).toBe(200);
    expect(await isSignedIn(phone)).toBe(false);
    expect(await isSignedIn(cookie)).toBe(true);
    expect(await sessionIds(userId)).not.toContain(phoneSession);
  });

  it("revoke-other-sessions keeps only this one; revoke-sessions ends them all", async () => {
    const { cookie } = await onboardedUser(app, "everywhere");
    const laptop = await signInFrom("everywhere@example.com", FIREFOX_WINDOWS);
    const phone = await signInFrom("everywhere@example.com", SAFARI_IPHONE);
    expect((await postJson(app, "/api/auth/revoke-other-sessions", {}, cookie)).status).toBe(200);
    expect(await isSignedIn(cookie)).toBe(true);
    expect(await isSignedIn(laptop)).toBe(false);
    expect(await isSignedIn(phone)).toBe(false);

    const again = await signInFrom("everywhere@example.com", FIREFOX_WINDOWS);
    expect((await postJson(app, "/api/auth/revoke-sessions", {}, cookie)).status).toBe(200);
    expect(await isSignedIn(cookie)).toBe(false);
    expect(await isSignedIn(again)).toBe(false);
  });
});

describe(`linked accounts and passwords (${databaseKind})`, () => {
  it("lists the password account and refuses to unlink the last one: 'You can't unlink your last account'", async () => {
    const { cookie } = await onboardedUser(app, "lonely");
    const html = await settingsHtml(cookie);
    expect(html).toContain("Linked accounts");
    expect(html).toContain("Email and password");
    const res = await postJson(app, "/api/auth/unlink-account", { providerId: "credential" }, cookie);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe("You can't unlink your last account");
  });

  it("a user who signed up through a provider sets a first password through the action", async () => {
    const { cookie, userId } = await onboardedUser(app, "social");
    // Make it a provider-only account: a linked GitHub account, no password.
    const context = await app.services.auth.$context;
    await context.internalAdapter.deleteAccounts(userId);
    await context.internalAdapter.linkAccount({ userId, providerId: "github", accountId: "4242" });
    const page = await settingsHtml(cookie);
    expect(page).toContain("Set a password");
    expect(page).not.toContain("Change password");
    expect(page).toContain("Account 4242");

    const short = await post(cookie, {
      intent: "set-password",
      newPassword: "short",
      confirmPassword: "short",
    });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("Password too short");
    const mismatch = await post(cookie, {
      intent: "set-password",
      newPassword: "a long new password",
      confirmPassword: "another long password",
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("The passwords do not match");
    const long = "x".repeat(129);
    const tooLong = await post(cookie, { intent: "set-password", newPassword: long, confirmPassword: long });
    expect(await tooLong.text()).toContain("Password too long");

    const set = await post(cookie, {
      intent: "set-password",
      newPassword: "a long new password",
      confirmPassword: "a long new password",
    });
    expect(set.status).toBe(200);
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email: "social@example.com",
      password: "a long new password",
    });
    expect(signIn.status).toBe(200);
    expect(await settingsHtml(cookie)).toContain("Change password");

    const again = await post(cookie, {
      intent: "set-password",
      newPassword: "yet another password",
      confirmPassword: "yet another password",
    });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("user already has a password");

    // Two ways to sign in now: the provider can go.
    const unlinked = await postJson(
      app,
      "/api/auth/unlink-account",
      { providerId: "github", accountId: "4242" },
      cookie,
    );
    expect(unlinked.status).toBe(200);
    const last = await postJson(app, "/api/auth/unlink-account", { providerId: "credential" }, cookie);
    expect((await last.json()).message).toBe("You can't unlink your last account");
  });

  it("answers an unknown intent 400", async () => {
    const { cookie } = await onboardedUser(app, "intentional");
    expect((await post(cookie, { intent: "nope" })).status).toBe(400);
  });
});
