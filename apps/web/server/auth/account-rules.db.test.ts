// Spec §4, §5, §7 and §8 as a client of /api/auth sees them, one test per code or message that
// Packyard's account features produce: sign-up, password reset, email change, verification mail,
// redirect fields, the origin check, provider tokens, and the security notices. In memory, on
// SQLite and (in CI) PostgreSQL.
import { RESET_REQUESTED_MESSAGE } from "@packyard/contract/messages.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cookiesFrom,
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
  // A social provider is configured so that sign-in/social checks its redirect fields.
  app = await createTestApp({
    AUTH_GITHUB_CLIENT_ID: "packyard-test-client",
    AUTH_GITHUB_CLIENT_SECRET: "packyard-test-secret",
  });
});
afterAll(async () => {
  await app?.close();
});

const mailsTo = (email: string) => app.outbox().filter((m) => addressOf(m.to) === email);
const addressOf = (to: string) => (to.match(/<([^>]+)>/)?.[1] ?? to).trim().toLowerCase();

async function errorOf(response: Response) {
  const body = (await response.json()) as { code?: string; message?: string };
  return { status: response.status, code: body.code, message: body.message };
}

async function userRow(email: string) {
  return app.services.database.db
    .selectFrom("user")
    .select(["id", "email", "emailVerified"])
    .where("email", "=", email)
    .executeTakeFirst();
}

function linkIn(mail: { links: string[] } | undefined, fragment: string): string {
  const link = mail?.links.find((l) => l.includes(fragment));
  if (!link) throw new Error(`no ${fragment} link in the mail`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

describe(`sign-up and password reset (${databaseKind})`, () => {
  it("answers a second sign-up with a registered email 422 'User already exists. Use another email.'", async () => {
    await signUpVerified(app, { email: "twice@example.com" });
    const before = mailsTo("twice@example.com").length;
    const again = await postJson(app, "/api/auth/sign-up/email", {
      email: "Twice@Example.com",
      name: "Someone Else",
      password: TEST_PASSWORD,
    });
    expect(await errorOf(again)).toEqual({
      status: 422,
      code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
      message: "User already exists. Use another email.",
    });
    expect(mailsTo("twice@example.com")).toHaveLength(before);
  });

  it("serves POST /forget-password like /request-password-reset: the generic message, and a reset link for a known email", async () => {
    await signUpVerified(app, { email: "forgetful@example.com" });
    const known = await postJson(app, "/api/auth/forget-password", {
      email: "forgetful@example.com",
      redirectTo: "/auth/reset-password",
    });
    expect(known.status).toBe(200);
    expect(await known.json()).toEqual({ status: true, message: RESET_REQUESTED_MESSAGE });
    const mail = mailsTo("forgetful@example.com").findLast((m) => /reset/i.test(m.subject));
    expect(linkIn(mail, "/api/auth/reset-password/")).toContain("callbackURL=%2Fauth%2Freset-password");

    const unknown = await postJson(app, "/api/auth/forget-password", { email: "nobody@example.com" });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ status: true, message: RESET_REQUESTED_MESSAGE });
    expect(mailsTo("nobody@example.com")).toHaveLength(0);
  });

  it("refuses an untrusted redirectTo on both reset endpoints with 403 'Invalid redirectTo'", async () => {
    for (const path of ["/api/auth/forget-password", "/api/auth/request-password-reset"]) {
      const res = await postJson(app, path, {
        email: "forgetful@example.com",
        redirectTo: "https://evil.example/",
      });
      expect(await errorOf(res)).toMatchObject({ status: 403, message: "Invalid redirectTo" });
    }
  });

  it("mails a notice after a password reset", async () => {
    const email = "reset-notice@example.com";
    await signUpVerified(app, { email });
    await postJson(app, "/api/auth/request-password-reset", { email, redirectTo: "/auth/reset-password" });
    const resetLink = linkIn(
      mailsTo(email).findLast((m) => /reset/i.test(m.subject)),
      "/api/auth/reset-password/",
    );
    const token = resetLink.split("/reset-password/")[1]!.split("?")[0]!;
    const reset = await postJson(app, "/api/auth/reset-password", {
      token,
      newPassword: "a brand new password",
    });
    expect(reset.status).toBe(200);
    expect(mailsTo(email).at(-1)!.subject).toBe("Your Packyard password was changed");
  });
});

