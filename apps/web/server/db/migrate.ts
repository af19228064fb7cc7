// Applies better-auth's migrations, then Packyard's own, at start-up. Both are idempotent:
// running them on an up-to-date database changes nothing.
import type { BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import type { Kysely } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.ts";

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export async function migrateDatabase(db: Kysely<unknown>, authOptions: BetterAuthOptions): Promise<void> {
  const { runMigrations } = await getMigrations(authOptions);
  await runMigrations();
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
}
