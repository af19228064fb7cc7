// Packyard's own schema changes, in order. Each one is written once and never edited after it
// ships; a change to the schema is a new entry. Runs after better-auth's own migrations, so
// better-auth's tables (user, session, account, verification) exist here.
import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Migration } from "kysely/migration";

export const migrations: Record<string, Migration> = {
  "0001_username_unique": {
    async up(db: Kysely<unknown>) {
      // Usernames appear in public URLs: one per user, compared case-sensitively because the
      // onboarding rules only allow lowercase.
      await db.schema
        .createIndex("user_username_unique")
        .ifNotExists()
        .on("user")
        .column("username")
        .unique()
        .execute();
    },
  },
  "0002_packyard_meta": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("packyard_meta")
        .ifNotExists()
        .addColumn("key", "varchar(100)", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("updated_at", "varchar(40)", (c) => c.notNull().defaultTo(sql`'1970-01-01T00:00:00.000Z'`))
        .execute();
    },
  },
};
