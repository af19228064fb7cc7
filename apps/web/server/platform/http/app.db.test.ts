// The server called in memory: health, the error page, security headers, and the guard on
// every signed-in route. Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, signUpVerified, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe(`server basics (${databaseKind})`, () => {
  it("uses the configured database", () => {
    expect(app.services.database.kind).toBe(databaseKind);
  });

  it("GET /ok answers {ok:true}", async () => {
    const res = await app.request("/ok");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("serves the OpenAPI document at /api/openapi.json", async () => {
    const res = await app.request("/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.servers).toEqual([{ url: "http://localhost:3000" }]);
    expect(doc.paths["/api/v1/projects"].post.summary).toBe("Create a project");
  });

  it("GET /error shows 'Unknown' by default with a link back to the application", async () => {
    const res = await app.request("/error");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('<code data-testid="error-code">Unknown</code>');
    expect(html).toMatch(/<a href="\/">Return to Application<\/a>/);
  });

  it("GET /error escapes the code", async () => {
    const res = await app.request(`/error?error=${encodeURIComponent('<script>alert("x")</script>')}`);
    const html = await res.text();
    expect(html).not.toContain("<script>alert");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });

  it("server-renders the home page with the tagline in the title and a CSP nonce on its scripts", async () => {
    const res = await app.request("/");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<title>[^<]*package management made simple[^<]*<\/title>/);
    expect(html).toContain('<link rel="canonical" href="http://localhost:3000/"');
    expect(html).toContain('<meta name="description"');
    expect(html).toContain('<meta name="keywords"');
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = csp.match(/'nonce-([^']+)'/)?.[1];
    expect(nonce).toBeTruthy();
    const inlineScripts = html.match(/<script(?![^>]*\bsrc=)[^>]*>/g) ?? [];
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const tag of inlineScripts) expect(tag).toContain(`nonce="${nonce}"`);
  });

  it("sets security headers on every response", async () => {
    for (const path of ["/", "/ok", "/error", "/api/auth/get-session"]) {
      const res = await app.request(path);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });

  it("serves hashed assets with a year-long immutable cache", async () => {
    const html = await (await app.request("/")).text();
    const asset = html.match(/\/assets\/[^"]+\.js/)?.[0];
    expect(asset).toBeTruthy();
    const res = await app.request(asset!);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  // With Stripe configured the paid buttons carry plan and annual into sign-up: see
  // app/routes/_app/billing.db.test.ts. This server has no Stripe: they say so.
  it("serves /pricing from the plans, carrying the period into sign-up", async () => {
    const res = await app.request("/pricing?plan=pro&annual=true");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("$390.00");
    expect(html).toContain("$120.00");
    expect(html).toContain('href="/auth/signin?mode=signup&amp;plan=basic&amp;annual=true"');
    expect(html).toContain("Payments are not configured on this server");
    const monthly = await (await app.request("/pricing")).text();
    expect(monthly).toContain("$39.00");
    expect(monthly).toContain("$12.00");
    // Values outside the spec's sets are ignored: monthly prices, no plan carried.
    const odd = await app.request("/pricing?plan=gold&annual=maybe");
    expect(odd.status).toBe(200);
    const oddHtml = await odd.text();
    expect(oddHtml).toContain("$39.00");
    expect(oddHtml).not.toContain("plan=gold");
    expect(oddHtml).toContain('href="/auth/signin?mode=signup&amp;plan=basic&amp;annual=false"');
  });

  it("answers an unknown URL with the not-found page and HTTP 404", async () => {
    const res = await app.request("/no/such/page");
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain("Page Not Found");
    expect(html).toContain("Check the URL for typos");
    expect(html).toMatch(/href="\/"[^>]*>Go to Home page/);
  });
});

describe(`when something breaks (${databaseKind})`, () => {
  it("shows the generic error page with HTTP 500 and hides the cause", async () => {
    const broken = await createTestApp();
    // Fault injection: the session lookup every page's loader makes starts failing.
    broken.services.auth.api.getSession = (() => {
      throw new Error("database connection lost: sqlite");
    }) as never;
    const res = await broken.request("/auth/signin");
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toContain("Oops!");
    expect(html).toContain("Something went wrong. Please try again later.");
    expect(html).toMatch(/href="\/"[^>]*>Go to Home page/);
    expect(html).not.toMatch(/sqlite|database|closed/i);
    await broken.close();
  });
});

const guardedPaths = [
  "/dashboard",
  "/onboarding",
  "/onboarding?plan=pro&annual=true",
  "/projects",
  "/projects?page=2",
  "/projects/widget",
  "/projects/widget/releases",
  "/projects/widget/releases/1.2.3",
  "/api-keys",
  "/subscription",
  "/billing",
  "/billing/success",
  "/billing/cancel",
  "/profile",
  "/settings",
  "/integrations/nexus",
  "/integrations/artifactory",
  "/integrations/gitlab",
  "/integrations/github-releases",
];

describe(`the guarded parent (${databaseKind})`, () => {
  it.each(guardedPaths)("redirects an anonymous request for %s to sign-in", async (path) => {
    const res = await app.request(path);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!, "http://localhost:3000");
    expect(location.pathname).toBe("/auth/signin");
    expect(location.searchParams.get("redirect")).toBe(path);
  });

  it("uses the page path, not the .data URL, on client navigations", async () => {
    const res = await app.request("/projects.data?page=2");
    const body = await res.text();
    expect(body).toContain("/auth/signin?redirect=%2Fprojects%3Fpage%3D2");
    expect(body).not.toContain(".data");
  });

  it("sends a signed-in user without a username to onboarding, keeping plan and annual", async () => {
    const cookie = await signUpVerified(app, { email: "guard@example.com" });
    const res = await app.request("/projects?plan=starter&annual=true", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/onboarding?plan=starter&annual=true");
    const onboarding = await app.request("/onboarding", { cookie });
    expect(onboarding.status).toBe(200);
  });
});
