// /api-keys end to end, in memory: creating a key through the page's action (secret shown once,
// pky_ prefix), using it on /api/v1 with its scope and access, refusing projects that aren't the
// user's, deleting one key, deleting the expired ones. SQLite, and PostgreSQL when configured.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestApp, databaseKind, onboardedUser, type TestApp } from "../../../test/harness.ts";

let app: TestApp;
let ada: { cookie: string; userId: string };
let bob: { cookie: string; userId: string };
const projectIds: Record<string, string> = {};

const KEY = /pky_[A-Za-z]{64}/;

function post(
  path: string,
  values: [string, string][],
  cookie?: string,
  headers: Record<string, string> = {},
) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(values).toString(),
    cookie,
  });
}

async function createKey(
  cookie: string,
  values: { name?: string; expiry?: string; scope?: string; projectIds?: string[]; access?: string },
) {
  const res = await post(
    "/api-keys",
    [
      ["intent", "create"],
      ["name", values.name ?? "CI"],
      ["expiry", values.expiry ?? "never"],
      ["scope", values.scope ?? "all"],
      ["access", values.access ?? "publish"],
      ...(values.projectIds ?? []).map((id): [string, string] => ["projectIds", id]),
    ],
    cookie,
  );
  const html = await res.text();
  return {
    status: res.status,
    html,
    key: KEY.exec(html)?.[0],
    cacheControl: res.headers.get("cache-control"),
  };
}

async function keysOf(cookie: string) {
  const { apiKeys } = await app.services.auth.api.listApiKeys({ headers: new Headers({ cookie }) });
  return apiKeys;
}

function v1(path: string, key: string, init: RequestInit = {}) {
  return app.request(`/api/v1${path}`, { ...init, headers: { ...bearer(key), ...(init.headers ?? {}) } });
}

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, "ada");
  bob = await onboardedUser(app, "bob");
  for (const [cookie, slug] of [
    [ada.cookie, "alpha"],
    [ada.cookie, "beta"],
    [bob.cookie, "bobs"],
  ] as const) {
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug.toUpperCase(), visibility: "public" }),
      cookie,
    });
    expect(res.status).toBe(201);
    projectIds[slug] = (await res.json()).project.id;
  }
});
afterAll(async () => {
  await app?.close();
});

describe(`creating API keys (${databaseKind})`, () => {
  it("creates a key, shows its secret once with the pky_ prefix, and lists it with its expiry", async () => {
    const created = await createKey(ada.cookie, { name: "Deploy bot", expiry: "30" });
    expect(created.status).toBe(200);
    expect(created.cacheControl).toBe("no-store");
    expect(created.key).toMatch(/^pky_/);
    expect(created.html).toContain("Your new API key");
    // Stored hashed: the secret is nowhere in the database.
    const rows = await sql<{ key: string }>`select ${sql.ref("key")} from ${sql.table("apikey")}`.execute(
      app.services.database.db,
    );
    expect(rows.rows.map((r) => r.key)).not.toContain(created.key);

    const page = await app.request("/api-keys", { cookie: ada.cookie });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("Deploy bot");
    expect(html).toContain(created.key!.slice(0, 6));
    expect(html).not.toContain(created.key);
    expect(html).toContain("Expires in 30 days");
    expect(html).toContain("Never used");
    expect(html).toContain("All projects");

    const key = (await keysOf(ada.cookie)).find((k) => k.name === "Deploy bot")!;
    expect(key.permissions).toEqual({ projects: ["*"], access: ["publish"] });
  });

  it("the key works as a bearer token on /api/v1, and its last use shows up", async () => {
    const { key } = await createKey(ada.cookie, { name: "Reader" });
    const res = await v1("/projects", key!);
    expect(res.status).toBe(200);
    const slugs = (await res.json()).projects.map((p: { slug: string }) => p.slug);
    expect(slugs.sort()).toEqual(["alpha", "beta"]);
    const html = await (await app.request("/api-keys", { cookie: ada.cookie })).text();
    expect(html).toContain("Last used");
  });

  it("a key scoped to project A gets 403 KEY_SCOPE on project B", async () => {
    const { status, key } = await createKey(ada.cookie, {
      name: "Alpha only",
      scope: "projects",
      projectIds: [projectIds.alpha!],
    });
    expect(status).toBe(200);
    expect((await v1("/projects/alpha", key!)).status).toBe(200);
    const other = await v1("/projects/beta", key!);
    expect(other.status).toBe(403);
    expect((await other.json()).error.code).toBe("KEY_SCOPE");
    const html = await (await app.request("/api-keys", { cookie: ada.cookie })).text();
    expect(html).toContain("Projects: ALPHA");
  });

  it("a read key may read but gets 403 KEY_SCOPE on an upload", async () => {
    const { key } = await createKey(ada.cookie, { name: "Read only", access: "read" });
    expect((await v1("/projects/alpha/releases", key!)).status).toBe(200);
    const put = await v1("/projects/alpha/releases/1.0.0/files/tool.tar.gz", key!, {
      method: "PUT",
      body: "bytes",
    });
    expect(put.status).toBe(403);
    expect((await put.json()).error.code).toBe("KEY_SCOPE");
  });

  it.each([
    [{ name: "" }, "Give the key a name"],
    [{ name: "x".repeat(33) }, "Name must be at most 32 characters"],
    [{ expiry: "7" }, "Choose when the key expires"],
    [{ access: "admin" }, "Choose read or publish access"],
    [{ scope: "projects" }, "Choose at least one project"],
  ])("refuses %j with %j and creates nothing", async (values, message) => {
    const before = (await keysOf(ada.cookie)).length;
    const res = await createKey(ada.cookie, values);
    expect(res.status).toBe(400);
    expect(res.html).toContain(message);
    expect(res.key).toBeUndefined();
    expect(await keysOf(ada.cookie)).toHaveLength(before);
  });

  it("may be scoped to a project of an organization the user belongs to, named on the page", async () => {
    const json = { "content-type": "application/json" };
    const org = await app.request("/api/v1/orgs", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ slug: "adas-org", name: "Ada's org" }),
      cookie: ada.cookie,
    });
    expect(org.status).toBe(201);
    const created = await app.request("/api/v1/projects", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ owner: "adas-org", slug: "rocket", name: "Rocket", visibility: "private" }),
      cookie: ada.cookie,
    });
    expect(created.status).toBe(201);
    const rocket = (await created.json()).project.id as string;
    const { status, key } = await createKey(ada.cookie, {
      name: "Org only",
      scope: "projects",
      projectIds: [rocket],
    });
    expect(status).toBe(200);
    expect((await v1("/projects/adas-org/rocket", key!)).status).toBe(200);
    expect((await v1("/projects/alpha", key!)).status).toBe(403);
    const html = await (await app.request("/api-keys", { cookie: ada.cookie })).text();
    expect(html).toContain("Projects: Rocket");
    expect(html).not.toContain("a deleted project");
  });

  it("refuses a scope naming another user's project", async () => {
    const before = (await keysOf(ada.cookie)).length;
    const res = await createKey(ada.cookie, {
      scope: "projects",
      projectIds: [projectIds.alpha!, projectIds.bobs!],
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain("Choose only your own projects");
    expect(res.key).toBeUndefined();
    expect(await keysOf(ada.cookie)).toHaveLength(before);
  });

  it("sends anonymous visitors to sign-in and refuses cross-site posts", async () => {
    const page = await app.request("/api-keys");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/auth/signin?redirect=%2Fapi-keys");
    const anonymous = await post("/api-keys", [["intent", "create"]]);
    expect(anonymous.status).toBe(302);
    const crossSite = await post(
      "/api-keys",
      [
        ["intent", "create"],
        ["name", "evil"],
        ["expiry", "never"],
        ["scope", "all"],
        ["access", "publish"],
      ],
      ada.cookie,
      { origin: "https://evil.example" },
    );
    // React Router refuses an action whose Origin is another site.
    expect(crossSite.status).toBe(400);
    expect((await keysOf(ada.cookie)).some((k) => k.name === "evil")).toBe(false);
  });
});

