// /auth/generate-token end to end, in memory: the page guards itself, accepts only loopback
// callbacks (127.0.0.1 or localhost with a port), refuses every other one without creating a
// token, and its actions send the browser back to the CLI with the token and state (or with
// error=access_denied). The token publishes on /api/v1. SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createTestApp,
  databaseKind,
  onboardedUser,
  signUpVerified,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
let ada: { cookie: string; userId: string };

const GOOD = [
  "http://127.0.0.1:53682/callback",
  "http://localhost:8080/",
  "http://localhost:9000",
  "http://127.0.0.1:1/a/b?keep=yes",
];
const BAD = [
  "https://127.0.0.1:8080/callback",
  "https://localhost:8080/callback",
  "http://example.com:8080/callback",
  "http://127.0.0.1.evil.example:8080/",
  "http://localhost.evil.example:8080/",
  "http://[::1]:8080/",
  "http://0.0.0.0:8080/",
  "http://127.0.0.1/callback",
  "http://localhost/callback",
  "http://127.0.0.1:0/",
  "http://127.0.0.1:70000/",
  "http://user:pass@127.0.0.1:8080/callback",
  "http://127.0.0.1:8080@evil.example/",
  "javascript:alert(1)",
  "ftp://127.0.0.1:21/",
  "file:///tmp/x",
  "data:text/html,hi",
  "//127.0.0.1:8080/callback",
  "/callback",
  "http://127.0.0.1:8080/callback#frag",
  "",
];

const tokenPage = (callback: string, state = "st8-abc") =>
  `/auth/generate-token?${new URLSearchParams({ callback, state })}`;

function post(values: Record<string, string>, cookie?: string) {
  return app.request("/auth/generate-token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

async function keyCount(cookie: string) {
  const { apiKeys } = await app.services.auth.api.listApiKeys({ headers: new Headers({ cookie }) });
  return apiKeys.length;
}

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, "ada");
});
afterAll(async () => {
  await app?.close();
});

describe(`the token page guards itself (${databaseKind})`, () => {
  it("sends anonymous visitors to sign-in, coming back with the same query", async () => {
    const path = tokenPage("http://127.0.0.1:53682/callback");
    const res = await app.request(path);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/auth/signin?${new URLSearchParams({ redirect: path })}`);
    const action = await post({ intent: "authorize", callback: "http://127.0.0.1:53682/", state: "x" });
    expect(action.status).toBe(302);
    expect(action.headers.get("location")).toMatch(/^\/auth\/signin\?redirect=/);
  });

  it("sends users without a username to onboarding", async () => {
    const cookie = await signUpVerified(app, { email: "fresh@example.com" });
    const res = await app.request("/auth/generate-token", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/onboarding");
  });
});

describe(`loopback callbacks (${databaseKind})`, () => {
  it.each(GOOD)("offers to authorize %s", async (callback) => {
    const res = await app.request(tokenPage(callback), { cookie: ada.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Authorize the packyard CLI");
    expect(html).toMatch(/<button[^>]*value="authorize"/);
    expect(html).toContain(new URL(callback).host);
  });

  it.each(BAD)("refuses %j on the page and in the action, creating no token", async (callback) => {
    const before = await keyCount(ada.cookie);
    const page = await app.request(tokenPage(callback), { cookie: ada.cookie });
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain("This link can");
    expect(html).toContain("No token was created.");
    expect(html).not.toMatch(/<button[^>]*value="authorize"/);
    for (const intent of ["authorize", "deny"]) {
      const action = await post({ intent, callback, state: "st8" }, ada.cookie);
      expect(action.status).toBe(400);
      expect(action.headers.get("location")).toBeNull();
    }
    expect(await keyCount(ada.cookie)).toBe(before);
  });

  it("refuses a good callback without a state", async () => {
    const res = await app.request(`/auth/generate-token?${new URLSearchParams({ callback: GOOD[0]! })}`, {
      cookie: ada.cookie,
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("The request has no state parameter.");
    const action = await post({ intent: "authorize", callback: GOOD[0]! }, ada.cookie);
    expect(action.status).toBe(400);
  });
});

describe(`authorizing the CLI (${databaseKind})`, () => {
  it("redirects to the callback with a token and the state; the token publishes on /api/v1", async () => {
    const before = await keyCount(ada.cookie);
    const res = await post(
      { intent: "authorize", callback: "http://127.0.0.1:53682/cb?keep=yes", state: "xyz-123" },
      ada.cookie,
    );
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(location.origin).toBe("http://127.0.0.1:53682");
    expect(location.pathname).toBe("/cb");
    expect(location.searchParams.get("keep")).toBe("yes");
    expect(location.searchParams.get("state")).toBe("xyz-123");
    const token = location.searchParams.get("token")!;
    expect(token).toMatch(/^pky_[A-Za-z]{64}$/);
    expect(await keyCount(ada.cookie)).toBe(before + 1);

    expect((await app.request("/api/v1/projects", { headers: bearer(token) })).status).toBe(200);
    const created = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ slug: "from-cli", name: "From the CLI" }),
    });
    expect(created.status).toBe(201);

    const { apiKeys } = await app.services.auth.api.listApiKeys({
      headers: new Headers({ cookie: ada.cookie }),
    });
    const key = apiKeys.find((k) => k.start && token.startsWith(k.start) && k.name?.startsWith("CLI on "));
    expect(key?.permissions).toEqual({ projects: ["*"], access: ["publish"] });
    expect(key?.expiresAt).toBeNull();
  });

  it("works with localhost too", async () => {
    const res = await post(
      { intent: "authorize", callback: "http://localhost:8080/", state: "s" },
      ada.cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(
      /^http:\/\/localhost:8080\/\?token=pky_[A-Za-z]{64}&state=s$/,
    );
  });

  it("'Cancel' redirects with error=access_denied and creates no token", async () => {
    const before = await keyCount(ada.cookie);
    const res = await post(
      { intent: "deny", callback: "http://127.0.0.1:53682/cb", state: "abc" },
      ada.cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:53682/cb?error=access_denied&state=abc");
    expect(await keyCount(ada.cookie)).toBe(before);
  });
});

describe(`a token to paste (${databaseKind})`, () => {
  it("without a callback, creates a CLI token and shows it once", async () => {
    const page = await app.request("/auth/generate-token", { cookie: ada.cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Generate token");
    const res = await post({ intent: "create", name: "", expiry: "never" }, ada.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const token = /pky_[A-Za-z]{64}/.exec(html)?.[0];
    expect(token).toBeTruthy();
    expect(html).toContain("It never expires.");
    expect((await app.request("/api/v1/projects", { headers: bearer(token!) })).status).toBe(200);
    const list = await (await app.request("/api-keys", { cookie: ada.cookie })).text();
    expect(list).toMatch(/CLI on \d{4}-\d{2}-\d{2}/);
    expect(list).not.toContain(token);
  });

  it("honours a chosen name and expiry", async () => {
    const res = await post({ intent: "create", name: "Laptop", expiry: "30" }, ada.cookie);
    expect(res.status).toBe(200);
    const list = await (await app.request("/api-keys", { cookie: ada.cookie })).text();
    expect(list).toContain("Laptop");
    expect(list).toContain("Expires in 30 days");
  });
});
