// Garbage collection by mark-and-sweep after a grace period (decision 022), safe with several
// servers on one database.
// - blob.unreferenced_since: when a sweep first saw no file refer to the blob (NULL: referenced,
//   or not looked at yet). An upload of the same bytes clears it. The sweep removes a blob only
//   once the mark is older than the grace period and, under the row's lock, no file refers to it.
// - index_blob: one row per index file in the index store, touched (touched_at = now) by every
//   build that stores or reuses it, before it looks at the bytes. The sweep removes a file no
//   generation refers to only once its last touch is older than the grace period, under the row's
//   lock. Files that generations refer to today get a row, touched now.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Migration } from "kysely/migration";

export const gcMarkAndSweep: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("blob").addColumn("unreferenced_since", "varchar(30)").execute();
    await db.schema.createIndex("blob_unreferenced_since").on("blob").column("unreferenced_since").execute();
    await db.schema
      .createTable("index_blob")
      .addColumn("sha256", "varchar(64)", (c) => c.primaryKey())
      .addColumn("size", "bigint", (c) => c.notNull())
      .addColumn("touched_at", "varchar(30)", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("index_blob_touched_at").on("index_blob").column("touched_at").execute();
    const now = new Date().toISOString();
    await sql`INSERT INTO index_blob (sha256, size, touched_at)
      SELECT sha256, MAX(size), ${now} FROM repo_index_file GROUP BY sha256`.execute(db);
  },
};
