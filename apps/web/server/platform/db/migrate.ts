// Applies better-auth's migrations, then Packyard's own, at start-up and by `packyard migrate`.
// Both are idempotent: running them on an up-to-date database changes nothing. On PostgreSQL
// they run under a session advisory lock held on one reserved connection, so servers started
// together take turns instead of racing to create the same tables (decision 020); the ones that
// wait then find nothing left to do. SQLite has one writer and one process: no lock.
import type { BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.ts";

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

/** The advisory lock migrations hold (single-key space; project publishes use the two-key one). */
export const MIGRATION_LOCK_KEY = 0x7061_636b_6d69_67n; // "packmig"

export interface MigrationResult {
  /** better-auth tables created and tables given new columns. */
  authChanges: number;
  /** Packyard migrations applied now, by name. */
  applied: string[];
}

export async function migrateDatabase(
  db: Kysely<unknown>,
  authOptions: BetterAuthOptions,
): Promise<MigrationResult> {
  const kind = (authOptions.database as { type?: string } | undefined)?.type;
  if (kind !== "postgres") return runMigrations(db, authOptions);
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      return await runMigrations(db, authOptions);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

async function runMigrations(db: Kysely<unknown>, authOptions: BetterAuthOptions): Promise<MigrationResult> {
  const auth = await getMigrations(authOptions);
  await auth.runMigrations();
  const migrator = new Migrator({
    db,
    provider: new StaticMigrationProvider(),
    migrationTableName: "packyard_migration",
    migrationLockTableName: "packyard_migration_lock",
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${reason}`);
  }
  return {
    authChanges: auth.toBeCreated.length + auth.toBeAdded.length,
    applied: (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName),
  };
}
