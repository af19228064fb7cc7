// recordAudit on SQLite and PostgreSQL: an entry keeps its actor, project and the names shown
// later, even after the project is deleted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  type TestApp,
} from "../../test/harness.ts";
import { recordAudit } from "./record.ts";

let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ userId } = await onboardedUser(app, "recorder"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;

describe(`recordAudit (${databaseKind})`, () => {
  it("stores who did what to which project, from where, with the names of the time", async () => {
    const projectId = "p-recorded-audit-0000000001";
    const now = new Date().toISOString();
    await db()
      .insertInto("project")
      .values({
        id: projectId,
        owner_id: userId,
        slug: "recorded",
        name: "Recorded",
        description: null,
        visibility: "public",
        homepage: null,
        source_url: null,
        license: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await createApiKey(app, userId, { projects: "*", access: "publish" });
    const key = await db().selectFrom("apikey").select(["id", "name"]).executeTakeFirstOrThrow();

    await recordAudit(db(), {
      ownerId: userId,
      projectId,
      actor: { kind: "key", userId, keyId: key.id },
      action: "release.created",
      target: "1.2.3",
      details: { files: 2 },
      address: "203.0.113.9",
    });
    await recordAudit(db(), { ownerId: userId, actor: { kind: "system" }, action: "signing_key.rotated" });
    await db().deleteFrom("project").where("id", "=", projectId).execute();

    const rows = await db()
      .selectFrom("audit_event")
      .selectAll()
      .where("action", "!=", "session.signed_in")
      .orderBy("action")
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      owner_id: userId,
      project_id: projectId,
      project_slug: "recorded",
      actor_kind: "key",
      actor_user_id: userId,
      actor_username: "recorder",
      actor_key_id: key.id,
      actor_key_name: key.name,
      action: "release.created",
      target: "1.2.3",
      address: "203.0.113.9",
    });
    expect(JSON.parse(rows[0]?.details ?? "")).toEqual({ files: 2 });
    expect(rows[1]).toMatchObject({
      actor_kind: "system",
      actor_user_id: null,
      project_id: null,
      action: "signing_key.rotated",
      address: null,
    });
  });

  it("writes several entries in one statement, in order, naming a credential that is not a key as told", async () => {
    await recordAudit(
      db(),
      { ownerId: userId, actor: { kind: "user", userId }, action: "release.created", target: "first" },
      {
        ownerId: userId,
        actor: { kind: "key", userId, keyId: "tp-publisher-1", keyName: "github: acme/tool", keyStart: null },
        action: "file.uploaded",
        target: "second",
      },
    );
    const rows = await db()
      .selectFrom("audit_event")
      .selectAll()
      .where("target", "in", ["first", "second"])
      .orderBy("id")
      .execute();
    expect(rows.map((r) => [r.target, r.actor_username, r.actor_key_name])).toEqual([
      ["first", "recorder", null],
      ["second", "recorder", "github: acme/tool"],
    ]);
  });
});
