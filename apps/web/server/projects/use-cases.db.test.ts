// The project use cases called directly, on SQLite and PostgreSQL: what the API's and the
// dashboard's tests do not see — a refused caller leaves nothing behind, a change refused inside
// its transaction rolls back with no entry, each change writes exactly one entry (a transfer:
// one per owner) naming its caller, and each event is heard once, after the commit.
import { createProjectInput, updateRepositorySettingsInput } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { type DomainEvent, onDomainEvent } from "../platform/core/changes.ts";
import { DomainError } from "../platform/core/errors.ts";
import { type Caller, SYSTEM } from "../platform/core/use-case.ts";
import {
  createProject,
  deleteProject,
  rotateExpiringSigningKey,
  rotateSigningKey,
  transferProject,
  updateProject,
  updateProjectRepositorySettings,
} from "./use-cases.ts";

let app: TestApp;
let ada: { userId: string; cookie: string };
let bob: { userId: string; cookie: string };
const db = () => app.services.database.db;
const limits = { planLimits: true };
const ADDRESS = "198.51.100.23";
const as = (who: { userId: string }): Caller => ({
  actor: { kind: "session", userId: who.userId },
  address: ADDRESS,
});
const projectDeps = () => ({ db: db(), limits });
/** The inputs as the API parses them (the contract's schemas). */
const newProject = (input: { slug: string; name: string; owner?: string }) =>
  createProjectInput.parse({ visibility: "public", keyAlgorithm: "ed25519", ...input });
const settingsChange = (input: Record<string, unknown>) => updateRepositorySettingsInput.parse(input);
const keyDeps = () => ({ db: db(), keys: app.services.keys, repos: app.services.repos });

beforeAll(async () => {
  app = await createTestApp();
  ada = await onboardedUser(app, "ucada");
  bob = await onboardedUser(app, "ucbob");
});
afterAll(async () => {
  await app?.close();
});

const codeOf = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return "OK";
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

function entries(where: { action?: string; target?: string; projectId?: string } = {}) {
  let query = db().selectFrom("audit_event").selectAll();
  if (where.action) query = query.where("action", "=", where.action);
  if (where.target) query = query.where("target", "=", where.target);
  if (where.projectId) query = query.where("project_id", "=", where.projectId);
  return query.orderBy("id").execute();
}

/** The domain events emitted while `work` runs. */
async function heard<T>(work: () => Promise<T>): Promise<{ result: T; events: DomainEvent[] }> {
  const events: DomainEvent[] = [];
  const stop = onDomainEvent(db(), (event) => {
    events.push(event);
  });
  try {
    return { result: await work(), events };
  } finally {
    stop();
  }
}

const projectRow = (id: string) =>
  db().selectFrom("project").selectAll().where("id", "=", id).executeTakeFirst();

