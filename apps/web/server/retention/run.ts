// Retention applied (decision 034): the `retention` job, queued when a project's packages
// change and its rules are on, deletes the releases the policy lets go through deleteRelease —
// the same path as a delete from the API — so their blobs are left to the garbage collector
// and the repositories republish. The dry run asks the same policy and deletes nothing. The
// release `latest` resolves to is never deleted unless the rules allow it (decision 064).
import type { RetentionPlan, RetentionRules } from "@packyard/contract";
import type { Kysely } from "kysely";
import { SYSTEM } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import type { JobDefinition, JobQueue } from "../platform/jobs/queue.ts";
import type { Logger } from "../platform/observability/logger.ts";
import { listReleaseRows, type ReleaseRow } from "../releases/storage.ts";
import { planRetention } from "./policy.ts";
import { runRetention } from "./use-cases.ts";

type Db = Kysely<Database>;

export const RETENTION_JOB = "retention";

export interface RetentionDeps {
  db: Db;
  clock: () => Date;
  logger: Pick<Logger, "info" | "error">;
}

/** What the rules would delete now, and what they keep and why. Nothing is changed. */
export async function previewRetention(
  db: Db,
  projectId: string,
  rules: Omit<RetentionRules, "enabled" | "keepImageTags">,
  now: Date,
): Promise<RetentionPlan> {
  return planRetention(candidates(await listReleaseRows(db, projectId)), rules, now);
}

export const candidates = (rows: ReleaseRow[]) =>
  rows.map((row) => ({
    id: row.id,
    version: row.version,
    createdAt: row.created_at,
    yanked: Number(row.yanked) === 1,
  }));

/** A run of the job: the project's rules applied, as the system (use-cases.ts). */
export function applyRetention(deps: RetentionDeps, projectId: string): Promise<string[]> {
  return runRetention(deps, SYSTEM, { projectId });
}

/** Queues a run for the project when its rules are on (after its packages changed). */
export async function queueRetention(
  db: Db,
  jobs: Pick<JobQueue, "send">,
  projectId: string,
): Promise<boolean> {
  const policy = await db
    .selectFrom("retention_policy")
    .select("enabled")
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (!policy || Number(policy.enabled) !== 1) return false;
  await jobs.send(RETENTION_JOB, { projectId }, { key: projectId });
  return true;
}

export function retentionJob(deps: RetentionDeps): JobDefinition<{ projectId: string }> {
  return {
    name: RETENTION_JOB,
    run: async ({ projectId }) => {
      await applyRetention(deps, projectId);
    },
    retryLimit: 5,
    retryDelaySeconds: 30,
    retryDelayMaxSeconds: 1800,
    expireInSeconds: 1800,
    coalesceByKey: true,
    concurrency: 1,
  };
}
