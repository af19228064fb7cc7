// PostgreSQL: other Packyard processes share the database, and their changes must drop this
// process's serving cache too. Migration 0025 makes every change to a table /dl answers from
// send a notification on the `packyard_changes` channel (at commit, never before); this module
// LISTENs on its own connection and drops the cache on each. While the connection is down
// (the database restarting, a network cut) the cache is off — every request reads the database
// — and it is turned on again once LISTEN is back, so a missed notification never serves stale.
import pg from "pg";
import type { ServingCaches } from "./serve-cache.ts";

export const CHANGES_CHANNEL = "packyard_changes";
const RETRY_MS = 1000;

export interface ChangeListener {
  /** Resolves once LISTEN is active (or failed for the first time). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function listenForChanges(
  connectionString: string,
  caches: Pick<ServingCaches, "rows" | "keys">,
  onError: (error: Error) => void,
): ChangeListener {
  const setEnabled = (enabled: boolean) => {
    caches.rows.setEnabled(enabled);
    caches.keys.setEnabled(enabled);
  };
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
    // The payload names the table (migrations 0025 and 0028): API keys have their own cache.
    next.on("notification", (message) =>
      message.payload === "apikey" ? caches.keys.invalidate() : caches.rows.invalidate(),
    );
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
