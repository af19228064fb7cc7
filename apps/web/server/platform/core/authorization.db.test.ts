// Who may do what, over every /api/v1, /api/p and /dl route: anonymous, another user, a key
// scoped to another project, a read-only key, the owner's publish key and the owner's session.
// Another user's private project is a 404 everywhere, exactly like a project that doesn't exist.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
const callers: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  app = await createTestApp();
  const owner = await onboardedUser(app, "owner");
  const other = await onboardedUser(app, "other");
  const ownerSession = { cookie: owner.cookie };
  const mk = async (body: object) => {
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      ...ownerSession,
    });
    expect(res.status).toBe(201);
    return (await res.json()).project.id as string;
  };
  const widget = await mk({ slug: "widget", name: "Widget", visibility: "public" });
  const secret = await mk({ slug: "secret", name: "Secret", visibility: "private" });
  await mk({ slug: "third", name: "Third", visibility: "public" });
  for (const slug of ["widget", "secret"]) {
    const put = await app.request(`/api/v1/projects/${slug}/releases/1.0.0/files/tool.tar.gz`, {
      method: "PUT",
      body: "archive bytes",
      ...ownerSession,
    });
    expect(put.status).toBe(201);
  }
  callers.anonymous = {};
  callers.otherUser = { cookie: other.cookie };
  callers.keyForThird = bearer(
    await createApiKey(app, owner.userId, { projects: [(await idOf("third"))!], access: "publish" }),
  );
  callers.readKey = bearer(
    await createApiKey(app, owner.userId, { projects: [widget, secret], access: "read" }),
  );
  callers.ownerKey = bearer(await createApiKey(app, owner.userId, { projects: "*", access: "publish" }));
  callers.owner = { cookie: owner.cookie };
});
afterAll(async () => {
  await app?.close();
});

async function idOf(slug: string) {
  const row = await app.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirst();
  return row?.id;
}

type Expect = Record<"anonymous" | "otherUser" | "keyForThird" | "readKey" | "ownerKey" | "owner", number>;
const all = (status: number): Expect => ({
  anonymous: status,
  otherUser: status,
  keyForThird: status,
  readKey: status,
  ownerKey: status,
  owner: status,
});

interface Case {
  name: string;
  method: string;
  path: string | ((caller: string) => string);
  body?: unknown;
  raw?: string;
  expect: Expect;
}

