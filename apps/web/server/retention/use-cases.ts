// Retention's changes (decision 034): a person changing a project's rules, and a run deleting
// the releases they let go (the `retention` job, as the system). Each is a change (use-case.ts)
// with its audit entry; a run deletes release by release, each deletion committed on its own, so
// the owner turning the rules off stops it between two.

import type { RetentionSettings, UpdateRetentionInput } from "@packyard/contract";
import { pruneImageTags } from "../formats/oci/use-cases.ts";
import { type Actor, RETENTION_MANAGE_ACCESS } from "../platform/core/authorization.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import type { JobQueue } from "../platform/jobs/queue.ts";
import { requireOwnProject } from "../projects/storage.ts";
import { listReleaseRows, resolveLatest } from "../releases/storage.ts";
import { jobDeleteRelease } from "../releases/use-cases.ts";
import { planRetention } from "./policy.ts";
import { candidates, queueRetention, type RetentionDeps } from "./run.ts";
import { getRetentionSettings, recordRetentionRun, saveRetentionSettings } from "./settings.ts";

/**
 * Saves a change of the rules, records it in the audit log when something changed, and queues
 * a run when the rules are on.
 */
export async function changeRetentionSettings(
  deps: { db: Db; jobs: Pick<JobQueue, "send"> },
  caller: Caller & { actor: Actor },
  input: { project: string; rules: UpdateRetentionInput },
): Promise<RetentionSettings> {
  const { db, jobs } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, RETENTION_MANAGE_ACCESS);
  const settings = await change(db, caller, async (tx, record) => {
    const { settings, before } = await saveRetentionSettings(tx, project.id, input.rules);
    const { lastRun: _lastRun, ...rules } = settings;
    const { lastRun: _lastRunBefore, ...previous } = before;
    // A save that changes nothing records nothing (docs/audit.md).
    const changed = (Object.keys(rules) as (keyof typeof rules)[]).filter((k) => rules[k] !== previous[k]);
    if (changed.length > 0)
      record.audit({
        ownerId: project.owner_id,
        projectId: project.id,
        projectSlug: project.slug,
        action: "retention.settings_changed",
        target: settings.enabled ? `keep ${settings.keepReleases}` : "off",
        details: { changed, rules },
      });
    return settings;
  });
  if (settings.enabled) await queueRetention(db, jobs, project.id);
  return settings;
}

/** Applies the project's rules, if they are on; returns the versions deleted. */
export async function runRetention(
  deps: RetentionDeps,
  caller: Caller,
  input: { projectId: string },
): Promise<string[]> {
  const { db } = deps;
  const { projectId } = input;
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
    // The same deletion as the API's, without an entry of its own: the run's names them all.
    await jobDeleteRelease(deps, caller, row);
    removed.push(version);
  }
  const removedTags =
    rules.keepImageTags === null ? [] : await pruneImageTags(db, caller, projectId, rules.keepImageTags);
  if (removed.length === 0 && removedTags.length === 0) return removed;
  deps.logger.info(
    `retention deleted ${removed.length} release(s) of project ${projectId}: ${removed.join(", ")}`,
  );
  await change(db, caller, async (tx, record) => {
    await recordRetentionRun(tx, projectId, deps.clock().toISOString(), [...removed, ...removedTags]);
    const project = await tx
      .selectFrom("project")
      .select(["owner_id", "slug"])
      .where("id", "=", projectId)
      .executeTakeFirst();
    if (!project) return;
    const { lastRun: _lastRun, ...applied } = rules;
    record.audit({
      ownerId: project.owner_id,
      projectId,
      projectSlug: project.slug,
      action: "retention.run",
      target: [...removed, ...removedTags].join(", "),
      details: { removed, ...(removedTags.length > 0 ? { removedTags } : {}), rules: applied },
    });
  });
  return removed;
}
