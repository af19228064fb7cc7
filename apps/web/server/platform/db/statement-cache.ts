// SQLite statements prepared once per distinct SQL text, not once per query. The node:sqlite
// dialect prepares every statement it runs (sqlite3_prepare: parsing and planning, ~20–40 µs of
// the main thread each); a publish runs about sixty, an upload some thirty (decision 046).
// Every execution is synchronous and complete (all() or run()), so a statement is never in use
// twice at once, and SQLite re-prepares a cached statement by itself after a schema change.
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** Distinct statements kept; the least recently used goes first (IN lists vary in length). */
export const STATEMENT_CACHE_SIZE = 256;

/** What the dialect uses of a DatabaseSync: prepare() and close(), prepare() answered from a cache. */
export function withStatementCache(sqlite: DatabaseSync, size = STATEMENT_CACHE_SIZE): DatabaseSync {
  const statements = new Map<string, StatementSync>();
  const cached = {
    prepare(sql: string): StatementSync {
      let statement = statements.get(sql);
      if (statement) {
        // Most recently used last.
        statements.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, statement);
      return statement;
    },
    close(): void {
      statements.clear();
      sqlite.close();
    },
    get isOpen(): boolean {
      return sqlite.isOpen;
    },
  };
  return cached as unknown as DatabaseSync;
}