describe(`deleting API keys (${databaseKind})`, () => {
  it("deletes a key after which it is refused with 401", async () => {
    const { key } = await createKey(ada.cookie, { name: "Short lived" });
    expect((await v1("/projects", key!)).status).toBe(200);
    const id = (await keysOf(ada.cookie)).find((k) => k.name === "Short lived")!.id;
    const res = await post(
      "/api-keys",
      [
        ["intent", "delete"],
        ["keyId", id],
      ],
      ada.cookie,
    );
    expect(res.status).toBe(200);
    expect((await keysOf(ada.cookie)).some((k) => k.id === id)).toBe(false);
    expect((await v1("/projects", key!)).status).toBe(401);
  });

  it("does not let another user delete someone's key", async () => {
    const { key } = await createKey(ada.cookie, { name: "Mine" });
    const id = (await keysOf(ada.cookie)).find((k) => k.name === "Mine")!.id;
    const res = await post(
      "/api-keys",
      [
        ["intent", "delete"],
        ["keyId", id],
      ],
      bob.cookie,
    );
    expect(res.status).toBe(404);
    expect((await v1("/projects", key!)).status).toBe(200);
  });

  it("'Delete expired keys' removes only the expired ones", async () => {
    const keep = await createKey(ada.cookie, { name: "Keep me", expiry: "90" });
    const keepForever = await createKey(ada.cookie, { name: "Keep forever" });
    const expire = await createKey(ada.cookie, { name: "Expire me", expiry: "30" });
    const id = (await keysOf(ada.cookie)).find((k) => k.name === "Expire me")!.id;
    // Move its expiry into the past, in whatever form the database stores dates.
    const db = app.services.database.db;
    const stored = await sql<{
      expiresAt: unknown;
    }>`select ${sql.ref("expiresAt")} from ${sql.table("apikey")} where id = ${id}`.execute(db);
    const past = new Date(Date.now() - 24 * 60 * 60 * 1000);
    const current = stored.rows[0]!.expiresAt;
    const value =
      typeof current === "string" ? past.toISOString() : typeof current === "number" ? past.getTime() : past;
    await sql`update ${sql.table("apikey")} set ${sql.ref("expiresAt")} = ${value} where id = ${id}`.execute(
      db,
    );
    expect((await v1("/projects", expire.key!)).status).toBe(401);

    const res = await post("/api-keys", [["intent", "delete-expired"]], ada.cookie);
    expect(res.status).toBe(200);
    const names = (await keysOf(ada.cookie)).map((k) => k.name);
    expect(names).not.toContain("Expire me");
    expect(names).toEqual(expect.arrayContaining(["Keep me", "Keep forever", "Deploy bot"]));
    expect((await v1("/projects", keep.key!)).status).toBe(200);
    expect((await v1("/projects", keepForever.key!)).status).toBe(200);
  });
});