describe(`redirect fields and the origin check (${databaseKind})`, () => {
  it("refuses untrusted callbackURL, errorCallbackURL and newUserCallbackURL with 403 'Invalid {field}'", async () => {
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email: "someone@example.com",
      password: TEST_PASSWORD,
      callbackURL: "https://evil.example/",
    });
    expect(await errorOf(signIn)).toMatchObject({ status: 403, message: "Invalid callbackURL" });
    for (const field of ["callbackURL", "errorCallbackURL", "newUserCallbackURL"]) {
      const res = await postJson(app, "/api/auth/sign-in/social", {
        provider: "github",
        [field]: "https://evil.example/landing",
      });
      expect(await errorOf(res)).toMatchObject({ status: 403, message: `Invalid ${field}` });
    }
    // Relative paths on this site are fine: the answer is GitHub's authorization URL.
    const ok = await postJson(app, "/api/auth/sign-in/social", {
      provider: "github",
      callbackURL: "/dashboard",
      errorCallbackURL: "/auth/signin",
      newUserCallbackURL: "/onboarding",
      disableRedirect: true,
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).url).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
  });

  it("refuses a cookie POST from another origin with 403 'Invalid origin'", async () => {
    const cookie = await signUpVerified(app, { email: "origin@example.com" });
    const res = await app.request("/api/auth/change-password", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ currentPassword: TEST_PASSWORD, newPassword: "another long password" }),
      cookie,
    });
    expect(await errorOf(res)).toMatchObject({ status: 403, message: "Invalid origin" });
  });

  it("answers an unknown social provider 404 PROVIDER_NOT_FOUND", async () => {
    const res = await postJson(app, "/api/auth/sign-in/social", {
      provider: "gitlab",
      callbackURL: "/dashboard",
    });
    expect(await errorOf(res)).toMatchObject({ status: 404, code: "PROVIDER_NOT_FOUND" });
  });
});

describe(`verification mail (${databaseKind})`, () => {
  it("sends a verification mail only to the signed-in user's own, unverified email", async () => {
    const cookie = await signUpVerified(app, { email: "verified-already@example.com" });
    const own = await postJson(
      app,
      "/api/auth/send-verification-email",
      { email: "verified-already@example.com" },
      cookie,
    );
    expect(await errorOf(own)).toMatchObject({
      status: 400,
      message: "You can only send a verification email to an unverified email",
    });
    const other = await postJson(
      app,
      "/api/auth/send-verification-email",
      { email: "someone-else@example.com" },
      cookie,
    );
    expect(await errorOf(other)).toMatchObject({
      status: 400,
      message: "You can only send a verification email to your own email",
    });
  });
});

