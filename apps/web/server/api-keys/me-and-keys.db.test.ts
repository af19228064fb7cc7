// /api/v1/me and /api/v1/keys: who a token is, and managing API keys from the API (the CLI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../test/harness.ts";

let app: TestApp;
let owner: Awaited<ReturnType<typeof onboardedUser>>;
let other: Awaited<ReturnType<typeof onboardedUser>>;
let projectId: string;

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  app = await createTestApp();
  owner = await onboardedUser(app, "keymaster");
  other = await onboardedUser(app, "stranger");
  const res = await app.request("/api/v1/projects", {
    ...json({ slug: "vault", name: "Vault" }),
    cookie: owner.cookie,
  });
  projectId = (await res.json()).project.id;
});
afterAll(async () => {
  await app?.close();
});

describe(`/api/v1/me (${databaseKind})`, () => {
  it("says who a session and a key belong to, with the key's scope", async () => {
    const session = await (await app.request("/api/v1/me", { cookie: owner.cookie })).json();
    expect(session).toEqual({
      user: expect.objectContaining({ username: "keymaster", email: "keymaster@example.com" }),
      auth: { kind: "session" },
    });
    const key = await createApiKey(app, owner.userId, { projects: [projectId], access: "read" });
    const viaKey = await (await app.request("/api/v1/me", { headers: bearer(key) })).json();
    expect(viaKey.auth).toEqual({ kind: "key", scope: { projects: ["vault"], access: "read" } });
    expect((await app.request("/api/v1/me")).status).toBe(401);
  });
});

describe(`/api/v1/keys (${databaseKind})`, () => {
  it("creates a key shown once, lists it, and deletes it", async () => {
    const res = await app.request("/api/v1/keys", {
      ...json({ name: "ci", access: "publish", projects: ["vault"], expiresInDays: 30 }),
      cookie: owner.cookie,
    });
    expect(res.status).toBe(201);
    const { key } = await res.json();
    expect(key.key).toMatch(/^pky_/);
    expect(key).toMatchObject({
      name: "ci",
      scope: { projects: ["vault"], access: "publish" },
      expired: false,
    });
    expect(Date.parse(key.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    // It works, within its scope.
    expect((await app.request("/api/v1/projects/vault", { headers: bearer(key.key) })).status).toBe(200);

    const list = await (await app.request("/api/v1/keys", { cookie: owner.cookie })).json();
    const listed = list.keys.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ name: "ci", start: key.key.slice(0, listed.start.length) });
    expect(listed.key).toBeUndefined();

    expect(
      (await app.request(`/api/v1/keys/${key.id}`, { method: "DELETE", cookie: other.cookie })).status,
    ).toBe(404);
    expect(
      (await app.request(`/api/v1/keys/${key.id}`, { method: "DELETE", cookie: owner.cookie })).status,
    ).toBe(204);
    expect((await app.request("/api/v1/projects/vault", { headers: bearer(key.key) })).status).toBe(401);
  });

  it("needs a session or an all-projects publish key", async () => {
    const all = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
    const created = await app.request("/api/v1/keys", {
      ...json({ name: "from a key", access: "read" }),
      headers: { ...bearer(all), "content-type": "application/json" },
    });
    expect(created.status).toBe(201);
    for (const scope of [
      { projects: "*" as const, access: "read" as const },
      { projects: [projectId], access: "publish" as const },
    ]) {
      const key = await createApiKey(app, owner.userId, scope);
      const res = await app.request("/api/v1/keys", { headers: bearer(key) });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe("KEY_SCOPE");
    }
  });

  it("refuses projects that are not the caller's, and bad input", async () => {
    const foreign = await app.request("/api/v1/keys", {
      ...json({ name: "x", access: "read", projects: ["vault"] }),
      cookie: other.cookie,
    });
    expect(foreign.status).toBe(404);
    const bad = await app.request("/api/v1/keys", {
      ...json({ name: "", access: "admin" }),
      cookie: owner.cookie,
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("VALIDATION_FAILED");
  });
});
