// Sign-in and linked accounts through a real OpenID Connect provider (oidc-provider on
// 127.0.0.1, test/oidc-provider.ts), Packyard called in memory: the whole authorization code flow
// with PKCE, followed redirect by redirect with cookies (test/oidc-flow.ts). Spec §4, §5, §7, §8,
// §9: new and returning users, one-use state valid 10 minutes, implicit linking only for an
// email the provider vouches for, link-social, unlink and the last account, provider tokens,
// account-info, and two-factor after a provider sign-in. SQLite, and PostgreSQL when configured.
import type { Kysely } from "kysely";
import { Secret, TOTP } from "otpauth";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createTestApp,
  databaseKind,
  postJson,
  signUpVerified,
  TEST_ORIGIN,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";
import { FlowBrowser, type ProviderLogin } from "../../test/oidc-flow.ts";
import { startOidcProvider, subjectFor, type TestOidcProvider } from "../../test/oidc-provider.ts";
import type { Database, UserTable } from "../platform/db/schema.ts";

let app: TestApp;
let idp: TestOidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider({ packyardBaseUrl: TEST_ORIGIN, name: "Example SSO" });
  app = await createTestApp(idp.env);
});
afterAll(async () => {
  await app?.close();
  await idp?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

// better-auth's tables, as far as these tests read them.
interface AuthTables extends Database {
  user: UserTable & { twoFactorEnabled: number | boolean | null };
  session: Database["session"];
  account: {
    id: string;
    userId: string;
    providerId: string;
    accountId: string;
    accessToken: string | null;
    refreshToken: string | null;
    accessTokenExpiresAt: string | Date | null;
  };
  verification: { identifier: string; value: string; expiresAt: string | Date; createdAt: string | Date };
}
const db = () => app.services.database.db as unknown as Kysely<AuthTables>;

const browser = () => new FlowBrowser(app, idp);
const verified = (email: string, name = "Provider User"): ProviderLogin => ({
  email,
  name,
  emailVerified: true,
});
const unverified = (email: string, name = "Provider User"): ProviderLogin => ({
  email,
  name,
  emailVerified: false,
});

async function session(cookie: string) {
  const res = await app.request("/api/auth/get-session", { cookie });
  return (await res.json()) as {
    user: { id: string; email: string; emailVerified: boolean; username: string | null };
  } | null;
}

async function userByEmail(email: string) {
  return db()
    .selectFrom("user")
    .select(["id", "email", "emailVerified", "name"])
    .where("email", "=", email)
    .executeTakeFirst();
}

async function accountsOf(userId: string) {
  return db()
    .selectFrom("account")
    .select(["id", "providerId", "accountId", "accessToken", "refreshToken", "accessTokenExpiresAt"])
    .where("userId", "=", userId)
    .orderBy("providerId")
    .execute();
}

async function countRows(table: "user" | "session" | "account") {
  const { n } = await db()
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

async function errorOf(response: Response) {
  const body = (await response.json()) as { code?: string; message?: string };
  return { status: response.status, code: body.code, message: body.message };
}

/** A user signed up through the provider, onboarded; returns the Packyard session cookie. */
async function providerUser(email: string, username: string) {
  const b = browser();
  const result = await b.signIn(verified(email));
  expect(result.location).toBe("/onboarding");
  const done = await b.request("/onboarding", { form: { name: "Provider User", username } });
  expect(done.status).toBe(302);
  return { cookie: b.cookie(), user: (await userByEmail(email))! };
}

/** The page a redirect ends on, rendered: its HTML. */
async function pageAt(location: string) {
  const res = await app.request(location);
  expect(res.status).toBe(200);
  return res.text();
}

/** How the user's sign-ins in the audit log were made, oldest first. */
const signInsOf = async (userId: string) =>
  (
    await app.services.database.db
      .selectFrom("audit_event")
      .select("details")
      .where("owner_id", "=", userId)
      .where("action", "=", "session.signed_in")
      .orderBy("id")
      .execute()
  ).map((row) => (JSON.parse(row.details) as { method: string }).method);

describe(`sign-in through the OpenID Connect provider (${databaseKind})`, () => {
  it("sends the browser to the issuer's authorization endpoint with PKCE S256, a 32-character state and the client", async () => {
    const started = await postJson(app, "/api/auth/sign-in/social", {
      provider: "oidc",
      callbackURL: "/dashboard",
      newUserCallbackURL: "/onboarding",
    });
    expect(started.status).toBe(200);
    const { url, redirect } = (await started.json()) as { url: string; redirect: boolean };
    expect(redirect).toBe(true);
    const authorize = new URL(url);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get("client_id")).toBe(idp.clientId);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${TEST_ORIGIN}/api/auth/callback/oidc`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("scope")?.split(" ").sort()).toEqual(["email", "openid", "profile"]);
    const state = authorize.searchParams.get("state")!;
    expect(state).toHaveLength(32);
    // The state is kept server-side for 10 minutes (spec §9).
    const row = await db()
      .selectFrom("verification")
      .select(["value", "expiresAt", "createdAt"])
      .where("identifier", "=", `auth-state:${state}`)
      .executeTakeFirstOrThrow();
    const lifetime = new Date(row.expiresAt).getTime() - new Date(row.createdAt).getTime();
    expect(Math.round(lifetime / 60_000)).toBe(10);
    const stored = JSON.parse(row.value) as { codeVerifier: string; callbackURL: string; newUserURL: string };
    expect(stored.codeVerifier).toHaveLength(128);
    expect(stored).toMatchObject({ callbackURL: "/dashboard", newUserURL: "/onboarding" });
  });

  it("creates a new user with a session and sends them to onboarding", async () => {
    const b = browser();
    const users = await countRows("user");
    const result = await b.signIn(verified("newcomer@example.com", "New Comer"), {
      newUserCallbackURL: "/onboarding?plan=pro&annual=true",
    });
    expect(result.location).toBe("/onboarding?plan=pro&annual=true");
    expect(await countRows("user")).toBe(users + 1);
    const current = await session(b.cookie());
    expect(current?.user).toMatchObject({
      email: "newcomer@example.com",
      emailVerified: true,
      username: null,
    });
    const accounts = await accountsOf(current!.user.id);
    expect(accounts.map((a) => [a.providerId, a.accountId])).toEqual([
      ["oidc", subjectFor("newcomer@example.com")],
    ]);
    // Onboarding is required before the dashboard.
    const dashboard = await b.request("/dashboard");
    expect(dashboard.status).toBe(302);
    expect(dashboard.headers.get("location")).toMatch(/^\/onboarding/);
  });

  it("signs a returning user in to the callback URL, as the same user", async () => {
    const { user } = await providerUser("returning@example.com", "returning");
    const users = await countRows("user");
    const before = await signInsOf(user.id);
    const b = browser();
    const result = await b.signIn(verified("returning@example.com"));
    expect(result.location).toBe("/dashboard");
    // In the account's audit log, by the provider's id (decision 031).
    expect(await signInsOf(user.id)).toEqual([...before, "oidc"]);
    expect(await countRows("user")).toBe(users);
    expect((await session(b.cookie()))?.user.id).toBe(user.id);
    const dashboard = await b.request("/dashboard");
    expect(dashboard.status).toBe(200);
  });

  it("signs out of Packyard only, without sending the browser to the provider's logout", async () => {
    const b = browser();
    await b.signIn(verified("signout@example.com"));
    const out = await b.request("/api/auth/sign-out", { json: {} });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ success: true });
    expect(out.headers.get("location")).toBeNull();
    expect(await session(b.cookie())).toBeNull();
  });

  it("refuses a callback used a second time (the state is one-use) with please_restart_the_process, explained", async () => {
    const b = browser();
    const first = await b.signIn(verified("replay@example.com"));
    expect(first.location).toBe("/onboarding");
    const sessions = await countRows("session");

    const attacker = browser();
    const replay = await attacker.follow(first.callbackUrl!);
    expect(replay.location).toBe("/error?error=please_restart_the_process");
    expect(attacker.packyard.has("session_token")).toBe(false);
    expect(await countRows("session")).toBe(sessions);
    // Even with the first browser's cookies.
    const again = await b.follow(first.callbackUrl!);
    expect(again.location).toBe("/error?error=please_restart_the_process");
    expect(await countRows("session")).toBe(sessions);

    const html = await pageAt(replay.location!);
    expect(html).toContain("This sign-in request has expired");
    expect(html).toContain("Each sign-in through a provider works once, within 10 minutes");
    expect(html).toContain('<code data-testid="error-code">please_restart_the_process</code>');
  });

  it("signs in with the provider's ID token, answering redirect, token, url and user (spec §7)", async () => {
    const tokens = await browser().providerTokens(verified("idtoken-signin@example.com"));
    const res = await postJson(app, "/api/auth/sign-in/social", {
      provider: "oidc",
      callbackURL: "/dashboard",
      idToken: { token: tokens.idToken, nonce: tokens.nonce, accessToken: tokens.accessToken },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      redirect: false,
      url: "/dashboard",
      user: { email: "idtoken-signin@example.com" },
    });
    expect(typeof body.token).toBe("string");
  });

  it("refuses a callback without a state (state_not_found) and explains it", async () => {
    const res = await app.request("/api/auth/callback/oidc?code=abc");
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toBe(`${TEST_ORIGIN}/error?error=state_not_found`);
    const html = await pageAt("/error?error=state_not_found");
    expect(html).toContain("This sign-in was not started here");
  });

  it("refuses a state older than 10 minutes, back on the sign-in page with the code explained", async () => {
    const b = browser();
    const page = await b.startAt("/api/auth/sign-in/social", {
      callbackURL: "/dashboard",
      newUserCallbackURL: "/onboarding",
      errorCallbackURL: "/auth/signin",
    });
    const callback = await b.loginUntilCallback(page, verified("slow@example.com"));
    // Eleven minutes pass between the start and the provider's answer.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 11 * 60_000 });
    const result = await b.follow(callback);
    vi.useRealTimers();
    expect(result.location).toBe("/auth/signin?error=please_restart_the_process");
    expect(b.packyard.has("session_token")).toBe(false);
    expect(await userByEmail("slow@example.com")).toBeUndefined();
    const html = await pageAt(result.location!);
    expect(html).toContain("This sign-in request has expired");
  });

  it("sends a provider's refusal (the user cancelled) to the error callback with its code", async () => {
    const b = browser();
    const page = await b.startAt("/api/auth/sign-in/social", {
      callbackURL: "/dashboard",
      errorCallbackURL: "/auth/signin",
    });
    const result = await b.follow(`${page}/abort`, { form: {} });
    expect(result.location).toMatch(/^\/auth\/signin\?error=access_denied&error_description=/);
    const html = await pageAt(result.location!);
    expect(html).toContain("The sign-in was cancelled");
  });
});

describe(`linking through the provider (${databaseKind})`, () => {
  it("links the provider to an existing verified password account when the provider vouches for the email", async () => {
    await signUpVerified(app, { email: "linked@example.com", name: "Password Person" });
    const owner = (await userByEmail("linked@example.com"))!;
    const b = browser();
    const result = await b.signIn(verified("linked@example.com"));
    expect(result.location).toBe("/dashboard");
    expect((await session(b.cookie()))?.user.id).toBe(owner.id);
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential", "oidc"]);
  });

  it("refuses implicit linking when the provider does not vouch for the email (account_not_linked), explained on the sign-in page", async () => {
    await signUpVerified(app, { email: "unvouched@example.com" });
    const owner = (await userByEmail("unvouched@example.com"))!;
    const sessions = await countRows("session");
    const b = browser();
    const result = await b.signIn(unverified("unvouched@example.com"));
    expect(result.location).toBe("/auth/signin?error=account_not_linked");
    expect(b.packyard.has("session_token")).toBe(false);
    expect(await countRows("session")).toBe(sessions);
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential"]);
    const html = await pageAt(result.location!);
    expect(html).toContain("An account with this email address already exists");
    expect(html).toContain("Sign in with your email and password instead.");
  });

  it("links the provider from a signed-in user (link-social) and lists it", async () => {
    const cookie = await signUpVerified(app, { email: "linker@example.com" });
    const owner = (await userByEmail("linker@example.com"))!;
    const b = browser().withSession(cookie);
    const page = await b.startAt("/api/auth/link-social", {
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    const result = await b.loginAtProvider(page, verified("linker@example.com"));
    expect(result.location).toBe("/settings");
    const listed = await app.request("/api/auth/list-accounts", { cookie });
    const accounts = (await listed.json()) as { providerId: string; accountId: string; scopes: string[] }[];
    const oidc = accounts.find((a) => a.providerId === "oidc");
    expect(oidc?.accountId).toBe(subjectFor("linker@example.com"));
    expect(oidc?.scopes.sort()).toEqual(["email", "openid", "profile"]);
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential", "oidc"]);
    // Linking while signed in is no sign-in: the log has the verified email's only.
    expect(await signInsOf(owner.id)).toEqual(["email-verification"]);
  });

  it("refuses link-social when the provider does not vouch for the email (unable_to_link_account)", async () => {
    const cookie = await signUpVerified(app, { email: "linkfail@example.com" });
    const owner = (await userByEmail("linkfail@example.com"))!;
    const b = browser().withSession(cookie);
    const page = await b.startAt("/api/auth/link-social", {
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    const result = await b.loginAtProvider(page, unverified("linkfail@example.com"));
    expect(result.location).toBe("/settings?error=unable_to_link_account");
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential"]);
  });

  it("refuses link-social for a provider account with another email (email_doesn't_match)", async () => {
    const cookie = await signUpVerified(app, { email: "mine@example.com" });
    const b = browser().withSession(cookie);
    const page = await b.startAt("/api/auth/link-social", {
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    const result = await b.loginAtProvider(page, verified("someone-else@example.com"));
    expect(new URL(result.location!, TEST_ORIGIN).searchParams.get("error")).toBe("email_doesn't_match");
    const html = await pageAt(result.location!.replace("/settings", "/error"));
    expect(html).toContain("The email addresses do not match");
  });

  it("refuses link-social for a provider account another user has (account_already_linked_to_different_user)", async () => {
    // The provider account of taken@example.com belongs to the user who signed up with it …
    await providerUser("taken@example.com", "taken");
    // … and the same email at the provider, verified, is offered to another Packyard user, whose
    // email was changed to match in the database (a provider account is one sub).
    const cookie = await signUpVerified(app, { email: "other-owner@example.com" });
    const other = (await userByEmail("other-owner@example.com"))!;
    const taken = (await userByEmail("taken@example.com"))!;
    await db()
      .updateTable("user")
      .set({ email: "taken-moved@example.com" })
      .where("id", "=", taken.id)
      .execute();
    await db().updateTable("user").set({ email: "taken@example.com" }).where("id", "=", other.id).execute();
    const b = browser().withSession(cookie);
    const page = await b.startAt("/api/auth/link-social", {
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    const result = await b.loginAtProvider(page, verified("taken@example.com"));
    expect(result.location).toBe("/settings?error=account_already_linked_to_different_user");
  });

  it("refuses link-social with an ID token whose email the provider does not vouch for: 'Account not linked - linking not allowed'", async () => {
    const cookie = await signUpVerified(app, { email: "idtoken@example.com" });
    const tokens = await browser().providerTokens(unverified("idtoken@example.com"));
    const res = await postJson(
      app,
      "/api/auth/link-social",
      {
        provider: "oidc",
        callbackURL: "/settings",
        idToken: { token: tokens.idToken, nonce: tokens.nonce, accessToken: tokens.accessToken },
      },
      cookie,
    );
    expect(await errorOf(res)).toMatchObject({
      status: 401,
      message: "Account not linked - linking not allowed",
    });
  });

  it("refuses link-social with an ID token for another email: 'Account not linked - different emails not allowed'", async () => {
    const cookie = await signUpVerified(app, { email: "idtoken-mine@example.com" });
    const tokens = await browser().providerTokens(verified("idtoken-theirs@example.com"));
    const res = await postJson(
      app,
      "/api/auth/link-social",
      {
        provider: "oidc",
        callbackURL: "/settings",
        idToken: { token: tokens.idToken, nonce: tokens.nonce, accessToken: tokens.accessToken },
      },
      cookie,
    );
    expect(await errorOf(res)).toMatchObject({
      status: 401,
      message: "Account not linked - different emails not allowed",
    });
  });

  it("links with an ID token the provider vouches for", async () => {
    const cookie = await signUpVerified(app, { email: "idtoken-ok@example.com" });
    const owner = (await userByEmail("idtoken-ok@example.com"))!;
    const tokens = await browser().providerTokens(verified("idtoken-ok@example.com"));
    const res = await postJson(
      app,
      "/api/auth/link-social",
      {
        provider: "oidc",
        callbackURL: "/settings",
        idToken: { token: tokens.idToken, nonce: tokens.nonce, accessToken: tokens.accessToken },
      },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: true, redirect: false });
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential", "oidc"]);
  });

  it("unlinks the provider, after which the password still signs in", async () => {
    const cookie = await signUpVerified(app, { email: "unlinker@example.com" });
    const owner = (await userByEmail("unlinker@example.com"))!;
    const b = browser().withSession(cookie);
    const page = await b.startAt("/api/auth/link-social", {
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    expect((await b.loginAtProvider(page, verified("unlinker@example.com"))).location).toBe("/settings");
    const oidc = (await accountsOf(owner.id)).find((a) => a.providerId === "oidc")!;

    const res = await postJson(
      app,
      "/api/auth/unlink-account",
      { providerId: "oidc", accountId: oidc.id },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: true });
    expect((await accountsOf(owner.id)).map((a) => a.providerId)).toEqual(["credential"]);
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email: "unlinker@example.com",
      password: TEST_PASSWORD,
    });
    expect(signIn.status).toBe(200);
  });

  it("refuses to unlink the last account: 'You can't unlink your last account'", async () => {
    const { cookie, user } = await providerUser("onlyprovider@example.com", "onlyprovider");
    const [only] = await accountsOf(user.id);
    expect(only?.providerId).toBe("oidc");
    const res = await postJson(
      app,
      "/api/auth/unlink-account",
      { providerId: "oidc", accountId: only!.id },
      cookie,
    );
    expect(await errorOf(res)).toMatchObject({ status: 400, message: "You can't unlink your last account" });
    expect(await accountsOf(user.id)).toHaveLength(1);
  });
});

describe(`the provider's tokens (${databaseKind})`, () => {
  let cookie: string;
  let userId: string;

  beforeAll(async () => {
    ({
      cookie,
      user: { id: userId },
    } = await providerUser("tokens@example.com", "tokens"));
  });

  async function oidcAccount() {
    return (await accountsOf(userId)).find((a) => a.providerId === "oidc")!;
  }

  /** What the provider's userinfo endpoint says about an access token. */
  async function userinfo(accessToken: string) {
    const res = await fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("keeps the provider's refresh token", async () => {
    const account = await oidcAccount();
    expect(account.accessToken).toBeTruthy();
    expect(account.refreshToken).toBeTruthy();
  });

  it("get-access-token with providerId 'oidc' returns the provider's access token", async () => {
    const res = await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      accessToken: string;
      accessTokenExpiresAt: string;
      scopes: string[];
    };
    expect(body.scopes.sort()).toEqual(["email", "openid", "profile"]);
    expect(new Date(body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 60_000);
    const info = await userinfo(body.accessToken);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ sub: subjectFor("tokens@example.com"), email: "tokens@example.com" });
  });

  it("get-access-token refreshes an access token that expires in under 5 seconds", async () => {
    const before = await oidcAccount();
    const old = (
      await (await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie)).json()
    ).accessToken as string;
    await db()
      .updateTable("account")
      .set({ accessTokenExpiresAt: new Date(Date.now() + 3_000).toISOString() as never })
      .where("id", "=", before.id)
      .execute();
    const res = await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { accessToken: string; accessTokenExpiresAt: string };
    expect(body.accessToken).not.toBe(old);
    expect(new Date(body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 60_000);
    expect((await userinfo(body.accessToken)).status).toBe(200);
    const after = await oidcAccount();
    expect(new Date(after.accessTokenExpiresAt as unknown as string).getTime()).toBeGreaterThan(
      Date.now() + 60_000,
    );
  });

  it("does not refresh an access token with more than 5 seconds left", async () => {
    const first = await (
      await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie)
    ).json();
    const second = await (
      await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie)
    ).json();
    expect(second.accessToken).toBe(first.accessToken);
  });

  it("refresh-token with providerId 'oidc' returns a fresh token set from the provider", async () => {
    const current = await (
      await postJson(app, "/api/auth/get-access-token", { providerId: "oidc" }, cookie)
    ).json();
    const res = await postJson(app, "/api/auth/refresh-token", { providerId: "oidc" }, cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      accessToken: string;
      refreshToken: string;
      accessTokenExpiresAt: string;
      providerId: string;
    };
    expect(body.providerId).toBe("oidc");
    expect(body.accessToken).not.toBe(current.accessToken);
    expect(body.refreshToken).toBeTruthy();
    expect((await userinfo(body.accessToken)).status).toBe(200);
  });

  it("refresh-token takes the provider's account id as accountId", async () => {
    const res = await postJson(
      app,
      "/api/auth/refresh-token",
      { providerId: "oidc", accountId: subjectFor("tokens@example.com") },
      cookie,
    );
    expect(res.status).toBe(200);
  });

  it("account-info with the accountId returns the user and the provider's data", async () => {
    const account = await oidcAccount();
    for (const accountId of [account.id, account.accountId]) {
      const res = await postJson(app, "/api/auth/account-info", { accountId }, cookie);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { user: Record<string, unknown>; data: Record<string, unknown> };
      // Spec §7: user has id, name, email, image, emailVerified; the OpenID subject is its id,
      // and the image is null when the provider has no picture.
      expect(body.user).toEqual({
        id: subjectFor("tokens@example.com"),
        email: "tokens@example.com",
        emailVerified: true,
        name: "Provider User",
        image: null,
      });
      expect(body.data).toMatchObject({ sub: subjectFor("tokens@example.com"), email_verified: true });
    }
  });

  it("answers an unknown provider with 'Provider xyz is not supported.' and 'Provider xyz not found.'", async () => {
    const access = await postJson(app, "/api/auth/get-access-token", { providerId: "xyz" }, cookie);
    expect(await errorOf(access)).toMatchObject({ status: 400, message: "Provider xyz is not supported." });
    const refresh = await postJson(app, "/api/auth/refresh-token", { providerId: "xyz" }, cookie);
    expect(await errorOf(refresh)).toMatchObject({ status: 400, message: "Provider xyz not found." });
  });
});

describe(`two-factor after a provider sign-in (${databaseKind})`, () => {
  it("sends a user with two-factor on to /auth/two-factor instead of signing them in", async () => {
    const owner = browser().withSession(await signUpVerified(app, { email: "guarded@example.com" }));
    const enabled = await owner.request("/api/auth/two-factor/enable", { json: { password: TEST_PASSWORD } });
    expect(enabled.status).toBe(200);
    const { totpURI } = (await enabled.json()) as { totpURI: string };
    const secret = new URL(totpURI).searchParams.get("secret")!;
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" });
    const confirmed = await owner.request("/api/auth/two-factor/verify-totp", {
      json: { code: totp.generate() },
    });
    expect(confirmed.status).toBe(200);
    const twoFactor = await db()
      .selectFrom("user")
      .select("twoFactorEnabled")
      .where("email", "=", "guarded@example.com")
      .executeTakeFirstOrThrow();
    expect(Boolean(twoFactor.twoFactorEnabled)).toBe(true);

    const sessions = await countRows("session");
    const b = browser();
    const result = await b.signIn(verified("guarded@example.com"), { callbackURL: "/projects" });
    expect(result.location).toBe("/auth/two-factor?redirect=%2Fprojects");
    expect(await session(b.cookie())).toBeNull();
    expect(await countRows("session")).toBe(sessions);
    expect(b.packyard.has("two_factor")).toBe(true);
  });
});