describe(`email change (${databaseKind})`, () => {
  it("refuses the same email with 'Email is the same' and a used one with \"Couldn't update your email\"", async () => {
    const cookie = await signUpVerified(app, { email: "keeper@example.com" });
    await signUpVerified(app, { email: "taken@example.com" });
    const same = await postJson(app, "/api/auth/change-email", { newEmail: "Keeper@example.com" }, cookie);
    expect(await errorOf(same)).toMatchObject({ status: 400, message: "Email is the same" });
    const used = await postJson(app, "/api/auth/change-email", { newEmail: "taken@example.com" }, cookie);
    expect(await errorOf(used)).toMatchObject({ status: 400, message: "Couldn't update your email" });
    expect((await userRow("keeper@example.com"))?.email).toBe("keeper@example.com");
  });

  it("changes an unverified email at once, mails the new address a verification link and the old one a notice", async () => {
    // An unverified user with a session: a verified user's flag cleared (sign-in itself needs a
    // verified email).
    const cookie = await signUpVerified(app, { email: "unverified-old@example.com" });
    await app.services.database.db
      .updateTable("user")
      .set({ emailVerified: false as never })
      .where("email", "=", "unverified-old@example.com")
      .execute();
    const res = await postJson(
      app,
      "/api/auth/change-email",
      { newEmail: "unverified-new@example.com", callbackURL: "/profile" },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await userRow("unverified-old@example.com")).toBeUndefined();
    expect(await userRow("unverified-new@example.com")).toMatchObject({ emailVerified: falsy() });
    const verification = mailsTo("unverified-new@example.com").find((m) => /verify/i.test(m.subject));
    expect(linkIn(verification, "/api/auth/verify-email?token=")).toContain("callbackURL=%2Fprofile");
    expect(mailsTo("unverified-old@example.com").at(-1)!.subject).toBe(
      "Your Packyard email address was changed",
    );
  });

  it("on a verified email: confirms through the old address, then sets the new one unverified and mails it a verification link", async () => {
    const cookie = await signUpVerified(app, { email: "verified-old@example.com" });
    const res = await postJson(
      app,
      "/api/auth/change-email",
      { newEmail: "verified-new@example.com", callbackURL: "/profile" },
      cookie,
    );
    expect(await res.json()).toEqual({ status: true });
    // Nothing changes until the confirmation link is opened.
    expect(await userRow("verified-old@example.com")).toMatchObject({ emailVerified: truthy() });
    const confirmation = mailsTo("verified-old@example.com").at(-1);
    expect(confirmation!.subject).toBe("Confirm your new email address for Packyard");
    expect(mailsTo("verified-new@example.com")).toHaveLength(0);

    const confirmed = await app.request(linkIn(confirmation, "/api/auth/verify-email?token="), { cookie });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/profile");
    expect(await userRow("verified-old@example.com")).toBeUndefined();
    expect(await userRow("verified-new@example.com")).toMatchObject({ emailVerified: falsy() });
    expect(mailsTo("verified-old@example.com").at(-1)!.subject).toBe(
      "Your Packyard email address was changed",
    );

    const verification = mailsTo("verified-new@example.com").find((m) => /verify/i.test(m.subject));
    const verified = await app.request(linkIn(verification, "/api/auth/verify-email?token="));
    expect(verified.status).toBe(302);
    expect(await userRow("verified-new@example.com")).toMatchObject({ emailVerified: truthy() });
    // The session follows the account.
    const session = await app.request("/api/auth/get-session", { cookie: cookiesFrom(confirmed) || cookie });
    expect((await session.json()).user.email).toBe("verified-new@example.com");
  });
});

describe(`provider tokens and account info (${databaseKind})`, () => {
  it("names an unconfigured provider: 'Provider {id} is not supported.' and 'Provider {id} not found.'", async () => {
    const cookie = await signUpVerified(app, { email: "tokens@example.com" });
    const access = await postJson(app, "/api/auth/get-access-token", { providerId: "gitlab" }, cookie);
    expect(await errorOf(access)).toMatchObject({
      status: 400,
      message: "Provider gitlab is not supported.",
    });
    const refresh = await postJson(app, "/api/auth/refresh-token", { providerId: "gitlab" }, cookie);
    expect(await errorOf(refresh)).toMatchObject({ status: 400, message: "Provider gitlab not found." });
  });

  it("answers 'Account not found.' for a configured provider the user has not linked", async () => {
    const cookie = await signUpVerified(app, { email: "unlinked@example.com" });
    const access = await postJson(app, "/api/auth/get-access-token", { providerId: "github" }, cookie);
    expect(await errorOf(access)).toMatchObject({
      status: 400,
      code: "ACCOUNT_NOT_FOUND",
      message: "Account not found.",
    });
    const info = await postJson(app, "/api/auth/account-info", { accountId: "no-such-account" }, cookie);
    expect(await errorOf(info)).toMatchObject({ status: 400, message: "Account not found." });
  });

  it("takes userId only on the server: a client without a session is refused, the server needs one or the other", async () => {
    const { userId } = await onboardedUser(app, "tokenuser");
    const anonymous = await postJson(app, "/api/auth/get-access-token", { providerId: "github", userId });
    expect(anonymous.status).toBe(401);
    const noAccount = await postJson(app, "/api/auth/account-info", { accountId: "x" });
    expect(noAccount.status).toBe(401);
    await expect(
      app.services.auth.api.getAccessToken({ body: { providerId: "github" } as never }),
    ).rejects.toMatchObject({ body: { message: "Either userId or session is required" } });
    await expect(
      app.services.auth.api.getAccessToken({ body: { providerId: "github", userId } as never }),
    ).rejects.toMatchObject({ body: { message: "Account not found." } });
  });

  it("lists a password user's one credential account", async () => {
    const cookie = await signUpVerified(app, { email: "lister@example.com" });
    const res = await app.request("/api/auth/list-accounts", { cookie });
    const accounts = (await res.json()) as { providerId: string; scopes: string[] }[];
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ providerId: "credential", scopes: [] });
    const unlink = await postJson(app, "/api/auth/unlink-account", { providerId: "credential" }, cookie);
    expect(await errorOf(unlink)).toMatchObject({
      status: 400,
      message: "You can't unlink your last account",
    });
  });
});

