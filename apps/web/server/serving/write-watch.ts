// Sees every statement that reaches the database, from Packyard's queries and better-auth's
// alike (both use the one dialect), and says when one may have changed what a download is
// answered from: the serving cache (serve-cache.ts) is dropped at that moment, and again when a
// transaction that wrote commits — a reader that loaded between the write and the commit read
// the old rows, and what it cached is dropped with the commit (docs/decisions/039-serving-cache.md).
import type { DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from "kysely";
import { CompiledQuery } from "kysely";

/**
 * Tables whose rows never decide what /dl answers: sessions, keys (API keys have a cache of their
 * own, dropped by isKeyChange below), statistics, logs, queues. A write anywhere else drops the
 * cache.
 */
export const IGNORED_TABLES = new Set([
  "session",
  "account",
  "verification",
  "apikey",
  "twoFactor",
  "two_factor",
  "rateLimit",
  "rate_limit",
  "audit_event",
  "webhook",
  "webhook_delivery",
  "webhook_attempt",
  "org_invitation",
  "import",
  "download_month",
  "download_stat",
  "contact_message",
  "yum_entry_pin",
  "index_blob",
  "packyard_meta",
  "sign_in_failure",
  "kysely_migration",
  "kysely_migration_lock",
]);

const READ =
  /^\s*(?:select|pragma|begin|start|savepoint|release|rollback|show|explain|set|listen|unlisten|values)\b/i;
const COMMIT = /^\s*(?:commit|end)\b/i;
const TABLE = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|update|delete\s+from|replace\s+into)\s+"?([\w.]+)"?/i;
/** Download counts are added to release_file rows; nothing served depends on them. */
const COUNTER_ONLY = /^\s*update\s+"?release_file"?\s+set\s+"?download_count"?\s*=\s*[^,]*\s+where\b/i;

/** Whether a statement may change served state: false for reads and for the ignored tables. */
export function isServingWrite(sqlText: string): boolean {
  if (READ.test(sqlText) || COMMIT.test(sqlText)) return false;
  if (COUNTER_ONLY.test(sqlText)) return false;
  const table = TABLE.exec(sqlText)?.[1];
  if (table === undefined) return true; // DDL, a CTE, anything not recognised: assume it does
  return !IGNORED_TABLES.has(table.replace(/^.*\./, ""));
}

/** The columns an API key's use writes (its last use, counters): nothing a check depends on. */
const KEY_USAGE_COLUMNS = new Set(["lastRequest", "requestCount", "updatedAt", "remaining", "lastRefillAt"]);
const KEY_UPDATE = /^\s*update\s+"?apikey"?\s+set\s+([\s\S]*?)\s+where\b/i;

/**
 * Whether a statement may change what an API key's check answers (auth/key-checks.ts): any write
 * to the apikey table (a key deleted, disabled, its expiry or permissions changed) but the
 * updates that record its use.
 */
export function isKeyChange(sqlText: string): boolean {
  if (READ.test(sqlText) || COMMIT.test(sqlText)) return false;
  const table = TABLE.exec(sqlText)?.[1]?.replace(/^.*\./, "");
  if (table !== "apikey") return false;
  const set = KEY_UPDATE.exec(sqlText)?.[1];
  if (set === undefined) return true;
  const columns = [...set.matchAll(/"?(\w+)"?\s*=(?!=)/g)].map((m) => m[1]!);
  return columns.length === 0 || columns.some((column) => !KEY_USAGE_COLUMNS.has(column));
}

/** A statement that may change served state has run (it may not be committed yet). */
export type WriteListener = () => void;

/** Calls `listener` for each statement `writes` matches, and again when a transaction that wrote commits. */
function watcher(writes: (sqlText: string) => boolean, listener: WriteListener) {
  let pending = false;
  return (sqlText: string) => {
    if (writes(sqlText)) {
      pending = true;
      listener();
    } else if (pending && COMMIT.test(sqlText)) {
      pending = false;
      listener();
    }
  };
}

/**
 * The dialect, with every connection's statements watched (see the module comment): `onWrite`
 * for what /dl answers, `onKeyWrite` for API keys; each again when a transaction that wrote
 * commits.
 */
export function watchWrites(
  dialect: Dialect,
  onWrite: WriteListener,
  onKeyWrite: WriteListener = () => {},
): Dialect {
  const watchers = [watcher(isServingWrite, onWrite), watcher(isKeyChange, onKeyWrite)];
  const seen = (sqlText: string) => {
    for (const watch of watchers) watch(sqlText);
  };
  const wrapConnection = (connection: DatabaseConnection): DatabaseConnection => ({
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      try {
        return await connection.executeQuery<R>(query);
      } finally {
        seen(query.sql);
      }
    },
    streamQuery: connection.streamQuery.bind(connection),
  });
  const connections = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrapDriver = (driver: Driver): Driver => {
    const original = (c: DatabaseConnection) => originals.get(c) ?? c;
    const wrapped: Driver = {
      init: () => driver.init(),
      async acquireConnection() {
        const connection = await driver.acquireConnection();
        let outer = connections.get(connection);
        if (!outer) {
          outer = wrapConnection(connection);
          connections.set(connection, outer);
          originals.set(outer, connection);
        }
        return outer;
      },
      beginTransaction: (c: DatabaseConnection, settings: TransactionSettings) =>
        driver.beginTransaction(original(c), settings),
      async commitTransaction(c: DatabaseConnection) {
        await driver.commitTransaction(original(c));
        seen(CompiledQuery.raw("commit").sql);
      },
      rollbackTransaction: (c: DatabaseConnection) => driver.rollbackTransaction(original(c)),
      releaseConnection: (c: DatabaseConnection) => driver.releaseConnection(original(c)),
      destroy: () => driver.destroy(),
    };
    if (driver.savepoint)
      wrapped.savepoint = (c, name, compile) => driver.savepoint!(original(c), name, compile);
    if (driver.rollbackToSavepoint)
      wrapped.rollbackToSavepoint = (c, name, compile) =>
        driver.rollbackToSavepoint!(original(c), name, compile);
    if (driver.releaseSavepoint)
      wrapped.releaseSavepoint = (c, name, compile) => driver.releaseSavepoint!(original(c), name, compile);
    return wrapped;
  };
  return {
    createDriver: () => wrapDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
