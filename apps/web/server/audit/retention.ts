// The audit log keeps one year (AUDIT_RETENTION_DAYS): the audit-retention job, hourly on one
// server of the cluster (maintenance.ts), deletes older entries a batch at a time, so a large
// backlog never holds a long transaction. The time is the services' clock (tests move it).
import { AUDIT_RETENTION_DAYS } from "@packyard/contract";
import type { Kysely } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import type { Database } from "../platform/db/schema.ts";
import type { JobQueue } from "../platform/jobs/queue.ts";
import type { Logger } from "../platform/observability/logger.ts";

export const AUDIT_RETENTION_JOB = "audit-retention";
const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes the entries older than the retention period; returns how many went. */
export async function deleteExpiredAuditEvents(
  db: Kysely<Database>,
  now: Date,
  batchSize = 1000,
): Promise<number> {
  const cutoff = new Date(now.getTime() - AUDIT_RETENTION_DAYS * DAY_MS).toISOString();
  let deleted = 0;
  for (;;) {
    const result = await db
      .deleteFrom("audit_event")
      .where("id", "in", (eb) =>
        eb.selectFrom("audit_event").select("id").where("created_at", "<", cutoff).limit(batchSize),
      )
      .executeTakeFirst();
    const n = Number(result.numDeletedRows);
    deleted += n;
    if (n < batchSize) return deleted;
  }
}

export function defineAuditRetentionJob(
  jobs: JobQueue,
  deps: { db: Kysely<Database>; clock: Clock; logger: Logger },
): void {
  jobs.define({
    name: AUDIT_RETENTION_JOB,
    run: async () => {
      const deleted = await deleteExpiredAuditEvents(deps.db, deps.clock());
      if (deleted > 0)
        deps.logger.info(`audit log: deleted ${deleted} entries older than ${AUDIT_RETENTION_DAYS} days`);
    },
    // The next occurrence is the retry.
    retryLimit: 0,
    retryDelaySeconds: 60,
    retryDelayMaxSeconds: 60,
    expireInSeconds: 3600,
    coalesceByKey: true,
  });
  jobs.schedule(AUDIT_RETENTION_JOB, 60);
}
