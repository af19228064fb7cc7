// /api/auth to the letter of spec §7 and §8, through the whole app in memory: the redirect
// error codes (lower-case, the spec's names), the HTML error page under the auth base path,
// delete-all-expired-api-keys for a signed-in user, the errors of get-access-token,
// refresh-token, account-info and set-password, and the answer shapes of verify-email and
// link-social. SQLite, and PostgreSQL when configured.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  signUpVerified,
  TEST_ORIGIN,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({
    AUTH_GITHUB_CLIENT_ID: "packyard-test-client",
    AUTH_GITHUB_CLIENT_SECRET: "packyard-test-secret",
  });
});
afterAll(async () => {
  await app?.close();
});

/** A verification token as better-auth signs them, valid until `expiresAt` (seconds). */
function verificationToken(claims: Record<string, string>, expiresAt = Math.floor(Date.now() / 1000) + 600) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(expiresAt - 3600)
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(app.services.config.secret));
}

const anHourAgo = () => Math.floor(Date.now() / 1000) - 3600;

async function verify(token: string, callbackURL?: string, cookie?: string) {
  const query = new URLSearchParams({ token, ...(callbackURL ? { callbackURL } : {}) });
  return app.request(`/api/auth/verify-email?${query}`, { cookie });
}

describe(`redirect error codes (${databaseKind})`, () => {
  it("sends an expired verification link to the sign-in page with token_expired, which explains it", async () => {
    await postJson(app, "/api/auth/sign-up/email", {
      email: "late@example.com",
      name: "Late",
      password: TEST_PASSWORD,
      callbackURL: "/dashboard",
    });
    const res = await verify(
      await verificationToken({ email: "late@example.com" }, anHourAgo()),
      "/dashboard",
    );
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toBe("/auth/signin?redirect=%2Fdashboard&error=token_expired");
    const page = await app.request(location);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("This link has expired");
    expect(html).toContain("token_expired");
  });

  it("names a broken link invalid_token, a deleted account user_not_found, lower-case", async () => {
    const broken = await verify("not-a-token", "/dashboard");
    expect(broken.headers.get("location")).toBe("/auth/signin?redirect=%2Fdashboard&error=invalid_token");
    const gone = await verify(await verificationToken({ email: "nobody@example.com" }), "/auth/signin");
    expect(gone.headers.get("location")).toBe("/auth/signin?error=user_not_found");
  });

  it("names another account's email-change link unauthorized, shown on /error to the signed-in user", async () => {
    const owner = await signUpVerified(app, { email: "changer@example.com" });
    const other = await signUpVerified(app, { email: "bystander@example.com" });
    const token = await verificationToken({ email: "changer@example.com", updateTo: "new@example.com" });
    const res = await verify(token, "/settings", other);
    const location = res.headers.get("location")!;
    expect(location).toBe("/auth/signin?redirect=%2Fsettings&error=unauthorized");
    const signIn = await app.request(location, { cookie: other });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toBe("/error?error=unauthorized");
    const page = await (await app.request("/error?error=unauthorized")).text();
    expect(page).toContain("You need to be signed in");
    expect(owner).toBeTruthy();
  });

  it("names a reused or unknown sign-in state please_restart_the_process", async () => {
    const res = await app.request("/api/auth/callback/github?state=never-issued&code=abc");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${TEST_ORIGIN}/error?error=please_restart_the_process`);
  });

  it("redirects a malformed provider callback with invalid_callback_request", async () => {
    const res = await app.request("/api/auth/callback/github?state=one&state=two&code=abc");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${TEST_ORIGIN}/error?error=invalid_callback_request`);
    const page = await (await app.request("/error?error=invalid_callback_request")).text();
    expect(page).toContain("The provider&#39;s answer could not be read");
  });

  it("keeps INVALID_TOKEN for a password reset link, as spec §7 says", async () => {
    const res = await app.request(
      "/api/auth/reset-password/no-such-token?callbackURL=%2Fauth%2Freset-password",
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${TEST_ORIGIN}/auth/reset-password?error=INVALID_TOKEN`);
  });
});

describe(`GET /api/auth/error (${databaseKind})`, () => {
  it("shows 'Unknown' for a missing code", async () => {
    const res = await app.request("/api/auth/error");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain('<code data-testid="error-code">Unknown</code>');
  });

  it("shows an unsafe code escaped, and explains a known one", async () => {
    const unsafe = await (
      await app.request(`/api/auth/error?error=${encodeURIComponent("<b>x</b>")}`)
    ).text();
    expect(unsafe).toContain('<code data-testid="error-code">&lt;b&gt;x&lt;/b&gt;</code>');
    expect(unsafe).not.toContain("<b>x</b>");
    const known = await (await app.request("/api/auth/error?error=token_expired")).text();
    expect(known).toContain("This link has expired");
  });
});

describe(`POST /api/auth/api-key/delete-all-expired-api-keys (${databaseKind})`, () => {
  it("deletes the signed-in user's expired keys only", async () => {
    const me = await onboardedUser(app, "tidy");
    const someone = await onboardedUser(app, "untidy");
    const expired = await createApiKey(app, me.userId, { projects: "*", access: "read" });
    const live = await createApiKey(app, me.userId, { projects: "*", access: "read" });
    const theirs = await createApiKey(app, someone.userId, { projects: "*", access: "read" });
    const db = app.services.database.db;
    const idOf = async (key: string) =>
      (await db.selectFrom("apikey").select("id").where("start", "=", key.slice(0, 6)).execute()).map(
        (r) => r.id,
      );
    expect((await idOf(expired)).length).toBeGreaterThan(0);
    await db
      .updateTable("apikey")
      .set({ expiresAt: new Date(Date.now() - 60_000).toISOString() } as never)
      .where("referenceId", "in", [me.userId, someone.userId])
      .where("id", "not in", await idOf(live))
      .execute();

    const res = await postJson(app, "/api/auth/api-key/delete-all-expired-api-keys", {}, me.cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, error: null });
    const left = await db.selectFrom("apikey").select(["referenceId"]).execute();
    expect(left.filter((k) => k.referenceId === me.userId)).toHaveLength(1);
    expect(left.filter((k) => k.referenceId === someone.userId)).toHaveLength(1);
    expect(theirs).toBeTruthy();
  });

  it("answers 401 with a code without a session", async () => {
    const res = await postJson(app, "/api/auth/api-key/delete-all-expired-api-keys", {});
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe(`account errors of spec §8 (${databaseKind})`, () => {
  it("get-access-token and refresh-token with neither session nor userId: 400 'Either userId or session is required'", async () => {
    for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
      const res = await postJson(app, path, { providerId: "github" });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ message: "Either userId or session is required" });
    }
  });

  it("account-info without a session: 401 with a JSON code", async () => {
    const res = await postJson(app, "/api/auth/account-info", { accountId: "x" });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("set-password when the user has a password: 'user already has a password'", async () => {
    const cookie = await signUpVerified(app, { email: "haspassword@example.com" });
    await expect(
      app.services.auth.api.setPassword({
        body: { newPassword: "another good password" },
        headers: new Headers({ cookie }),
      }),
    ).rejects.toMatchObject({ body: { message: "user already has a password" } });
  });

  it("account-info for an account whose provider is not configured: INTERNAL_SERVER_ERROR", async () => {
    const { cookie, userId } = await onboardedUser(app, "orphan");
    const now = new Date().toISOString();
    await app.services.database.db
      .insertInto("account" as never)
      .values({
        id: "orphan-gitlab",
        userId,
        providerId: "gitlab",
        accountId: "gitlab-42",
        accessToken: "token",
        createdAt: now,
        updatedAt: now,
      } as never)
      .execute();
    const res = await postJson(app, "/api/auth/account-info", { accountId: "gitlab-42" }, cookie);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
  });
});

describe(`answer shapes of spec §7 (${databaseKind})`, () => {
  it("verify-email returns the user with the status", async () => {
    await postJson(app, "/api/auth/sign-up/email", {
      email: "shape@example.com",
      name: "Shape",
      password: TEST_PASSWORD,
    });
    const mail = app.outbox().findLast((m) => m.to.includes("shape@example.com"));
    const token = new URL(mail!.links.find((l) => l.includes("/verify-email"))!).searchParams.get("token")!;
    for (const attempt of [1, 2]) {
      const res = await verify(token);
      expect(res.status, `attempt ${attempt}`).toBe(200);
      const body = await res.json();
      expect(body.status).toBe(true);
      expect(body.user).toMatchObject({ email: "shape@example.com", name: "Shape", emailVerified: true });
    }
  });

  it("redirect-flow link-social returns url, redirect and status", async () => {
    const cookie = await signUpVerified(app, { email: "linker@example.com" });
    const res = await postJson(
      app,
      "/api/auth/link-social",
      { provider: "github", callbackURL: "/settings" },
      cookie,
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ redirect: true, status: true });
    expect(body.url).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
  });
});
