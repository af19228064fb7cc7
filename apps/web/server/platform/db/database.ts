// Opens Packyard's database: SQLite through node:sqlite on the embedded defaults, PostgreSQL
// when DATABASE_URL is set. One connection (or pool) is shared by Kysely and better-auth.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { NodeSqliteDialect } from "@better-auth/kysely-adapter/node-sqlite-dialect";
import { type Dialect, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import {
  type ChangeListener,
  followDomainEvents,
  listenForChanges,
} from "../../downloads/change-listener.ts";
import { newServingCaches, registerServingCaches, type ServingCaches } from "../../downloads/serve-cache.ts";
import type { Config } from "../config/config.ts";
import type { Database } from "./schema.ts";
import { withStatementCache } from "./statement-cache.ts";
import { walHeader } from "./wal-header.ts";

export interface DatabaseHandle {
  kind: "sqlite" | "postgres";
  db: Kysely<Database>;
  /** The dialect better-auth is given, so both share one connection or pool. */
  dialect: Dialect;
  /** What /dl answers from, dropped on every change (downloads/serve-cache.ts). */
  caches: ServingCaches;
  close(): Promise<void>;
}

/**
 * `onIdleError`: a PostgreSQL failure no caller awaits (an idle connection dropped, the LISTEN
 * connection lost, a change notification not sent); the process goes on.
 */
export function openDatabase(
  database: Config["database"],
  onIdleError: (error: Error) => void = () => {},
): DatabaseHandle {
  if (database.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: database.url, max: 10 });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on("error", onIdleError);
    const caches = newServingCaches();
    const dialect = new PostgresDialect({ pool });
    const db = new Kysely<Database>({ dialect });
    registerServingCaches(db, caches);
    // Changes drop the cache by their domain events, announced to the other processes too.
    let closed = false;
    followDomainEvents(db, caches, true, (error) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!closed) onIdleError(new Error(`change notification not sent: ${message}`, { cause: error }));
    });
    // Other processes' changes arrive by LISTEN; until it is active nothing is cached.
    const listener: ChangeListener = listenForChanges(database.url, caches, onIdleError);
    const sweep = sweepContent(caches);
    return {
      kind: "postgres",
      db,
      dialect,
      caches,
      close: async () => {
        closed = true;
        clearInterval(sweep);
        await listener.close();
        // Kysely's destroy() ends the pool it was given.
        await db.destroy();
      },
    };
  }
  if (database.path !== ":memory:") mkdirSync(dirname(database.path), { recursive: true });
  const sqlite = new DatabaseSync(database.path);
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const caches = newServingCaches();
  // Another process's commit (the command-line tools) changes data_version: the cache is
  // dropped before it answers anything (downloads/serve-cache.ts).
  const dataVersion = sqlite.prepare("PRAGMA data_version");
  dataVersion.setReturnArrays(true);
  let seenVersion: unknown;
  // Asked first: most turns, nothing was committed and SQLite need not be asked (wal-header.ts).
  const wal = walHeader(database.path);
  // Once per turn of the event loop: the requests a turn answers share one check.
  let checked = false;
  const uncheck = () => {
    checked = false;
  };
  caches.rows.validate = () => {
    if (checked || !sqlite.isOpen) return;
    checked = true;
    setImmediate(uncheck);
    if (!wal.changed()) return;
    const version = (dataVersion.get() as [number] | undefined)?.[0];
    if (version !== seenVersion) {
      seenVersion = version;
      caches.rows.invalidate();
    }
  };
  const dialect = rollbackOpenTransactionsOnly(
    new NodeSqliteDialect({ database: withStatementCache(sqlite) }),
    sqlite,
  );
  const db = new Kysely<Database>({ dialect });
  registerServingCaches(db, caches);
  followDomainEvents(db, caches, false);
  const sweep = sweepContent(caches);
  let closed = false;
  return {
    kind: "sqlite",
    db,
    dialect,
    caches,
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      await db.destroy();
      wal.close();
      if (sqlite.isOpen) sqlite.close();
    },
  };
}

/**
 * SQLite ends a transaction by itself on some errors (SQLITE_FULL among them): a rollback then
 * fails with "cannot rollback - no transaction is active", and Kysely throws that instead of the
 * error that ended the transaction. Only a transaction still open is rolled back.
 */
function rollbackOpenTransactionsOnly(dialect: Dialect, sqlite: DatabaseSync): Dialect {
  return {
    createDriver() {
      const driver = dialect.createDriver();
      const rollback = driver.rollbackTransaction.bind(driver);
      driver.rollbackTransaction = async (connection) => {
        if (sqlite.isTransaction) await rollback(connection);
      };
      return driver;
    },
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/**
 * Index bytes nobody asked for within a minute, and files within 30 s, are let go, so an idle
 * server is small again (V8 collects them on its own schedule, decision 071).
 */
function sweepContent(caches: ServingCaches): NodeJS.Timeout {
  return setInterval(() => {
    caches.content.sweep();
    caches.files.sweep();
  }, 10_000).unref();
}
