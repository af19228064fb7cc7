// The retention use cases called directly, on SQLite and PostgreSQL: a caller who may not
// manage the project changes no rule and leaves no entry; a change writes one entry naming who
// made it and from where; saving the same rules again records nothing; a run with nothing to
// delete records nothing either.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { SYSTEM } from "../platform/core/use-case.ts";
import { changeRetentionSettings, runRetention } from "./use-cases.ts";

let app: TestApp;
let ownerId: string;
let strangerId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ userId: ownerId } = await publishingProject(app, "keeper", "kept"));
  ({ userId: strangerId } = await publishingProject(app, "outsider", "theirs"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const deps = () => ({ db: db(), jobs: app.services.jobs });
const person = (userId: string) => ({ actor: { kind: "session" as const, userId }, address: "192.0.2.44" });
const entries = () =>
  db().selectFrom("audit_event").selectAll().where("action", "like", "retention.%").execute();
const policies = () => db().selectFrom("retention_policy").selectAll().execute();

describe(`retention use cases (${databaseKind})`, () => {
  it("refuses a caller who does not reach the project: no rules saved, no entry", async () => {
    await expect(
      changeRetentionSettings(deps(), person(strangerId), {
        project: "keeper/kept",
        rules: { keepReleases: 3 },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await policies()).toHaveLength(0);
    expect(await entries()).toHaveLength(0);
  });

  it("records one entry for a change, by the person who made it, and none for a save that changes nothing", async () => {
    const settings = await changeRetentionSettings(deps(), person(ownerId), {
      project: "keeper/kept",
      rules: { keepReleases: 3 },
    });
    expect(settings).toMatchObject({ enabled: false, keepReleases: 3 });
    await changeRetentionSettings(deps(), person(ownerId), {
      project: "keeper/kept",
      rules: { keepReleases: 3 },
    });
    const found = await entries();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      action: "retention.settings_changed",
      actor_kind: "user",
      actor_user_id: ownerId,
      address: "192.0.2.44",
      project_slug: "kept",
      target: "off",
    });
    expect(JSON.parse(found[0]!.details)).toMatchObject({ changed: ["keepReleases"] });
  });

  it("a run of rules that are off, or that delete nothing, records nothing", async () => {
    const project = await db()
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "kept")
      .executeTakeFirstOrThrow();
    const runDeps = { db: db(), clock: () => new Date(), logger: app.services.logger };
    expect(await runRetention(runDeps, SYSTEM, { projectId: project.id })).toEqual([]);
    await changeRetentionSettings(deps(), person(ownerId), {
      project: "keeper/kept",
      rules: { enabled: true },
    });
    expect(await runRetention(runDeps, SYSTEM, { projectId: project.id })).toEqual([]);
    expect((await entries()).map((e) => e.action)).toEqual([
      "retention.settings_changed",
      "retention.settings_changed",
    ]);
  });
});
