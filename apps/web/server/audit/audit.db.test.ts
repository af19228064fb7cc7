// The audit log end to end, on SQLite and PostgreSQL: every action of issue 17's list, taken
// through the API with a key and through the dashboard with a session, leaves exactly one entry
// with the right actor and the client's address (TRUST_PROXY, X-Forwarded-For); sign-ins are
// recorded once; the API reads the log back filtered and paged; a year-old entry is deleted.
import type { AuditPage } from "@packyard/contract";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  bearer,
  cookiesFrom,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  signUpVerified,
  TEST_PASSWORD,
  type TestApp,
} from "../../test/harness.ts";
import { AUDIT_RETENTION_JOB, deleteExpiredAuditEvents } from "./retention.ts";

let app: TestApp;
let owner: { cookie: string; userId: string };
let key: string;
let keyId: string;

const KEY_ADDRESS = "203.0.113.10";
const SESSION_ADDRESS = "198.51.100.20";

beforeAll(async () => {
  app = await createTestApp({ TRUST_PROXY: "true", PLAN_LIMITS: "off" });
  owner = await onboardedUser(app, "auditor");
  key = await createApiKey(app, owner.userId, { projects: "*", access: "publish" });
  keyId = (await db().selectFrom("apikey").select("id").executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;

/** A request with an API key, from KEY_ADDRESS (as the proxy in front says). */
function withKey(path: string, init: RequestInit = {}) {
  return app.request(path, {
    ...init,
    headers: { ...bearer(key), "x-forwarded-for": KEY_ADDRESS, ...(init.headers as Record<string, string>) },
  });
}
const keyJson = (method: string, path: string, body?: unknown) =>
  withKey(path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A dashboard form posted with the owner's session, from SESSION_ADDRESS. */
function form(path: string, values: [string, string][] | Record<string, string>) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": SESSION_ADDRESS },
    body: new URLSearchParams(values).toString(),
    cookie: owner.cookie,
  });
}

/** The entries `work` added, oldest first. */
async function entriesOf(work: () => Promise<unknown>) {
  const before = new Set((await db().selectFrom("audit_event").select("id").execute()).map((r) => r.id));
  await work();
  const rows = await db().selectFrom("audit_event").selectAll().orderBy("created_at").orderBy("id").execute();
  return rows.filter((r) => !before.has(r.id));
}

/** Runs `work` and expects exactly one entry: this action on this target, by the key or the session. */
async function expectOne(
  by: "key" | "user",
  action: string,
  target: string | null,
  work: () => Promise<Response>,
  status = [200, 201, 204, 302],
) {
  let response: Response | undefined;
  const added = await entriesOf(async () => {
    response = await work();
  });
  expect(status, `${action}: ${await response?.clone().text()}`).toContain(response?.status);
  expect(added.map((e) => `${e.action} ${e.target}`)).toEqual([`${action} ${target}`]);
  const [entry] = added;
  expect(entry).toMatchObject({
    owner_id: owner.userId,
    actor_kind: by,
    actor_user_id: owner.userId,
    actor_username: "auditor",
    actor_key_id: by === "key" ? keyId : null,
    address: by === "key" ? KEY_ADDRESS : SESSION_ADDRESS,
  });
  return entry!;
}

const upload = (slug: string, version: string, name: string, auth: "key" | "session" = "key") =>
  auth === "key"
    ? withKey(`/api/v1/projects/${slug}/releases/${version}/files/${name}`, {
        method: "PUT",
        body: `bytes of ${name}`,
      })
    : app.request(`/api/v1/projects/${slug}/releases/${version}/files/${name}`, {
        method: "PUT",
        body: `bytes of ${name}`,
        cookie: owner.cookie,
        headers: { "x-forwarded-for": SESSION_ADDRESS },
      });

describe(`the audit log records each action once (${databaseKind})`, () => {
  it("records the sign-in of email verification and of a password, with the address", async () => {
    const verified = await db()
      .selectFrom("audit_event")
      .selectAll()
      .where("action", "=", "session.signed_in")
      .execute();
    expect(verified).toHaveLength(1);
    expect(JSON.parse(verified[0]!.details)).toMatchObject({ method: "email-verification" });

    const entry = await expectOne("user", "session.signed_in", null, () =>
      app.request("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": SESSION_ADDRESS },
        body: JSON.stringify({ email: "auditor@example.com", password: TEST_PASSWORD }),
      }),
    );
    expect(JSON.parse(entry.details)).toMatchObject({ method: "password" });

    // A failed sign-in makes no session and no entry.
    const failed = await entriesOf(() =>
      postJson(app, "/api/auth/sign-in/email", { email: "auditor@example.com", password: "wrong password!" }),
    );
    expect(failed).toEqual([]);
  });

  it("records a two-factor sign-in once, when the code is accepted; turning it on is no sign-in", async () => {
    const email = "second-factor@example.com";
    const cookie = await signUpVerified(app, { email });
    let totpURI = "";
    const enable = await entriesOf(async () => {
      const started = await postJson(app, "/api/auth/two-factor/enable", { password: TEST_PASSWORD }, cookie);
      ({ totpURI } = (await started.json()) as { totpURI: string });
      const code = OTPAuth.URI.parse(totpURI).generate();
      expect((await postJson(app, "/api/auth/two-factor/verify-totp", { code }, cookie)).status).toBe(200);
    });
    expect(enable).toEqual([]);
    let challenge = "";
    const password = await entriesOf(async () => {
      const res = await postJson(app, "/api/auth/sign-in/email", { email, password: TEST_PASSWORD });
      expect(await res.json()).toMatchObject({ twoFactorRedirect: true });
      challenge = cookiesFrom(res);
    });
    expect(password).toEqual([]);
    const code = await entriesOf(async () => {
      const res = await postJson(
        app,
        "/api/auth/two-factor/verify-totp",
        { code: OTPAuth.URI.parse(totpURI).generate() },
        challenge,
      );
      expect(res.status).toBe(200);
    });
    expect(code.map((e) => [e.action, e.actor_kind, JSON.parse(e.details).method])).toEqual([
      ["session.signed_in", "user", "two-factor"],
    ]);
  });

  it("records every project, release, file, key and API-key action taken with an API key", async () => {
    const created = await expectOne("key", "project.created", "api-tool", () =>
      keyJson("POST", "/api/v1/projects", { slug: "api-tool", name: "API tool", keyAlgorithm: "ed25519" }),
    );
    expect(created.project_slug).toBe("api-tool");
    expect(created.actor_key_name).toBe("test publish");
    await expectOne("key", "project.updated", "api-tool", () =>
      keyJson("PATCH", "/api/v1/projects/api-tool", { description: "Now described" }),
    );
    const visibility = await expectOne("key", "project.visibility_changed", "api-tool", () =>
      keyJson("PATCH", "/api/v1/projects/api-tool", { visibility: "private" }),
    );
    expect(JSON.parse(visibility.details)).toMatchObject({ from: "public", to: "private" });
    // An edit that changes nothing is no action.
    expect(
      await entriesOf(() => keyJson("PATCH", "/api/v1/projects/api-tool", { visibility: "private" })),
    ).toEqual([]);
    await expectOne("key", "project.updated", "api-tool", () =>
      keyJson("PATCH", "/api/v1/projects/api-tool/repository-settings", { aptOrigin: "Example" }),
    );
    await expectOne("key", "release.created", "1.0.0", () =>
      keyJson("POST", "/api/v1/projects/api-tool/releases", { version: "1.0.0" }),
    );
    await expectOne("key", "release.updated", "1.0.0", () =>
      keyJson("PATCH", "/api/v1/projects/api-tool/releases/1.0.0", { title: "First" }),
    );
    const uploaded = await expectOne("key", "file.uploaded", "tool-1.0.0.tar.gz", () =>
      upload("api-tool", "1.0.0", "tool-1.0.0.tar.gz"),
    );
    expect(JSON.parse(uploaded.details)).toMatchObject({ version: "1.0.0", size: 26 });
    // An upload to a version without a release creates it: both are recorded.
    const implicit = await entriesOf(() => upload("api-tool", "2.0.0", "tool-2.0.0.tar.gz"));
    expect(implicit.map((e) => `${e.action} ${e.target} ${e.actor_kind}`)).toEqual([
      "release.created 2.0.0 key",
      "file.uploaded tool-2.0.0.tar.gz key",
    ]);
    // The browser's multipart upload: one entry per file.
    const body = new FormData();
    body.append("file", new Blob(["a"]), "a.txt");
    body.append("file", new Blob(["b"]), "b.txt");
    const multipart = await entriesOf(() =>
      withKey("/api/v1/projects/api-tool/releases/1.0.0/files", { method: "POST", body }),
    );
    expect(multipart.map((e) => `${e.action} ${e.target}`)).toEqual([
      "file.uploaded a.txt",
      "file.uploaded b.txt",
    ]);
    await expectOne("key", "file.deleted", "a.txt", () =>
      withKey("/api/v1/projects/api-tool/releases/1.0.0/files/a.txt", { method: "DELETE" }),
    );
    const yanked = await expectOne("key", "release.yanked", "1.0.0", () =>
      keyJson("POST", "/api/v1/projects/api-tool/releases/1.0.0/yank", { reason: "Broken build" }),
    );
    expect(JSON.parse(yanked.details)).toEqual({ reason: "Broken build" });
    await expectOne("key", "release.unyanked", "1.0.0", () =>
      keyJson("POST", "/api/v1/projects/api-tool/releases/1.0.0/unyank"),
    );
    await expectOne("key", "release.deleted", "2.0.0", () =>
      withKey("/api/v1/projects/api-tool/releases/2.0.0", { method: "DELETE" }),
    );
    const rotation = await entriesOf(() =>
      keyJson("POST", "/api/v1/projects/api-tool/keys/rotate", { algorithm: "ed25519", overlapDays: 1 }),
    );
    const newest = await db()
      .selectFrom("signing_key")
      .select("fingerprint")
      .where("project_id", "=", created.project_id)
      .orderBy("generation", "desc")
      .executeTakeFirstOrThrow();
    expect(rotation.map((r) => [r.action, r.target, r.actor_kind, r.actor_key_id, r.address])).toEqual([
      ["signing_key.rotated", newest.fingerprint, "key", keyId, KEY_ADDRESS],
    ]);

    const createdKey = await entriesOf(() =>
      keyJson("POST", "/api/v1/keys", { name: "deploy", access: "read", projects: ["api-tool"] }),
    );
    expect(createdKey.map((e) => `${e.action} ${e.target} ${e.actor_kind}`)).toEqual([
      "api_key.created deploy key",
    ]);
    expect(createdKey[0]?.project_id).toBeNull();
    const newKeyId = (JSON.parse(createdKey[0]!.details) as { keyId: string }).keyId;
    await expectOne("key", "api_key.deleted", "deploy", () =>
      withKey(`/api/v1/keys/${newKeyId}`, { method: "DELETE" }),
    );
    const deleted = await expectOne("key", "project.deleted", "api-tool", () =>
      withKey("/api/v1/projects/api-tool", { method: "DELETE" }),
    );
    // The project's entries outlive it.
    expect(deleted.project_id).toBe(created.project_id);
  });

  it("records every project, release, file and API-key action taken in the dashboard", async () => {
    await expectOne("user", "project.created", "web-tool", () =>
      form("/projects", { intent: "create", visibility: "public", slug: "web-tool", name: "Web tool" }),
    );
    await expectOne("user", "project.updated", "web-tool", () =>
      form("/projects/web-tool", { intent: "update", name: "Web tool", license: "MIT" }),
    );
    await expectOne("user", "project.visibility_changed", "web-tool", () =>
      form("/projects/web-tool", {
        intent: "update",
        name: "Web tool",
        license: "MIT",
        visibility: "private",
      }),
    );
    await expectOne("user", "project.updated", "web-tool", () =>
      form("/projects/web-tool/settings", {
        keyExpiryDays: "",
        aptValidUntilDays: "7",
        aptValidUntil: "on",
        aptOrigin: "",
        aptLabel: "",
        aptCodename: "",
      }),
    );
    await expectOne("user", "release.created", "3.0.0", () =>
      form("/projects/web-tool/releases", { intent: "create", version: "3.0.0" }),
    );
    await expectOne("user", "release.updated", "3.0.0", () =>
      form("/projects/web-tool/releases/3.0.0", { intent: "update", title: "Third", notes: "" }),
    );
    await expectOne("user", "file.uploaded", "web-3.0.0.zip", () =>
      upload("web-tool", "3.0.0", "web-3.0.0.zip", "session"),
    );
    await expectOne("user", "file.deleted", "web-3.0.0.zip", () =>
      form("/projects/web-tool/releases/3.0.0", { intent: "delete-file", filename: "web-3.0.0.zip" }),
    );
    await expectOne("user", "release.yanked", "3.0.0", () =>
      form("/projects/web-tool/releases/3.0.0", { intent: "yank", reason: "Oops" }),
    );
    await expectOne("user", "release.unyanked", "3.0.0", () =>
      form("/projects/web-tool/releases/3.0.0", { intent: "unyank" }),
    );
    const keyCreated = await expectOne("user", "api_key.created", "ci", () =>
      form("/api-keys", [
        ["intent", "create"],
        ["name", "ci"],
        ["expiry", "never"],
        ["scope", "all"],
        ["access", "publish"],
      ]),
    );
    const { keyId: ciKey } = JSON.parse(keyCreated.details) as { keyId: string };
    await expectOne("user", "api_key.deleted", "ci", () =>
      form("/api-keys", { intent: "delete", keyId: ciKey }),
    );
    // The CLI's token page makes API keys too.
    await expectOne("user", "api_key.created", "laptop", () =>
      form("/auth/generate-token", { intent: "create", name: "laptop", expiry: "never" }),
    );
    await expectOne("user", "project.deleted", "web-tool", () =>
      form("/projects/web-tool", { intent: "delete", confirm: "web-tool" }),
    );
  });
});

