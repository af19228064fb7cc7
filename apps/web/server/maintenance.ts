// Housekeeping that keeps storage and repositories true to the database after crashes: at
// start-up (the collection at the first quiet moment, decision 044), and then as scheduled jobs
// (platform/jobs/queue.ts) — with several servers on PostgreSQL each scheduled run happens on one of them.
// - Repositories behind their packages (a crash between an upload's commit and its publish)
//   are published again: at start-up, and every minute (the job publish-lagging).
// - Garbage collection by mark-and-sweep after the grace period (decision 022), safe with several
//   servers on one database: blobs no file refers to are marked, and removed once the mark is
//   older than the grace period; index files no generation refers to are removed once no build
//   has touched them for the grace period; each under its row's lock, bytes first. Deleting
//   files, releases, projects and accounts and pruning generations only delete rows.
// - Partial files under blobs/tmp and indexes/tmp (their objects, with S3), and blob and index
//   bytes no row claims (a crash before the row committed), are removed once nothing has written
//   to them for the grace period, so work in flight is never touched. Storage is listed a page
//   at a time. Both every ten minutes (collect-garbage).
// - Contact messages whose mail failed are mailed again (site/contact.ts), and contact data
//   past its retention is removed (with collect-garbage), as are expired repomd.xml pins, the
//   machine hashes of past days and entitlement tokens' last-use addresses older than 30 days
//   (downloads/forget.ts, decision 083).
// - Signing keys near their expiry get a successor, their owners are mailed, and repositories
//   are re-signed when their signers change or Valid-Until nears (signing-key-lifecycle, hourly;
//   signing-keys/lifecycle.ts, decision 027).
// - Files uploaded without their sha512, sha1 and md5 (a crash before they were filled in)
//   get them (with collect-garbage; releases/blob-digests.ts, decision 036).
// - Audit-log entries older than a year are deleted (audit-retention, hourly; decision 031).
import { defineAuditRetentionJob } from "./audit/retention.ts";
import { forgetMachinesAndAddresses } from "./downloads/forget.ts";
import { collectImageLeftovers } from "./formats/oci/collect.ts";
import { resignQueue } from "./formats/registry.ts";
import { SharedEntryPins } from "./formats/yum/entry-pins.ts";
import type { JobQueue } from "./platform/jobs/queue.ts";
import { quietMoment } from "./platform/process/quiet-moment.ts";
import { fillMissingDigests } from "./releases/blob-digests.ts";
import { collectOrphanBytes, collectUnreferencedBlobs } from "./releases/blobs.ts";
import type { Services } from "./services.ts";
import { KEY_LIFECYCLE_JOB, keyLifecyclePass } from "./signing-keys/lifecycle-job.ts";
import { contactUpkeep } from "./site/contact.ts";
import { deleteExpiredTrustedPublishing } from "./trusted-publishing/storage.ts";

/** How long a leftover must have been untouched before it is removed. */
export const LEFTOVER_GRACE_MS = 15 * 60 * 1000;
export const COLLECT_JOB = "collect-garbage";
export const PUBLISH_LAGGING_JOB = "publish-lagging";

export interface Leftovers {
  /** Partial uploads and index files (temporary files or objects, cut-off multipart uploads). */
  temporaryFiles: number;
  /** Blobs swept: no file referred to them for the grace period. */
  unreferencedBlobs: number;
  /** Blob bytes no row claimed. */
  orphanBlobs: number;
  /** Index files swept (no generation referred to them, untouched for the grace period) and index bytes no row claimed. */
  orphanIndexFiles: number;
  /** Container image blobs no manifest of their image needed, uploaded before the grace period. */
  imageBlobsReleased: number;
  /** Container image uploads left unfinished for the grace period. */
  imageUploadsForgotten: number;
}

type Deps = Pick<Services, "config" | "database" | "blobs" | "repos" | "logger" | "mailTransport"> &
  Partial<Pick<Services, "keys" | "mailer" | "clock">>;

export async function collectLeftovers(deps: Deps, graceMs = LEFTOVER_GRACE_MS): Promise<Leftovers> {
  const { database, blobs, repos } = deps;
  // Temporary files on disk, or temporary objects and cut-off multipart uploads in the bucket.
  const temporaryFiles =
    (await blobs.removeStaleTemporary(graceMs)) + (await repos.store.removeStaleTemporary(graceMs));
  // Container image blobs no manifest needs are released first, so this pass sweeps them.
  const images = await collectImageLeftovers(database.db, graceMs);
  const unreferencedBlobs = await collectUnreferencedBlobs(database.db, blobs, { graceMs });
  const orphanBlobs = await collectOrphanBytes(database.db, blobs, { graceMs });
  const orphanIndexFiles = await repos.collectIndexFiles(graceMs);
  return {
    temporaryFiles,
    unreferencedBlobs,
    orphanBlobs,
    orphanIndexFiles,
    imageBlobsReleased: images.blobs,
    imageUploadsForgotten: images.uploads,
  };
}

