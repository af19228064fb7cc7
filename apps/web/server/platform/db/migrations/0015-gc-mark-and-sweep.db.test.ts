// Migration 0015 on a database with published repositories: every index file a generation
// refers to gets an index_blob row, touched at migration time, so the first sweep after the
// upgrade keeps it; the mark column starts empty.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  type TestApp,
} from "../../../../test/harness.ts";
import { gcMarkAndSweep } from "./0015-gc-mark-and-sweep.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe(`migration 0015 (${databaseKind})`, () => {
  it("backfills index_blob for the index files generations refer to and adds the blob mark", async () => {
    const db = app.services.database.db;
    const { cookie } = await onboardedUser(app, "migrator");
    const res = await postJson(app, "/api/v1/projects", { slug: "old", name: "Old" }, cookie);
    const projectId = ((await res.json()) as { project: { id: string } }).project.id;
    const a = "a".repeat(64);
    const b = "b".repeat(64);
    for (const [id, number] of [
      ["gen1", 1],
      ["gen2", 2],
    ] as const) {
      await db
        .insertInto("repo_generation")
        .values({
          id,
          project_id: projectId,
          format: "apt",
          name: "stable",
          number,
          created_at: "2026-01-01T00:00:00.000Z",
        })
        .execute();
    }
    await db
      .insertInto("repo_index_file")
      .values([
        { generation_id: "gen1", path: "Release", sha256: a, sha512: "1", size: 10 },
        { generation_id: "gen2", path: "Release", sha256: a, sha512: "1", size: 10 },
        { generation_id: "gen2", path: "Packages", sha256: b, sha512: "2", size: 20 },
      ])
      .execute();
    // The schema as it was before 0015.
    await db.schema.dropTable("index_blob").execute();
    await db.schema.dropIndex("blob_unreferenced_since").execute();
    await db.schema.alterTable("blob").dropColumn("unreferenced_since").execute();

    const before = new Date().toISOString();
    await gcMarkAndSweep.up(db as never);
    const rows = await db.selectFrom("index_blob").selectAll().orderBy("sha256").execute();
    expect(rows.map((r) => [r.sha256, Number(r.size)])).toEqual([
      [a, 10],
      [b, 20],
    ]);
    for (const row of rows) expect(row.touched_at >= before).toBe(true);
    const { rows: marks } = await sql<{
      n: number | string;
    }>`select count(*) as n from blob where unreferenced_since is not null`.execute(db);
    expect(Number(marks[0]?.n)).toBe(0);
  });
});