describe(`reading the audit log (${databaseKind})`, () => {
  const read = async (path: string, auth: Record<string, string> = bearer(key)) => {
    const res = await app.request(path, { headers: auth });
    return { status: res.status, body: (await res.json()) as AuditPage & { error?: { code: string } } };
  };

  it("answers the account's entries newest first, filtered by action, actor and project", async () => {
    const all = await read("/api/v1/audit?limit=200");
    expect(all.status).toBe(200);
    const times = all.body.entries.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.entries.at(-1)).toMatchObject({ action: "session.signed_in", actor: { kind: "user" } });

    const yanks = await read("/api/v1/audit?action=release.yanked");
    expect(yanks.body.entries.map((e) => [e.target, e.actor.kind])).toEqual([
      ["3.0.0", "user"],
      ["1.0.0", "key"],
    ]);
    expect(yanks.body.entries[1]).toMatchObject({
      project: { slug: "api-tool" },
      actor: { username: "auditor", key: { id: keyId, name: "test publish" } },
      details: { reason: "Broken build" },
      address: KEY_ADDRESS,
    });
    const releases = await read("/api/v1/audit?action=release&actor=user");
    expect(new Set(releases.body.entries.map((e) => e.action))).toEqual(
      new Set(["release.created", "release.updated", "release.yanked", "release.unyanked"]),
    );
    const byKey = await read(`/api/v1/audit?actor=key:${keyId}&project=api-tool&action=project`);
    expect(byKey.body.entries.map((e) => e.action)).toEqual([
      "project.deleted",
      "project.updated",
      "project.visibility_changed",
      "project.updated",
      "project.created",
    ]);
    const none = await read(
      `/api/v1/audit?from=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`,
    );
    expect(none.body.entries).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await read(`/api/v1/audit?from=${today}&to=${today}&limit=200`)).body.entries).toHaveLength(
      all.body.entries.length,
    );
  });

  it("pages with a cursor without repeating or skipping an entry", async () => {
    const all = (await read("/api/v1/audit?limit=200")).body.entries.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page = await read(`/api/v1/audit?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.entries.length).toBeLessThanOrEqual(7);
      seen.push(...page.body.entries.map((e) => e.id));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(all);
  });

  it("answers a project's entries to a key scoped to it, and refuses what it may not read", async () => {
    await keyJson("POST", "/api/v1/projects", { slug: "scoped", name: "Scoped", keyAlgorithm: "ed25519" });
    await keyJson("POST", "/api/v1/projects/scoped/releases", { version: "0.1.0" });
    const scopedId = (
      await db().selectFrom("project").select("id").where("slug", "=", "scoped").executeTakeFirstOrThrow()
    ).id;
    const reader = bearer(await createApiKey(app, owner.userId, { projects: [scopedId], access: "read" }));
    const project = await read("/api/v1/projects/scoped/audit", reader);
    expect(project.status).toBe(200);
    expect(project.body.entries.map((e) => e.action)).toEqual(["release.created", "project.created"]);
    expect((await read("/api/v1/audit", reader)).body.error?.code).toBe("KEY_SCOPE");
    expect((await read("/api/v1/projects/api-tool/audit", reader)).status).toBe(404);
    expect((await read("/api/v1/audit", {})).status).toBe(401);
    const bad = await read("/api/v1/projects/scoped/audit?action=release.exploded&from=yesterday", reader);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe("VALIDATION_FAILED");
    // The session reads it too.
    expect(
      (await read("/api/v1/projects/scoped/audit?action=project.created", { cookie: owner.cookie })).body
        .entries,
    ).toHaveLength(1);
  });
});

describe(`keeping the audit log one year (${databaseKind})`, () => {
  it("deletes entries older than 365 days and keeps the rest", async () => {
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom("audit_event")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const total = await count();
    const old = new Date(Date.now() - 366 * 86_400_000).toISOString();
    await db()
      .insertInto("audit_event")
      .values(
        ["old-1", "old-2", "old-3"].map((id) => ({
          id,
          owner_id: owner.userId,
          actor_kind: "system" as const,
          action: "signing_key.rotated",
          details: "{}",
          created_at: old,
        })),
      )
      .execute();
    expect(await deleteExpiredAuditEvents(db(), new Date(), 2)).toBe(3);
    expect(await count()).toBe(total);
    // The same through the job queue (hourly; sent now).
    await db()
      .insertInto("audit_event")
      .values({
        id: "old-4",
        owner_id: owner.userId,
        actor_kind: "system",
        action: "retention.run",
        details: "{}",
        created_at: old,
      })
      .execute();
    await app.services.jobs.send(AUDIT_RETENTION_JOB, {});
    await vi.waitFor(async () => expect(await count()).toBe(total), { timeout: 15_000, interval: 100 });
    // A year from now, everything recorded today has gone.
    expect(await deleteExpiredAuditEvents(db(), new Date(Date.now() + 366 * 86_400_000))).toBe(total);
  });
});
