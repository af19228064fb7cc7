// Migrations under the advisory lock: servers (or `packyard migrate` runs) starting together on
// one fresh PostgreSQL database take turns and all succeed with the whole schema; on SQLite a
// second run finds nothing to do. Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { getMigrations } from "better-auth/db/migration";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { settlesWithin } from "../../../test/gate.ts";
import { createPostgresDatabase, databaseKind } from "../../../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { authOptions } from "../../auth/auth.ts";
import { runCli } from "../../cli.ts";
import { loadConfig } from "../config/config.ts";
import { createMailer } from "../mail/mailer.ts";
import { createLogger } from "../observability/logger.ts";
import { openDatabase } from "./database.ts";
import { MIGRATION_LOCK_KEY } from "./migrate.ts";
import { migrations } from "./migrations/index.ts";

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  removeTempDirs();
});

/** The environment of a fresh, empty database of the lane's kind. */
async function freshEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    DATA_DIR: makeTempDir("packyard-migrate-"),
    SECRET: "migrate-test-secret-migrate-test-secret-0",
    LOG_LEVEL: "silent",
  };
  if (databaseKind === "postgres") {
    const created = await createPostgresDatabase();
    drops.push(created.drop);
    env.DATABASE_URL = created.url;
  }
  return env;
}

async function migrate(env: Record<string, string>, argv = ["migrate"]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** What is still missing from the schema: better-auth's plan and Packyard's pending migrations. */
async function missing(env: Record<string, string>) {
  const config = loadConfig(env);
  const database = openDatabase(config.database);
  try {
    const options = authOptions({
      config,
      dialect: database.dialect,
      dbType: database.kind,
      mailer: createMailer({
        from: config.mailFrom,
        outboxDir: config.outboxDir,
        smtpUrl: undefined,
        logger: createLogger("silent"),
      }),
    });
    const plan = await getMigrations(options);
    const applied = await database.db
      .selectFrom("packyard_migration" as never)
      .select("name" as never)
      .execute();
    return {
      authTables: plan.toBeCreated.length + plan.toBeAdded.length,
      packyard: Object.keys(migrations).length - applied.length,
    };
  } finally {
    await database.close();
  }
}

describe(`packyard migrate (${databaseKind})`, () => {
  it("brings a fresh database up to date, then finds nothing to do", async () => {
    const env = await freshEnv();
    const first = await migrate(env);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toMatch(
      /^Migrated the .* database: \d+ better-auth table change\(s\), \d+ Packyard migration/,
    );
    expect(first.out).toContain(Object.keys(migrations).at(-1));
    expect(await missing(env)).toEqual({ authTables: 0, packyard: 0 });
    const again = await migrate(env);
    expect(again).toMatchObject({ code: 0, err: "" });
    expect(again.out).toMatch(/database is up to date\.$/);
  });

  it("refuses arguments (2) and a bad configuration (78), saying why", async () => {
    const env = await freshEnv();
    const extra = await migrate(env, ["migrate", "--now"]);
    expect(extra.code).toBe(2);
    expect(extra.err).toContain("unexpected argument: --now");
    expect(extra.err).toContain("Usage: packyard migrate");
    const noSecret = await migrate({ ...env, SECRET: "", DATABASE_URL: "postgres://u@127.0.0.1:1/x" });
    expect(noSecret.code).toBe(78);
    expect(noSecret.err).toContain("SECRET: must be set with DATABASE_URL");
  });

  it.skipIf(databaseKind !== "postgres")(
    "two runs started together on one fresh PostgreSQL database both succeed with the whole schema",
    async () => {
      const env = await freshEnv();
      const [a, b] = await Promise.all([migrate(env), migrate(env)]);
      expect([a.err, b.err]).toEqual(["", ""]);
      expect([a.code, b.code]).toEqual([0, 0]);
      // One did the work; the other waited for the lock and found it done.
      expect([a.out, b.out].filter((out) => out.endsWith("is up to date.")).length).toBe(1);
      expect(await missing(env)).toEqual({ authTables: 0, packyard: 0 });
      // The job queue's schema too (pg-boss installs it under its own lock).
      const client = new pg.Client({ connectionString: env.DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query(
          "select table_name from information_schema.tables where table_schema = 'pgboss' and table_name in ('job', 'queue', 'schedule') order by table_name",
        );
        expect(rows.map((r: { table_name: string }) => r.table_name)).toEqual(["job", "queue", "schedule"]);
      } finally {
        await client.end();
      }
    },
  );

  it.skipIf(databaseKind !== "postgres")("waits while another holds the migration lock", async () => {
    const env = await freshEnv();
    const holder = new pg.Client({ connectionString: env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
      const run = migrate(env);
      expect(await settlesWithin(run, 500)).toBe(false);
      await holder.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]);
      expect(await run).toMatchObject({ code: 0, err: "" });
    } finally {
      await holder.end();
    }
  });
});
