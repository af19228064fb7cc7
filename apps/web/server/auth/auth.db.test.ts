// Accounts end to end through the HTTP API, in memory: sign-up, verification from the outbox,
// sign-in, onboarding, password reset, sign-out. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cookiesFrom,
  createTestApp,
  databaseKind,
  postJson,
  signUpVerified,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

function form(values: Record<string, string>) {
  return new URLSearchParams(values).toString();
}

async function onboard(cookie: string, values: Record<string, string>, query = "") {
  return app.request(`/onboarding${query}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form(values),
    cookie,
  });
}

describe(`sign-up and verification (${databaseKind})`, () => {
  it("refuses sign-in with EMAIL_NOT_VERIFIED until the emailed link is opened, then signs in", async () => {
    const email = "ada@example.com";
    const signUp = await postJson(app, "/api/auth/sign-up/email", {
      email: "Ada@Example.com",
      name: "Ada Lovelace",
      password: TEST_PASSWORD,
      callbackURL: "/dashboard",
    });
    expect(signUp.status).toBe(200);
    // No session before verification.
    expect(cookiesFrom(signUp)).not.toContain("session_token=");

    const mails = app.outbox().filter((m) => m.to.includes(email));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Verify your email for Packyard");
    const link = mails[0]!.links.find((l) => l.includes("/api/auth/verify-email?token="));
    expect(link).toBeTruthy();

    const refused = await postJson(app, "/api/auth/sign-in/email", { email, password: TEST_PASSWORD });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe("EMAIL_NOT_VERIFIED");
    // Trying to sign in unverified sends a fresh link.
    expect(app.outbox().filter((m) => m.to.includes(email))).toHaveLength(2);

    const url = new URL(link!);
    const verified = await app.request(`${url.pathname}${url.search}`);
    expect(verified.status).toBe(302);
    expect(verified.headers.get("location")).toBe("/dashboard");

    const signIn = await postJson(app, "/api/auth/sign-in/email", { email, password: TEST_PASSWORD });
    expect(signIn.status).toBe(200);
    const body = await signIn.json();
    expect(body.user).toMatchObject({ email, emailVerified: true, name: "Ada Lovelace" });
    const cookie = cookiesFrom(signIn);
    const session = await app.request("/api/auth/get-session", { cookie });
    expect((await session.json()).user.email).toBe(email);
  });

  it("answers a wrong password with INVALID_EMAIL_OR_PASSWORD", async () => {
    await signUpVerified(app, { email: "wrongpass@example.com" });
    const res = await postJson(app, "/api/auth/sign-in/email", {
      email: "wrongpass@example.com",
      password: "nope-nope-nope",
    });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("INVALID_EMAIL_OR_PASSWORD");
    const unknown = await postJson(app, "/api/auth/sign-in/email", {
      email: "nobody@example.com",
      password: TEST_PASSWORD,
    });
    expect((await unknown.json()).code).toBe("INVALID_EMAIL_OR_PASSWORD");
  });

  it("rejects an invalid email and a too-short password with their codes", async () => {
    const badEmail = await postJson(app, "/api/auth/sign-in/email", {
      email: "not-an-email",
      password: TEST_PASSWORD,
    });
    expect(badEmail.status).toBe(400);
    expect((await badEmail.json()).code).toBe("INVALID_EMAIL");
    const short = await postJson(app, "/api/auth/sign-up/email", {
      email: "short@example.com",
      name: "X",
      password: "short",
    });
    expect(short.status).toBe(400);
    expect((await short.json()).code).toBe("PASSWORD_TOO_SHORT");
  });

  it("refuses absolute and protocol-relative redirect targets (403 'Invalid callbackURL')", async () => {
    for (const callbackURL of ["https://evil.example/", "//evil.example"]) {
      const res = await postJson(app, "/api/auth/sign-up/email", {
        email: `redirect-${callbackURL.length}@example.com`,
        name: "X",
        password: TEST_PASSWORD,
        callbackURL,
      });
      expect(res.status).toBe(403);
      expect((await res.json()).message).toBe("Invalid callbackURL");
    }
  });

  it("the sign-in page sends a signed-in user on only to same-site paths", async () => {
    const cookie = await signUpVerified(app, { email: "redirects@example.com" });
    const cases: [string, string][] = [
      ["/projects", "/projects"],
      ["https://evil.example/", "/dashboard"],
      ["//evil.example", "/dashboard"],
      ["/\\evil.example", "/dashboard"],
    ];
    for (const [target, expected] of cases) {
      const res = await app.request(`/auth/signin?redirect=${encodeURIComponent(target)}`, { cookie });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(expected);
    }
    const withPlan = await app.request("/auth/signin?plan=pro&annual=false", { cookie });
    expect(withPlan.headers.get("location")).toBe("/onboarding?plan=pro&annual=false");
  });

  let redirectCookie: string | undefined;
  it.each([
    "/..//evil.example",
    "/%2e%2e//evil.example",
    "/\\evil.example",
    "/%5c%5cevil.example",
    "/.%2e//evil",
    "///evil",
    "/%2f%2fevil",
    "/./\\evil.example",
    "/a/..%2f..%2f/evil",
    "/%09/evil.example",
  ])("the sign-in page keeps a signed-in user on the site for redirect=%j", async (target) => {
    redirectCookie ??= await signUpVerified(app, { email: "open-redirect@example.com" });
    const cookie = redirectCookie;
    for (const query of [
      `redirect=${encodeURIComponent(target)}`,
      // Unescaped, so the query's own decoding turns %2e into "." and %5c into "\\".
      `redirect=${target.replace(/\\/g, "%5C").replace(/\t/g, "%09")}`,
    ]) {
      const res = await app.request(`/auth/signin?${query}`, { cookie });
      expect(res.status).toBe(302);
      const location = res.headers.get("location") ?? "";
      // A same-origin path: one "/", not followed by "/" or "\".
      expect(location).toMatch(/^\/(?![/\\])/);
      expect(new URL(location, "http://localhost:3000").origin).toBe("http://localhost:3000");
      expect(location).toBe("/dashboard");
    }
  });
});

describe(`onboarding (${databaseKind})`, () => {
  it.each([
    [{ name: "A", username: "valid-name" }, "Full name must be at least 2 characters"],
    [{ name: "x".repeat(101), username: "valid-name" }, "Full name must be less than 100 characters"],
    [{ name: "Ada", username: "ab" }, "Username must be at least 3 characters"],
    [{ name: "Ada", username: "a".repeat(31) }, "Username must be less than 30 characters"],
    [
      { name: "Ada", username: "Upper" },
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
    [
      { name: "Ada", username: "-lead" },
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
    [
      { name: "Ada", username: "trail-" },
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
  ])("rejects %j with the spec's message", async (values, message) => {
    const cookie = await signUpVerified(app, {
      email: `onb-${Math.random().toString(36).slice(2)}@example.com`,
    });
    const res = await onboard(cookie, values);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(message);
  });

  it("saves the name and username, then goes to the dashboard with the plan carried", async () => {
    const cookie = await signUpVerified(app, { email: "grace@example.com" });
    const res = await onboard(cookie, { name: "Grace Hopper", username: "grace" }, "?plan=pro&annual=true");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/dashboard?plan=pro&annual=true&welcome=1");
    const dashboard = await app.request("/dashboard", { cookie });
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain("Hello, Grace Hopper");
    // Onboarded users are sent on from /onboarding.
    expect((await app.request("/onboarding", { cookie })).status).toBe(302);
  });

  it("goes on to where sign-in was headed (a path on this site only)", async () => {
    const cookie = await signUpVerified(app, { email: "headed@example.com" });
    const res = await onboard(
      cookie,
      { name: "Headed Somewhere", username: "headed" },
      "?redirect=%2Fapi-keys",
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/api-keys");
    const away = await signUpVerified(app, { email: "away@example.com" });
    const offsite = await onboard(
      away,
      { name: "Not Away", username: "away" },
      "?redirect=https%3A%2F%2Fevil.example%2F",
    );
    expect(offsite.headers.get("location")).toBe("/dashboard?welcome=1");
  });

  it("refuses a username someone else has", async () => {
    const first = await signUpVerified(app, { email: "first@example.com" });
    expect((await onboard(first, { name: "First", username: "taken" })).status).toBe(302);
    const second = await signUpVerified(app, { email: "second@example.com" });
    const res = await onboard(second, { name: "Second", username: "taken" });
    expect(res.status).toBe(409);
    expect(await res.text()).toContain("This username is already taken");
  });

  it("does not let the client set a username through better-auth", async () => {
    const cookie = await signUpVerified(app, { email: "sneaky@example.com" });
    await postJson(app, "/api/auth/update-user", { username: "sneaky" }, cookie);
    const row = await app.services.database.db
      .selectFrom("user")
      .select("username")
      .where("email", "=", "sneaky@example.com")
      .executeTakeFirst();
    expect(row?.username ?? null).toBeNull();
  });
});

describe(`password reset and sign-out (${databaseKind})`, () => {
  it("answers an unknown email with the generic message and sends nothing", async () => {
    const before = app.outbox().length;
    const res = await postJson(app, "/api/auth/request-password-reset", {
      email: "ghost@example.com",
      redirectTo: "/auth/reset-password",
    });
    expect(res.status).toBe(200);
    expect((await res.json()).message).toBe(
      "If this email exists in our system, check your email for the reset link.",
    );
    expect(app.outbox().length).toBe(before);
  });

  it("resets a password through the emailed link and revokes old sessions", async () => {
    const email = "reset@example.com";
    const oldCookie = await signUpVerified(app, { email });
    await postJson(app, "/api/auth/request-password-reset", { email, redirectTo: "/auth/reset-password" });
    const mail = app
      .outbox()
      .findLast((m) => m.to.includes(email) && m.subject === "Reset your Packyard password");
    const link = new URL(mail!.links.find((l) => l.includes("/reset-password/"))!);
    const landing = await app.request(`${link.pathname}${link.search}`);
    expect(landing.status).toBe(302);
    const target = new URL(landing.headers.get("location")!, "http://localhost:3000");
    expect(target.pathname).toBe("/auth/reset-password");
    const token = target.searchParams.get("token");
    expect(token).toHaveLength(24);

    const reset = await postJson(app, "/api/auth/reset-password", {
      newPassword: "a brand new password",
      token,
    });
    expect(reset.status).toBe(200);
    const stale = await app.request("/api/auth/get-session", { cookie: oldCookie });
    expect(await stale.json()).toBeNull();
    const signIn = await postJson(app, "/api/auth/sign-in/email", {
      email,
      password: "a brand new password",
    });
    expect(signIn.status).toBe(200);
    const reused = await postJson(app, "/api/auth/reset-password", {
      newPassword: "another new password",
      token,
    });
    expect(reused.status).toBe(400);
  });

  it("signs out and the guarded pages redirect again", async () => {
    const cookie = await signUpVerified(app, { email: "signout@example.com" });
    await onboard(cookie, { name: "Sign Out", username: "signout" });
    expect((await app.request("/dashboard", { cookie })).status).toBe(200);
    const out = await postJson(app, "/api/auth/sign-out", {}, cookie);
    expect(out.status).toBe(200);
    expect((await app.request("/dashboard", { cookie })).status).toBe(302);
  });
});