// Writes that succeed use a fresh target per caller so they don't collide.
const cases: Case[] = [
  { name: "list projects", method: "GET", path: "/api/v1/projects", expect: { ...all(200), anonymous: 401 } },
  {
    name: "create project",
    method: "POST",
    path: "/api/v1/projects",
    body: "fresh",
    expect: { anonymous: 401, otherUser: 201, keyForThird: 403, readKey: 403, ownerKey: 201, owner: 201 },
  },
  {
    name: "get project",
    method: "GET",
    path: "/api/v1/projects/widget",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "get private project",
    method: "GET",
    path: "/api/v1/projects/secret",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "update project",
    method: "PATCH",
    path: "/api/v1/projects/widget",
    body: { description: "updated" },
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 200, owner: 200 },
  },
  {
    name: "list releases",
    method: "GET",
    path: "/api/v1/projects/secret/releases",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "create release",
    method: "POST",
    path: "/api/v1/projects/widget/releases",
    body: "version",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 201, owner: 201 },
  },
  {
    name: "get release",
    method: "GET",
    path: "/api/v1/projects/secret/releases/1.0.0",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "update release",
    method: "PATCH",
    path: "/api/v1/projects/widget/releases/1.0.0",
    body: { title: "One" },
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 200, owner: 200 },
  },
  {
    name: "yank",
    method: "POST",
    path: "/api/v1/projects/widget/releases/1.0.0/yank",
    body: { reason: "test" },
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 200, owner: 200 },
  },
  {
    name: "unyank",
    method: "POST",
    path: "/api/v1/projects/widget/releases/1.0.0/unyank",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 200, owner: 200 },
  },
  {
    name: "list files",
    method: "GET",
    path: "/api/v1/projects/secret/releases/1.0.0/files",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "upload file",
    method: "PUT",
    path: (c) => `/api/v1/projects/widget/releases/2.0.0/files/${c}.bin`,
    raw: "bytes",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 201, owner: 201 },
  },
  {
    name: "delete file",
    method: "DELETE",
    path: (c) => `/api/v1/projects/widget/releases/2.0.0/files/${c}.bin`,
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 204, owner: 204 },
  },
  {
    name: "delete release",
    method: "DELETE",
    path: "/api/v1/projects/widget/releases/2.0.0",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 403, readKey: 403, ownerKey: 204, owner: 404 },
  },
  {
    name: "usage",
    method: "GET",
    path: "/api/v1/usage",
    expect: { anonymous: 401, otherUser: 200, keyForThird: 403, readKey: 403, ownerKey: 200, owner: 200 },
  },
  { name: "public project", method: "GET", path: "/api/p/owner/widget", expect: all(200) },
  { name: "public release", method: "GET", path: "/api/p/owner/widget/1.0.0", expect: all(200) },
  {
    name: "private project (public API)",
    method: "GET",
    path: "/api/p/owner/secret",
    expect: { anonymous: 404, otherUser: 404, keyForThird: 404, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "private release (public API)",
    method: "GET",
    path: "/api/p/owner/secret/latest",
    expect: { anonymous: 404, otherUser: 404, keyForThird: 404, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "public download",
    method: "GET",
    path: "/dl/owner/widget/releases/1.0.0/tool.tar.gz",
    expect: all(200),
  },
  {
    name: "private download",
    method: "GET",
    path: "/dl/owner/secret/releases/1.0.0/tool.tar.gz",
    expect: { anonymous: 404, otherUser: 404, keyForThird: 404, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "private SHA256SUMS",
    method: "HEAD",
    path: "/dl/owner/secret/releases/latest/SHA256SUMS",
    expect: { anonymous: 404, otherUser: 404, keyForThird: 404, readKey: 200, ownerKey: 200, owner: 200 },
  },
  {
    name: "delete project",
    method: "DELETE",
    path: "/api/v1/projects/third",
    expect: { anonymous: 401, otherUser: 404, keyForThird: 204, readKey: 403, ownerKey: 404, owner: 404 },
  },
];

describe(`authorization matrix (${databaseKind})`, () => {
  for (const test of cases) {
    it(`${test.method} ${typeof test.path === "string" ? test.path : test.path("…")} (${test.name})`, async () => {
      const results: Record<string, number> = {};
      for (const caller of [
        "anonymous",
        "otherUser",
        "readKey",
        "keyForThird",
        "ownerKey",
        "owner",
      ] as const) {
        const path = typeof test.path === "string" ? test.path : test.path(caller);
        let body: string | undefined;
        const headers: Record<string, string> = { ...callers[caller] };
        const cookie = headers.cookie;
        delete headers.cookie;
        if (test.body === "fresh")
          body = JSON.stringify({ slug: `p-${caller.toLowerCase()}`, name: "Fresh" });
        else if (test.body === "version")
          body = JSON.stringify({ version: `0.${caller.length}.${caller.charCodeAt(0)}` });
        else if (test.body !== undefined) body = JSON.stringify(test.body);
        else if (test.raw !== undefined) body = test.raw;
        if (body !== undefined && test.raw === undefined) headers["content-type"] = "application/json";
        const res = await app.request(path, { method: test.method, headers, body, cookie });
        results[caller] = res.status;
        if (res.status >= 400 && test.method !== "HEAD") {
          const json = await res.json();
          expect(json.error.code, `${caller}: ${JSON.stringify(json)}`).toMatch(/^[A-Z_]+$/);
        }
      }
      expect(results).toEqual(test.expect);
    });
  }

  it("pages treat another user's private project as not found", async () => {
    const page = await app.request("/releases/owner/secret/1.0.0", { cookie: callers.otherUser!.cookie });
    expect(page.status).toBe(404);
    const ownerView = await app.request("/api/p/owner/secret", { cookie: callers.owner!.cookie });
    expect(ownerView.status).toBe(200);
  });
});
