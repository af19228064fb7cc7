// Issue 37 item 5: the authentication API's redirect targets (spec §5). A target that leaves the
// site once its dot segments are resolved or its escapes decoded is refused with 403 'Invalid
// {field}' on every endpoint, in the query and in a JSON body, and never becomes a Location.
// SQLite, and PostgreSQL in CI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, postJson, TEST_ORIGIN, type TestApp } from "../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  // A social provider, so that sign-in/social gets as far as its redirect fields.
  app = await createTestApp({
    AUTH_GITHUB_CLIENT_ID: "packyard-test-client",
    AUTH_GITHUB_CLIENT_SECRET: "packyard-test-secret",
  });
});
afterAll(async () => {
  await app?.close();
});

const HOSTILE = [
  "/..//evil.example/phish",
  "/%2e%2e//evil.example/phish",
  "/%2E%2E//evil.example/phish",
  "/a/..//evil.example/phish",
  "/a/../..//evil.example/phish",
  "/.%2e//evil.example/phish",
  "/.//evil.example/phish",
  "/%2f%2fevil.example/phish",
  "/%5c%5cevil.example/phish",
  "/\\evil.example/phish",
  "/./\\evil.example/phish",
  "\\\\evil.example/phish",
  "///evil.example/phish",
  "//evil.example/phish",
  "/%09/evil.example/phish",
  "/\t/evil.example/phish",
  "https://evil.example/phish",
  "javascript:alert(1)",
];

/** The answer is the spec's refusal, and no Location could send a browser off the site. */
async function expectRefused(res: Response, field: string) {
  const location = res.headers.get("location");
  if (location !== null) expect(new URL(location, TEST_ORIGIN).origin).toBe(TEST_ORIGIN);
  expect(res.status).toBe(403);
  expect(((await res.json()) as { message?: string }).message).toBe(`Invalid ${field}`);
}

describe(`redirect targets of the authentication API (${databaseKind})`, () => {
  it.each(HOSTILE)("GET verify-email refuses callbackURL=%j with 403", async (target) => {
    const res = await app.request(`/api/auth/verify-email?token=x&callbackURL=${encodeURIComponent(target)}`);
    await expectRefused(res, "callbackURL");
  });

  it.each(HOSTILE)("GET reset-password and delete-user/callback refuse callbackURL=%j", async (target) => {
    const query = `callbackURL=${encodeURIComponent(target)}`;
    await expectRefused(await app.request(`/api/auth/reset-password/abc?${query}`), "callbackURL");
    await expectRefused(
      await app.request(`/api/auth/delete-user/callback?token=abc&${query}`),
      "callbackURL",
    );
  });

  it.each(HOSTILE)("POST sign-in/email refuses callbackURL %j in the JSON body", async (target) => {
    const res = await postJson(app, "/api/auth/sign-in/email", {
      email: "someone@example.com",
      password: "correct horse battery",
      callbackURL: target,
    });
    await expectRefused(res, "callbackURL");
  });

  it.each(HOSTILE)("POST request-password-reset and forget-password refuse redirectTo %j", async (target) => {
    for (const path of ["/api/auth/request-password-reset", "/api/auth/forget-password"]) {
      const res = await postJson(app, path, { email: "someone@example.com", redirectTo: target });
      await expectRefused(res, "redirectTo");
    }
  });

  it.each(HOSTILE)("POST sign-in/social refuses each redirect field set to %j", async (target) => {
    for (const field of ["callbackURL", "errorCallbackURL", "newUserCallbackURL"]) {
      const res = await postJson(app, "/api/auth/sign-in/social", {
        provider: "github",
        callbackURL: "/dashboard",
        [field]: target,
        disableRedirect: true,
      });
      await expectRefused(res, field);
    }
  });

  it("refuses a hostile callbackURL in the query of a POST too", async () => {
    const res = await postJson(
      app,
      `/api/auth/send-verification-email?callbackURL=${encodeURIComponent("/..//evil.example")}`,
      { email: "someone@example.com" },
    );
    await expectRefused(res, "callbackURL");
  });

  it("still follows same-site paths and the site's own origin", async () => {
    const verify = await app.request(
      `/api/auth/verify-email?token=x&callbackURL=${encodeURIComponent("/a/../dashboard")}`,
    );
    expect(verify.status).toBe(302);
    // A broken link goes to the sign-in page, which explains it, and from there to the callback.
    const location = new URL(verify.headers.get("location")!, TEST_ORIGIN);
    expect(location.pathname).toBe("/auth/signin");
    expect(location.searchParams.get("redirect")).toBe("/dashboard");
    expect(location.searchParams.get("error")).toBe("invalid_token");

    const reset = await postJson(app, "/api/auth/request-password-reset", {
      email: "someone@example.com",
      redirectTo: `${TEST_ORIGIN}/auth/reset-password`,
    });
    expect(reset.status).toBe(200);

    const social = await postJson(app, "/api/auth/sign-in/social", {
      provider: "github",
      callbackURL: "/dashboard?tab=projects",
      errorCallbackURL: "/auth/signin",
      newUserCallbackURL: "/onboarding",
      disableRedirect: true,
    });
    expect(social.status).toBe(200);
    expect(new URL(((await social.json()) as { url: string }).url).hostname).toBe("github.com");
  });
});