/** Leftovers collected, then stored contact messages mailed; each part's failure logged. */
async function collectPass(deps: Deps): Promise<void> {
  const { logger } = deps;
  try {
    const removed = await collectLeftovers(deps);
    const total = Object.values(removed).reduce((a, b) => a + b, 0);
    if (total > 0) logger.info(`removed leftovers: ${JSON.stringify(removed)}`);
  } catch (error) {
    logger.error("collecting leftovers failed", error);
  }
  try {
    // Digests an upload left for later and a crash kept from being filled (decision 036).
    const filled = await fillMissingDigests(deps.database.db, deps.blobs);
    if (filled > 0) logger.info(`filled the missing digests of ${filled} blob(s)`);
  } catch (error) {
    logger.error("filling missing digests failed", error);
  }
  try {
    await SharedEntryPins.removeExpired(deps.database.db);
  } catch (error) {
    logger.error("removing expired repomd.xml pins failed", error);
  }
  try {
    // ID tokens already exchanged and publish tokens, once expired (trusted publishing).
    await deleteExpiredTrustedPublishing(deps.database.db, (deps.clock ?? (() => new Date()))());
  } catch (error) {
    logger.error("removing expired trusted publishing tokens failed", error);
  }
  try {
    const forgotten = await forgetMachinesAndAddresses(
      deps.database.db,
      (deps.clock ?? (() => new Date()))(),
    );
    if (forgotten.machines + forgotten.addresses > 0)
      logger.info(
        `forgot ${forgotten.machines} machine hash(es) of past days and ${forgotten.addresses} last-use address(es)`,
      );
  } catch (error) {
    logger.error("forgetting machine hashes and last-use addresses failed", error);
  }
  try {
    const { database, mailTransport, config } = deps;
    const contact = await contactUpkeep({ db: database.db, mailer: mailTransport, logger, config });
    if (contact.mailed > 0) logger.info(`mailed ${contact.mailed} stored contact message(s)`);
  } catch (error) {
    logger.error("contact message upkeep failed", error);
  }
}

async function publishLaggingPass(deps: Deps): Promise<void> {
  const published = await deps.repos.publishLagging();
  if (published.length > 0)
    deps.logger.warn(`republished ${published.length} project(s) whose repositories were behind`);
}

/** The scheduled housekeeping jobs; every server defines them, one runs each occurrence. */
export function defineMaintenanceJobs(jobs: JobQueue, deps: Deps): void {
  jobs.define({
    name: COLLECT_JOB,
    run: () => collectPass(deps),
    // The next occurrence is the retry.
    retryLimit: 0,
    retryDelaySeconds: 60,
    retryDelayMaxSeconds: 60,
    expireInSeconds: 3600,
    coalesceByKey: true,
  });
  jobs.define({
    name: PUBLISH_LAGGING_JOB,
    run: () => publishLaggingPass(deps),
    retryLimit: 0,
    retryDelaySeconds: 60,
    retryDelayMaxSeconds: 60,
    expireInSeconds: 600,
    coalesceByKey: true,
  });
  const { keys, mailer, clock } = deps;
  if (keys && mailer && clock) {
    jobs.define({
      name: KEY_LIFECYCLE_JOB,
      run: async () => {
        const done = await keyLifecyclePass({
          ...deps,
          db: deps.database.db,
          keys,
          mailer,
          clock,
          resignRpms: resignQueue(jobs),
        });
        if (done.rotated.length + done.resigned.length + done.mailed > 0)
          deps.logger.info(
            `signing key lifecycle: ${JSON.stringify({ ...done, rotated: done.rotated.length, resigned: done.resigned.length })}`,
          );
      },
      retryLimit: 0,
      retryDelaySeconds: 60,
      retryDelayMaxSeconds: 60,
      expireInSeconds: 3600,
      coalesceByKey: true,
    });
    jobs.schedule(KEY_LIFECYCLE_JOB, 60);
  }
  jobs.schedule(COLLECT_JOB, 10);
  jobs.schedule(PUBLISH_LAGGING_JOB, 1);
  // Audit-log entries older than a year are deleted (audit/retention.ts).
  defineAuditRetentionJob(jobs, {
    db: deps.database.db,
    clock: deps.clock ?? (() => new Date()),
    logger: deps.logger,
  });
}

export interface Maintenance {
  /** The start-up pass: lagging repositories published, leftovers collected. */
  started: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The start-up pass of this server; the scheduled passes are jobs (defineMaintenanceJobs).
 * Lagging repositories are published at once; the collection waits for the first quiet moment
 * (quiet-moment.ts, decision 044), and is left to the scheduled job when the server stops first.
 */
export function startMaintenance(deps: Deps): Maintenance {
  const stopping = new AbortController();
  const started = (async () => {
    try {
      await publishLaggingPass(deps);
    } catch (error) {
      deps.logger.error("publishing lagging repositories failed", error);
    }
    await quietMoment({ signal: stopping.signal });
    if (stopping.signal.aborted) return;
    await collectPass(deps);
  })();
  return {
    started,
    async stop() {
      stopping.abort();
      await started;
    },
  };
}
