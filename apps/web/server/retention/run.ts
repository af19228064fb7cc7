// Retention applied (decision 034): the `retention` job, queued when a project's packages
// change and its rules are on, deletes the releases the policy lets go through deleteRelease —
// the same path as a delete from the API — so their blobs are left to the garbage collector
// and the repositories republish. The dry run asks the same policy and deletes nothing. The
// release `latest` resolves to is never deleted unless the rules allow it (decision 064).
import type {
  RetentionPlan,
  RetentionRules,
  RetentionSettings,
  UpdateRetentionInput,
} from "@packyard/contract";
import type { Kysely } from "kysely";
import { recordAudit } from "../audit/record.ts";
import { auditActorOf } from "../audit/request.ts";
import type { Database } from "../db/schema.ts";
import type { Actor } from "../domain/authorization.ts";
import type { ProjectRow } from "../domain/projects.ts";
import { deleteRelease, listReleaseRows, type ReleaseRow, resolveLatest } from "../domain/releases.ts";
import type { JobDefinition, JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import { planRetention } from "./policy.ts";
import { getRetentionSettings, recordRetentionRun, saveRetentionSettings } from "./settings.ts";

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
  rules: Omit<RetentionRules, "enabled">,
  now: Date,
): Promise<RetentionPlan> {
  return planRetention(candidates(await listReleaseRows(db, projectId)), rules, now);
}

const candidates = (rows: ReleaseRow[]) =>
  rows.map((row) => ({
    id: row.id,
    version: row.version,
    createdAt: row.created_at,
    yanked: Number(row.yanked) === 1,
  }));

/** Applies the project's rules, if they are on; returns the versions deleted. */
export async function applyRetention(deps: RetentionDeps, projectId: string): Promise<string[]> {
  const { db } = deps;
  const rules = await getRetentionSettings(db, projectId);
  if (!rules.enabled) return [];
  // One snapshot: a release is deleted by the id it had then, so a version deleted and uploaded
  // again meanwhile is a new release this run leaves alone.
  const releases = await listReleaseRows(db, projectId);
  const plan = planRetention(candidates(releases), rules, deps.clock());
  const byVersion = new Map(releases.map((row) => [row.version, row]));
  const removed: string[] = [];
  for (const { version } of plan.remove) {
    const row = byVersion.get(version);
    if (!row) continue;
    // The owner may have turned the rules off while this run was deleting.
    const current = await getRetentionSettings(db, projectId);
    if (!current.enabled) break;
    // `latest` may have moved since the snapshot (a yank meanwhile); it stays unless allowed.
    if (!current.deleteLatest && (await resolveLatest(db, projectId))?.id === row.id) continue;
    await deleteRelease(db, row);
    removed.push(version);
  }
  if (removed.length > 0) {
    const at = deps.clock().toISOString();
    await recordRetentionRun(db, projectId, at, removed);
    deps.logger.info(
      `retention deleted ${removed.length} release(s) of project ${projectId}: ${removed.join(", ")}`,
    );
    const project = await db
      .selectFrom("project")
      .select("owner_id")
      .where("id", "=", projectId)
      .executeTakeFirst();
    if (project) {
      const { lastRun: _lastRun, ...applied } = rules;
      await recordAudit(db, {
        ownerId: project.owner_id,
        projectId,
        actor: { kind: "system" },
        action: "retention.run",
        target: removed.join(", "),
        details: { removed, rules: applied },
      });
    }
  }
  return removed;
}

/**
 * Saves a change of the rules made by `actor` (API or dashboard), records it in the audit log
 * when something changed, and queues a run when the rules are on.
 */
export async function updateRetention(
  deps: { db: Db; jobs: Pick<JobQueue, "send"> },
  actor: Actor,
  project: Pick<ProjectRow, "id" | "owner_id">,
  input: UpdateRetentionInput,
  address: string | null,
): Promise<RetentionSettings> {
  const { settings, before } = await saveRetentionSettings(deps.db, project.id, input);
  const { lastRun: _lastRun, ...rules } = settings;
  const { lastRun: _lastRunBefore, ...previous } = before;
  // A save that changes nothing records nothing (docs/audit.md).
  const changed = (Object.keys(rules) as (keyof typeof rules)[]).filter((k) => rules[k] !== previous[k]);
  if (changed.length > 0)
    await recordAudit(deps.db, {
      ownerId: project.owner_id,
      projectId: project.id,
      actor: auditActorOf(actor),
      action: "retention.settings_changed",
      target: settings.enabled ? `keep ${settings.keepReleases}` : "off",
      details: { changed, rules },
      address,
    });
  if (settings.enabled) await queueRetention(deps.db, deps.jobs, project.id);
  return settings;
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
