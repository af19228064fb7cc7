// /auth/signin rendered by the server: a "Continue with …" button for each configured provider
// (the OpenID Connect provider first, then the social providers in better-auth's order), none
// without configuration; and a provider error (?error=<code>) explained with the contract's texts.
// SQLite, and PostgreSQL when configured.
import { explainAuthError, SPEC_REDIRECT_ERROR_CODES } from "@packyard/contract/auth-errors.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeHtml } from "../../../server/platform/http/error-page.ts";
import { createTestApp, databaseKind, TEST_ORIGIN, type TestApp } from "../../../test/harness.ts";
import { startOidcProvider, type TestOidcProvider } from "../../../test/oidc-provider.ts";

let plain: TestApp;
let configured: TestApp;
let idp: TestOidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider({ packyardBaseUrl: TEST_ORIGIN, name: "Acme SSO" });
  plain = await createTestApp();
  configured = await createTestApp({
    ...idp.env,
    AUTH_GITLAB_CLIENT_ID: "gitlab-client",
    AUTH_GITLAB_CLIENT_SECRET: "gitlab-secret",
    AUTH_GITHUB_CLIENT_ID: "github-client",
    AUTH_GITHUB_CLIENT_SECRET: "github-secret",
  });
});
afterAll(async () => {
  await plain?.close();
  await configured?.close();
  await idp?.stop();
});

async function page(app: TestApp, path = "/auth/signin") {
  const res = await app.request(path);
  expect(res.status).toBe(200);
  return res.text();
}

/** The labels of the provider buttons, in page order. */
function providerButtons(html: string): string[] {
  return [
    ...html.matchAll(/<button[^>]*>(?:(?!<\/button>)[\s\S])*?Continue with (?:<!-- -->)?([^<]+)<\/button>/g),
  ].map((m) => m[1]!.trim());
}

describe(`the sign-in page's providers (${databaseKind})`, () => {
  it("shows no provider button when none is configured", async () => {
    const html = await page(plain);
    expect(providerButtons(html)).toEqual([]);
    expect(html).not.toContain("Continue with");
    expect(html).not.toContain("or with your email");
  });

  it("shows one button per configured provider, the OpenID Connect provider first", async () => {
    const html = await page(configured);
    expect(providerButtons(html)).toEqual(["Acme SSO", "GitHub", "GitLab"]);
    expect(html).toContain("or with your email");
  });

  it("keeps the providers on the create-account form", async () => {
    const html = await page(configured, "/auth/signin?mode=signup");
    expect(providerButtons(html)).toEqual(["Acme SSO", "GitHub", "GitLab"]);
  });

  it("starts the configured providers' sign-in and refuses an unknown one", async () => {
    for (const provider of ["oidc", "github", "gitlab"]) {
      const res = await configured.request("/api/auth/sign-in/social", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider, callbackURL: "/dashboard", disableRedirect: true }),
      });
      expect(res.status, provider).toBe(200);
    }
    const unknown = await plain.request("/api/auth/sign-in/social", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "github", callbackURL: "/dashboard" }),
    });
    expect(unknown.status).toBe(404);
  });
});

describe(`provider errors on the sign-in page (${databaseKind})`, () => {
  it.each(SPEC_REDIRECT_ERROR_CODES)("explains %s", async (code) => {
    const html = await page(configured, `/auth/signin?error=${encodeURIComponent(code)}`);
    const texts = explainAuthError(code);
    expect(html).toContain('data-testid="signin-error"');
    for (const text of [texts.title, texts.explanation, texts.action])
      expect(html).toContain(reactEscaped(text));
    expect(html).toContain(reactEscaped(code));
  });

  it("keeps the buttons and the form under the explanation", async () => {
    const html = await page(configured, "/auth/signin?error=account_not_linked&redirect=%2Fprojects");
    expect(html.indexOf("signin-error")).toBeLessThan(html.indexOf("Continue with"));
    expect(providerButtons(html)).toHaveLength(3);
    expect(html).toContain('name="password"');
  });

  it("shows generic texts with the code for an unknown code, escaped", async () => {
    const html = await page(plain, `/auth/signin?error=${encodeURIComponent("<b>weird</b>")}`);
    expect(html).toContain("Something went wrong");
    expect(html).toContain("&lt;b&gt;weird&lt;/b&gt;");
    expect(html).not.toContain("<b>weird</b>");
  });

  it("explains the same codes on the server's /error page", async () => {
    for (const code of SPEC_REDIRECT_ERROR_CODES) {
      const res = await plain.request(`/error?error=${encodeURIComponent(code)}`);
      const html = await res.text();
      const texts = explainAuthError(code);
      expect(html, code).toContain(`<h1>${escapeHtml(texts.title)}</h1>`);
      expect(html, code).toContain(escapeHtml(texts.explanation));
      expect(html, code).toContain(escapeHtml(texts.action));
      expect(html, code).toContain(`<code data-testid="error-code">${escapeHtml(code)}</code>`);
      expect(html, code).toMatch(/<a href="\/">Return to Application<\/a>/);
      expect(html, code).toContain('<a href="/auth/signin">Back to sign in</a>');
    }
  });

  it("answers better-auth's own error page (/api/auth/error) with the explained error page", async () => {
    const res = await plain.request("/api/auth/error?error=state_not_found");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("This sign-in was not started here");
    expect(html).toContain('<code data-testid="error-code">state_not_found</code>');
  });
});

/** Text as React renders it into HTML. */
function reactEscaped(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/'/g, "&#x27;")
    .replace(/"/g, "&quot;");
}
