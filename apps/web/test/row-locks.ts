// Waiting for the other side of a race to be held by a lock, for tests that reproduce one
// interleaving: on PostgreSQL until a backend of the test database waits for a lock (polled: a
// state, not a timing guess) or the promise settled. SQLite has one writer in one process: a
// second transaction queues behind the first in the driver, where nothing can observe it; there
// the side gets a moment to run ahead, which code that holds the right lock never lets it do.
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { settlesWithin } from "./gate.ts";

export async function lockedOrSettled<T>(db: Kysely<T>, promise: Promise<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await settlesWithin(promise, 300);
    return;
  }
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (;;) {
    if (settled) return;
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    if (Number(rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
