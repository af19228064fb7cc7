// Opens Packyard's database: SQLite through node:sqlite on the embedded defaults, PostgreSQL
// when DATABASE_URL is set. One connection (or pool) is shared by Kysely and better-auth.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { NodeSqliteDialect } from "@better-auth/kysely-adapter/node-sqlite-dialect";
import { type Dialect, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import type { Database } from "./schema.ts";

export interface DatabaseHandle {
  kind: "sqlite" | "postgres";
  db: Kysely<Database>;
  /** The dialect better-auth is given, so both share one connection or pool. */
  dialect: Dialect;
  close(): Promise<void>;
}

export function openDatabase(
  database: Config["database"],
  onIdleError: (error: Error) => void = () => {},
): DatabaseHandle {
  if (database.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on("error", onIdleError);
    const dialect = new PostgresDialect({ pool });
    const db = new Kysely<Database>({ dialect });
    return {
      kind: "postgres",
      db,
      dialect,
      // Kysely's destroy() ends the pool it was given.
      close: () => db.destroy(),
    };
  }
  if (database.path !== ":memory:") mkdirSync(dirname(database.path), { recursive: true });
  const sqlite = new DatabaseSync(database.path);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const dialect = new NodeSqliteDialect({ database: sqlite });
  const db = new Kysely<Database>({ dialect });
  let closed = false;
  return {
    kind: "sqlite",
    db,
    dialect,
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
      if (sqlite.isOpen) sqlite.close();
    },
  };
}
