// Housekeeping that keeps storage and repositories true to the database after crashes: at
// start-up, and then every ten minutes while the server runs.
// - Repositories behind their packages (a crash between an upload's commit and its publish)
//   are published again (at start-up).
// - Partial files under blobs/tmp and indexes/tmp (their objects, with S3), index files no
//   generation refers to, blobs no file refers to, and blob bytes whose row never committed
//   are removed once nothing has written to them for the grace period, so work in flight is
//   never touched. Storage is listed a page at a time.
// - Contact messages whose mail failed are mailed again (domain/contact.ts), and contact data
//   past its retention is removed.
import { collectOrphanBytes, collectUnreferencedBlobs } from "./domain/blobs.ts";
import { contactUpkeep } from "./domain/contact.ts";
import type { Services } from "./services.ts";

/** How long a leftover must have been untouched before it is removed. */
export const LEFTOVER_GRACE_MS = 15 * 60 * 1000;
export const MAINTENANCE_INTERVAL_MS = 10 * 60 * 1000;

export interface Leftovers {
  temporaryFiles: number;
  unreferencedBlobs: number;
  orphanBlobs: number;
  orphanIndexFiles: number;
}

type Deps = Pick<Services, "config" | "database" | "blobs" | "repos" | "logger" | "mailer">;

export async function collectLeftovers(deps: Deps, graceMs = LEFTOVER_GRACE_MS): Promise<Leftovers> {
  const { database, blobs, repos } = deps;
  // Temporary files on disk, or temporary objects and cut-off multipart uploads in the bucket.
  const temporaryFiles =
    (await blobs.removeStaleTemporary(graceMs)) + (await repos.store.removeStaleTemporary(graceMs));
  const unreferencedBlobs = await collectUnreferencedBlobs(database.db, blobs);
  const orphanBlobs = await collectOrphanBytes(database.db, blobs, { graceMs });
  const orphanIndexFiles = await repos.collectOrphanIndexFiles(graceMs);
  return { temporaryFiles, unreferencedBlobs, orphanBlobs, orphanIndexFiles };
}

export interface Maintenance {
  /** The start-up pass: lagging repositories published, leftovers collected. */
  started: Promise<void>;
  stop(): Promise<void>;
}

export function startMaintenance(deps: Deps): Maintenance {
  const { logger } = deps;
  let running: Promise<void> = Promise.resolve();
  const collect = () => {
    running = running
      .then(async () => {
        const removed = await collectLeftovers(deps);
        const total = Object.values(removed).reduce((a, b) => a + b, 0);
        if (total > 0) logger.info(`removed leftovers: ${JSON.stringify(removed)}`);
      })
      .catch((error) => logger.error("collecting leftovers failed", error))
      .then(async () => {
        const { database, mailer, config } = deps;
        const contact = await contactUpkeep({ db: database.db, mailer, logger, config });
        if (contact.mailed > 0) logger.info(`mailed ${contact.mailed} stored contact message(s)`);
      })
      .catch((error) => logger.error("contact message upkeep failed", error));
    return running;
  };
  const started = (async () => {
    try {
      const published = await deps.repos.publishLagging();
      if (published.length > 0)
        logger.warn(`republished ${published.length} project(s) whose repositories were behind`);
    } catch (error) {
      logger.error("publishing lagging repositories failed", error);
    }
    await collect();
  })();
  const timer = setInterval(collect, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return {
    started,
    async stop() {
      clearInterval(timer);
      await started;
      await running;
    },
  };
}
