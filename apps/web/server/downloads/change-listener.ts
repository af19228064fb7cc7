// What drops the serving cache (decision 074): the domain events every change emits once it has
// committed (use-case.ts, platform/core/changes.ts) — never the SQL that ran. followDomainEvents drops
// this process's cache on each; with PostgreSQL it also sends a notification on the
// `packyard_changes` channel, because other Packyard processes share the database and their
// caches must drop too. listenForChanges LISTENs on its own connection and drops the cache on
// each notification (this process's own included). While that connection is down (the
// database restarting, a network cut) the cache is off — every request reads the database —
// and it is turned on again once LISTEN is back, so a missed notification never serves stale.
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { onDomainEvent } from "../platform/core/changes.ts";
import type { Database } from "../platform/db/schema.ts";
import type { ServingCaches } from "./serve-cache.ts";

export const CHANGES_CHANNEL = "packyard_changes";
const RETRY_MS = 1000;

/**
 * Drops the caches on every domain event of `db`; with `notify` (PostgreSQL), tells the other
 * processes too. Sent after the commit, by the process that made the change: a process that
 * dies between its commit and the notification leaves the others' caches stale until their next
 * change, a window of one query that the NOTIFY of a trigger did not have, but which holds no
 * list of tables (decision 074). The notification is sent as soon as the event is announced
 * (events announced together go out as one, their names comma-separated), but the change does
 * not wait for PostgreSQL's answer: a publish announces several events, and each answer was a
 * round trip on its path (issue 44). A failed notification goes to `onError`. Returns a function
 * that stops following.
 */
export function followDomainEvents(
  db: Kysely<Database>,
  caches: Pick<ServingCaches, "rows">,
  notify: boolean,
  onError: (error: unknown) => void = () => {},
): () => void {
  let waiting: Set<string> | undefined;
  const send = () => {
    const names = [...(waiting ?? [])].join(",");
    waiting = undefined;
    sql`select pg_notify(${CHANGES_CHANNEL}, ${names})`.execute(db).catch(onError);
  };
  return onDomainEvent(db, (event) => {
    caches.rows.invalidate();
    if (!notify) return;
    if (!waiting) {
      waiting = new Set();
      queueMicrotask(send);
    }
    waiting.add(event.type === "changed" ? event.action : event.type);
  });
}

export interface ChangeListener {
  /** Resolves once LISTEN is active (or failed for the first time). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function listenForChanges(
  connectionString: string,
  caches: Pick<ServingCaches, "rows">,
  onError: (error: Error) => void,
): ChangeListener {
  const setEnabled = (enabled: boolean) => caches.rows.setEnabled(enabled);
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const connect = async () => {
    setEnabled(false);
    const next = new pg.Client({ connectionString });
    client = next;
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      setEnabled(false);
      if (error) onError(error);
      next.end().catch(() => {});
      if (!closed) retry = setTimeout(connect, RETRY_MS).unref();
    };
    next.on("error", lost);
    next.on("end", () => lost());
    // The payload names the event, for reading the traffic: every one drops the cache.
    next.on("notification", () => caches.rows.invalidate());
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (closed || client !== next) return;
      setEnabled(true);
    } catch (error) {
      lost(error as Error);
    } finally {
      markReady();
    }
  };
  void connect();

  return {
    ready,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const last = client;
      client = undefined;
      setEnabled(false);
      await last?.end().catch(() => {});
    },
  };
}