describe(`passwords (${databaseKind})`, () => {
  it("checks change-password: the current password, both lengths, and mails a notice once changed", async () => {
    const email = "changer@example.com";
    const cookie = await signUpVerified(app, { email });
    const wrong = await postJson(
      app,
      "/api/auth/change-password",
      { currentPassword: "not the password", newPassword: "another long password" },
      cookie,
    );
    expect(await errorOf(wrong)).toMatchObject({ status: 400, code: "INVALID_PASSWORD" });
    const short = await postJson(
      app,
      "/api/auth/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: "short" },
      cookie,
    );
    expect(await errorOf(short)).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_SHORT",
      message: "Password too short",
    });
    const long = await postJson(
      app,
      "/api/auth/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: "x".repeat(129) },
      cookie,
    );
    expect(await errorOf(long)).toMatchObject({
      status: 400,
      code: "PASSWORD_TOO_LONG",
      message: "Password too long",
    });
    expect(mailsTo(email).filter((m) => /password was changed/.test(m.subject))).toHaveLength(0);

    const ok = await postJson(
      app,
      "/api/auth/change-password",
      { currentPassword: TEST_PASSWORD, newPassword: "another long password" },
      cookie,
    );
    expect(ok.status).toBe(200);
    expect(mailsTo(email).at(-1)!.subject).toBe("Your Packyard password was changed");
  });

  it("keeps set-password off the HTTP API (server-only) and answers 'user already has a password' on the server", async () => {
    const cookie = await signUpVerified(app, { email: "setter@example.com" });
    const client = await postJson(
      app,
      "/api/auth/set-password",
      { newPassword: "a new long password" },
      cookie,
    );
    expect(client.status).toBe(404);
    const headers = new Headers({ cookie, origin: TEST_ORIGIN });
    await expect(
      app.services.auth.api.setPassword({ body: { newPassword: "a new long password" }, headers }),
    ).rejects.toMatchObject({ body: { code: "PASSWORD_ALREADY_SET" } });
  });
});

describe(`security notices (${databaseKind})`, () => {
  it("mails the owner when an API key is created", async () => {
    const { userId } = await onboardedUser(app, "keynotice");
    await createApiKey(app, userId, { projects: "*", access: "publish" });
    const notice = mailsTo("keynotice@example.com").at(-1);
    expect(notice!.subject).toBe("A new API key was created for your Packyard account");
    expect(notice!.text).toContain("test publish");
    expect(notice!.links).toContain(`${TEST_ORIGIN}/settings`);
  });
});

// SQLite stores booleans as 0/1, PostgreSQL as booleans.
function truthy() {
  return expect.toSatisfy((v: unknown) => v === true || v === 1);
}
function falsy() {
  return expect.toSatisfy((v: unknown) => v === false || v === 0);
}
