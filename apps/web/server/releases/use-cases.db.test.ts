// The release and file use cases on SQLite and PostgreSQL, called directly and through the API:
// a refused caller changes nothing and leaves no entry; a change leaves exactly one entry per
// thing done, by the caller, with its events heard after it.
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  publishingProject,
  storedState,
  type TestApp,
} from "../../test/harness.ts";
import { type DomainEvent, onDomainEvent } from "../platform/core/changes.ts";
import type { Caller } from "../platform/core/use-case.ts";
import {
  createRelease,
  deleteReleaseFile,
  unyankRelease,
  uploadReleaseFile,
  uploadReleaseFiles,
  yankRelease,
} from "./use-cases.ts";

let app: TestApp;
let auth: Record<string, string>;
let ownerId: string;
let strangerId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ auth, userId: ownerId } = await publishingProject(app, "releaser", "tool"));
  ({ userId: strangerId } = await onboardedUser(app, "stranger"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const deps = () => {
  const { database, blobs, keys, config, logger } = app.services;
  return { db: database.db, blobs, keys, config, logger };
};
const owner = (): Caller & { actor: { kind: "session"; userId: string } } => ({
  actor: { kind: "session", userId: ownerId },
  address: "203.0.113.7",
});
const stranger = () => ({ actor: { kind: "session" as const, userId: strangerId }, address: "203.0.113.8" });

const entries = (action?: string) => {
  let query = db().selectFrom("audit_event").selectAll().where("owner_id", "=", ownerId);
  if (action) query = query.where("action", "=", action as never);
  return query.orderBy("id").execute();
};

/**
 * The domain events of the database while `fn` runs, but for the publisher's answer to a
 * packages-changed (repository.published): whether it comes within `fn` depends on timing.
 */
async function heard(fn: () => Promise<unknown>): Promise<DomainEvent[]> {
  const events: DomainEvent[] = [];
  const stop = onDomainEvent(db(), (event) => {
    if (event.type !== "repository.published") events.push(event);
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return events;
}

const bytes = (text: string) => Readable.from([Buffer.from(text)]);

describe(`release use cases (${databaseKind})`, () => {
  it("refuses a caller who may not publish: nothing changes, no entry, no event", async () => {
    await createRelease(deps(), owner(), { project: "releaser/tool", release: { version: "1.0.0" } });
    const before = await entries();
    const state = await storedState(app, ["release", "release_file", "blob"]);
    const events = await heard(async () => {
      await expect(
        yankRelease(deps(), stranger(), { project: "releaser/tool", version: "1.0.0", reason: "mine now" }),
      ).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(
        uploadReleaseFile(deps(), stranger(), {
          project: "releaser/tool",
          version: "1.0.0",
          filename: "evil.txt",
          body: bytes("evil"),
          createRelease: true,
        }),
      ).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
    expect(events).toEqual([]);
    expect(await entries()).toEqual(before);
    expect(await storedState(app, ["release", "release_file", "blob"])).toEqual(state);
    const release = await db()
      .selectFrom("release")
      .select("yanked")
      .where("version", "=", "1.0.0")
      .executeTakeFirstOrThrow();
    expect(Number(release.yanked)).toBe(0);
  });

  it("yanks with exactly one entry by the caller, announced after it", async () => {
    await createRelease(deps(), owner(), { project: "releaser/tool", release: { version: "2.0.0" } });
    const events = await heard(() =>
      yankRelease(deps(), owner(), { project: "releaser/tool", version: "2.0.0", reason: "broken" }),
    );
    const yanked = (await entries("release.yanked")).filter((e) => e.target === "2.0.0");
    expect(yanked).toHaveLength(1);
    expect(yanked[0]).toMatchObject({ actor_kind: "user", actor_user_id: ownerId, address: "203.0.113.7" });
    expect(events.map((e) => e.type)).toEqual(["changed", "packages-changed", "release.yanked"]);
  });

  it("records and announces an unyank only for a release that was yanked", async () => {
    await createRelease(deps(), owner(), { project: "releaser/tool", release: { version: "3.0.0" } });
    const notYanked = await heard(() =>
      unyankRelease(deps(), owner(), { project: "releaser/tool", version: "3.0.0" }),
    );
    expect(notYanked.map((e) => e.type)).toEqual(["packages-changed"]);
    await yankRelease(deps(), owner(), { project: "releaser/tool", version: "3.0.0", reason: "oops" });
    const wasYanked = await heard(() =>
      unyankRelease(deps(), owner(), { project: "releaser/tool", version: "3.0.0" }),
    );
    expect(wasYanked.map((e) => e.type)).toEqual(["changed", "packages-changed", "release.unyanked"]);
    expect((await entries("release.unyanked")).filter((e) => e.target === "3.0.0")).toHaveLength(1);
  });

  it("an unyank through the API of a release that is not yanked sends no release.unyanked webhook event", async () => {
    const res = await app.request("/api/v1/projects/tool/releases", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ version: "3.1.0" }),
    });
    expect(res.status).toBe(201);
    const events = await heard(async () => {
      const unyank = await app.request("/api/v1/projects/tool/releases/3.1.0/unyank", {
        method: "POST",
        headers: auth,
      });
      expect(unyank.status).toBe(200);
    });
    expect(events.filter((e) => e.type === "release.unyanked")).toEqual([]);
  });

  it("an upload into a new release records the release, then the file, by the key that sent it", async () => {
    const key = await createApiKey(app, ownerId, { projects: "*", access: "publish" });
    const events = await heard(async () => {
      const res = await app.request("/api/v1/projects/tool/releases/4.0.0/files/tool.txt", {
        method: "PUT",
        headers: bearer(key),
        body: "four",
      });
      expect(res.status).toBe(201);
    });
    const release = await db()
      .selectFrom("release")
      .select("id")
      .where("version", "=", "4.0.0")
      .executeTakeFirstOrThrow();
    const done = (await entries()).filter((e) => e.target === "4.0.0" || e.target === "tool.txt");
    expect(done.map((e) => e.action)).toEqual(["release.created", "file.uploaded"]);
    for (const entry of done) expect(entry).toMatchObject({ actor_kind: "key", actor_user_id: ownerId });
    expect(events.map((e) => e.type)).toEqual(["changed", "changed", "release.created", "file.uploaded"]);
    expect(events[2]).toMatchObject({ releaseId: release.id });
  });

  it("two uploads racing into a new version make one release, recorded once", async () => {
    const put = (name: string) =>
      app.request(`/api/v1/projects/tool/releases/5.0.0/files/${name}`, {
        method: "PUT",
        headers: auth,
        body: name,
      });
    const answers = await Promise.all([put("a.txt"), put("b.txt"), put("c.txt")]);
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201]);
    const releases = await db().selectFrom("release").select("id").where("version", "=", "5.0.0").execute();
    expect(releases).toHaveLength(1);
    expect((await entries("release.created")).filter((e) => e.target === "5.0.0")).toHaveLength(1);
    const files = await db()
      .selectFrom("release_file")
      .select("filename")
      .where("release_id", "=", releases[0]!.id)
      .execute();
    expect(files.map((f) => f.filename).sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("a multipart upload that fails half-way deletes what it stored, and the log says so", async () => {
    await createRelease(deps(), owner(), { project: "releaser/tool", release: { version: "6.0.0" } });
    const events = await heard(async () => {
      await expect(
        uploadReleaseFiles(deps(), owner(), {
          project: "releaser/tool",
          version: "6.0.0",
          receive: async (store) => {
            await store({ filename: "first.txt", body: bytes("first") });
            throw new Error("the connection dropped");
          },
        }),
      ).rejects.toThrow("the connection dropped");
    });
    const release = await db()
      .selectFrom("release")
      .select("id")
      .where("version", "=", "6.0.0")
      .executeTakeFirstOrThrow();
    expect(
      await db().selectFrom("release_file").select("id").where("release_id", "=", release.id).execute(),
    ).toEqual([]);
    const first = (await entries()).filter((e) => e.target === "first.txt");
    expect(first.map((e) => e.action)).toEqual(["file.uploaded", "file.deleted"]);
    expect(events.filter((e) => e.type !== "changed").map((e) => e.type)).toEqual([
      "file.uploaded",
      "file.deleted",
    ]);
  });

  it("deletes a file with one entry; a file that is not there is NOT_FOUND and records nothing", async () => {
    await uploadReleaseFile(deps(), owner(), {
      project: "releaser/tool",
      version: "7.0.0",
      filename: "gone.txt",
      body: bytes("gone"),
      createRelease: true,
    });
    await deleteReleaseFile(deps(), owner(), {
      project: "releaser/tool",
      version: "7.0.0",
      filename: "gone.txt",
    });
    await expect(
      deleteReleaseFile(deps(), owner(), {
        project: "releaser/tool",
        version: "7.0.0",
        filename: "gone.txt",
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    const deleted = (await entries("file.deleted")).filter((e) => e.target === "gone.txt");
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ actor_kind: "user", actor_user_id: ownerId });
  });
});