describe(`project use cases (${databaseKind})`, () => {
  it("creates a project with one project.created entry by its caller, announced once after the commit", async () => {
    const { result: created, events } = await heard(() =>
      createProject(
        projectDeps(),
        as(ada),
        newProject({
          slug: "uc-made",
          name: "Made",
        }),
      ),
    );
    const made = await entries({ action: "project.created", target: "uc-made" });
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      owner_id: ada.userId,
      project_id: created.id,
      project_slug: "uc-made",
      actor_kind: "user",
      actor_user_id: ada.userId,
      address: ADDRESS,
    });
    expect(JSON.parse(made[0]!.details)).toEqual({ visibility: "public" });
    expect(events.map((e) => e.type)).toEqual(["changed", "created"]);
    // The "created" event made the project's first key, of the algorithm asked for.
    const keys = await app.services.keys.all(created.id);
    expect(keys.map((k) => k.algorithm)).toEqual(["ed25519"]);
  });

  it("a caller who may not manage the project changes nothing, writes no entry and announces nothing", async () => {
    const project = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-guarded",
        name: "Guarded",
      }),
    );
    const before = await projectRow(project.id);
    const entriesBefore = (await entries({ projectId: project.id })).length;
    const ref = "ucada/uc-guarded";
    const { result: codes, events } = await heard(async () => [
      await codeOf(() => updateProject(projectDeps(), as(bob), { project: ref, changes: { name: "Taken" } })),
      await codeOf(() => transferProject(projectDeps(), as(bob), { project: ref, owner: "ucbob" })),
      await codeOf(() =>
        updateProjectRepositorySettings({ db: db() }, as(bob), {
          project: ref,
          settings: settingsChange({ aptOrigin: "Bob" }),
        }),
      ),
      await codeOf(() => rotateSigningKey(keyDeps(), as(bob), { project: ref, overlapDays: 1 })),
      await codeOf(() => deleteProject({ db: db() }, as(bob), { project: ref })),
    ]);
    expect(codes).toEqual(["NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND"]);
    expect(await projectRow(project.id)).toEqual(before);
    expect(await entries({ projectId: project.id })).toHaveLength(entriesBefore);
    const bobs = await db()
      .selectFrom("audit_event")
      .select("action")
      .where("owner_id", "=", ada.userId)
      .where("actor_user_id", "=", bob.userId)
      .execute();
    expect(bobs).toEqual([]);
    expect(await app.services.keys.all(project.id)).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it("records an edit as one entry (visibility_changed with whatever else changed), and an edit that changes nothing as none", async () => {
    const project = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-edited",
        name: "Edited",
      }),
    );
    const ref = "ucada/uc-edited";
    await updateProject(projectDeps(), as(ada), {
      project: ref,
      changes: { visibility: "private", name: "Renamed" },
    });
    await updateProject(projectDeps(), as(ada), {
      project: ref,
      changes: { visibility: "private", name: "Renamed" },
    });
    await updateProject(projectDeps(), as(ada), { project: ref, changes: { description: "Now described" } });
    const edits = (await entries({ projectId: project.id })).filter((e) => e.action !== "project.created");
    expect(edits.map((e) => [e.action, JSON.parse(e.details)])).toEqual([
      ["project.visibility_changed", { from: "public", to: "private", changed: ["name", "visibility"] }],
      ["project.updated", { changed: ["description"] }],
    ]);
    expect(edits.every((e) => e.actor_user_id === ada.userId && e.address === ADDRESS)).toBe(true);
  });

  it("a transfer refused inside its transaction (the new owner has the slug) leaves the project and the logs as they were", async () => {
    expect((await postJson(app, "/api/v1/orgs", { slug: "uc-org", name: "UC Org" }, ada.cookie)).status).toBe(
      201,
    );
    await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-twin",
        name: "Twin",
        owner: "uc-org",
      }),
    );
    const mine = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-twin",
        name: "Twin",
      }),
    );
    const before = await projectRow(mine.id);
    const { result: code, events } = await heard(() =>
      codeOf(() => transferProject(projectDeps(), as(ada), { project: "ucada/uc-twin", owner: "uc-org" })),
    );
    expect(code).toBe("PROJECT_EXISTS");
    expect(await projectRow(mine.id)).toEqual(before);
    expect(await entries({ action: "project.transferred" })).toEqual([]);
    expect(events).toEqual([]);
    // The same database takes the next change: nothing of the failed one is left open.
    const other = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-moving",
        name: "Moving",
      }),
    );
    const moved = await transferProject(projectDeps(), as(ada), {
      project: "ucada/uc-moving",
      owner: "uc-org",
    });
    expect(moved.owner).toBe("uc-org");
    const org = await db()
      .selectFrom("user")
      .select("id")
      .where("username", "=", "uc-org")
      .executeTakeFirstOrThrow();
    const transferred = await entries({ action: "project.transferred", target: "uc-moving" });
    // The new owner's log (and the project's), and the old owner's, which keeps where it went.
    expect(transferred.map((e) => [e.owner_id, e.project_id, JSON.parse(e.details)])).toEqual([
      [org.id, other.id, { from: "ucada", to: "uc-org" }],
      [ada.userId, null, { from: "ucada", to: "uc-org" }],
    ]);
  });

  it("repository settings: one entry naming what changed; a Release change announces the packages changed once", async () => {
    const project = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-settings",
        name: "Settings",
      }),
    );
    const ref = "ucada/uc-settings";
    const expiry = await heard(() =>
      updateProjectRepositorySettings({ db: db() }, as(ada), {
        project: ref,
        settings: settingsChange({ keyExpiryDays: 400 }),
      }),
    );
    expect(expiry.result.keyExpiryDays).toBe(400);
    expect(expiry.events.map((e) => e.type)).toEqual(["changed"]);
    const origin = await heard(() =>
      updateProjectRepositorySettings({ db: db() }, as(ada), {
        project: ref,
        settings: settingsChange({ aptOrigin: "Ada's" }),
      }),
    );
    // Then the publish it queued announces itself; that one is the publisher's.
    expect(origin.events.map((e) => e.type).filter((type) => type !== "repository.published")).toEqual([
      "changed",
      "packages-changed",
    ]);
    const unchanged = await heard(() =>
      updateProjectRepositorySettings({ db: db() }, as(ada), {
        project: ref,
        settings: settingsChange({ aptOrigin: "Ada's" }),
      }),
    );
    expect(unchanged.events).toEqual([]);
    const updates = await entries({ action: "project.updated", projectId: project.id });
    expect(updates.map((e) => JSON.parse(e.details))).toEqual([
      { changed: ["keyExpiryDays"], repositorySettings: true },
      { changed: ["aptOrigin"], repositorySettings: true },
    ]);
  });

  it("records the key lifecycle job's rotation as the system's and announces key.rotated once, after the commit", async () => {
    const project = await createProject(
      projectDeps(),
      as(ada),
      newProject({
        slug: "uc-rotated",
        name: "Rotated",
      }),
    );
    const [first] = await app.services.keys.all(project.id);
    const row = (await projectRow(project.id))!;
    const resigned: string[] = [];
    const { result: successor, events } = await heard(() =>
      rotateExpiringSigningKey({ ...keyDeps(), resignRpms: async (id) => void resigned.push(id) }, SYSTEM, {
        project: { id: row.id, name: row.name, owner_id: row.owner_id },
        retireAt: new Date(Date.now() + 86_400_000),
      }),
    );
    const rotated = await entries({ action: "signing_key.rotated", projectId: project.id });
    expect(rotated).toHaveLength(1);
    expect(rotated[0]).toMatchObject({
      actor_kind: "system",
      actor_user_id: null,
      address: null,
      target: successor.fingerprint,
    });
    expect(JSON.parse(rotated[0]!.details)).toEqual({ algorithm: successor.algorithm, reason: "expiry" });
    expect(events.filter((e) => e.type === "key.rotated")).toEqual([
      {
        type: "key.rotated",
        projectId: project.id,
        fingerprint: successor.fingerprint,
        previous: [first!.fingerprint],
      },
    ]);
    expect(resigned).toEqual([project.id]);
    // A person's rotation names them, with the overlap they asked for.
    await rotateSigningKey(keyDeps(), as(ada), {
      project: "ucada/uc-rotated",
      algorithm: "ed25519",
      overlapDays: 2,
    });
    const again = await entries({ action: "signing_key.rotated", projectId: project.id });
    expect(again).toHaveLength(2);
    expect(again[1]).toMatchObject({ actor_kind: "user", actor_user_id: ada.userId, address: ADDRESS });
    expect(JSON.parse(again[1]!.details)).toEqual({ algorithm: "ed25519", overlapDays: 2 });
  });
});
