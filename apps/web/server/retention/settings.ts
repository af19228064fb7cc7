// A project's retention rules as stored (retention_policy, migration 0024): read with their
// defaults when the project has none yet, saved field by field.
import {
  DEFAULT_RETENTION_RULES,
  type RetentionRules,
  type RetentionSettings,
  type UpdateRetentionInput,
} from "@packyard/contract";
import type { Kysely, Selectable } from "kysely";
import { nowIso } from "../platform/core/ids.ts";
import type { Database, RetentionPolicyTable } from "../platform/db/schema.ts";

type Db = Kysely<Database>;
type PolicyRow = Selectable<RetentionPolicyTable>;

function toSettings(row: PolicyRow | undefined): RetentionSettings {
  if (!row) return { ...DEFAULT_RETENTION_RULES, lastRun: null };
  return {
    enabled: Number(row.enabled) === 1,
    keepReleases: Number(row.keep_releases),
    keepNewestPerMajor: Number(row.keep_newest_per_major) === 1,
    minAgeDays: Number(row.min_age_days),
    countYanked: Number(row.count_yanked) === 1,
    deleteLatest: Number(row.delete_latest) === 1,
    keepImageTags: row.keep_image_tags === null ? null : Number(row.keep_image_tags),
    lastRun: row.last_run_at
      ? { at: row.last_run_at, removed: JSON.parse(row.last_run_removed ?? "[]") as string[] }
      : null,
  };
}

export async function getRetentionSettings(db: Db, projectId: string): Promise<RetentionSettings> {
  return toSettings(
    await db
      .selectFrom("retention_policy")
      .selectAll()
      .where("project_id", "=", projectId)
      .executeTakeFirst(),
  );
}

/** Saves the fields given; returns the settings before and after the change. */
export async function saveRetentionSettings(
  db: Db,
  projectId: string,
  input: UpdateRetentionInput,
): Promise<{ settings: RetentionSettings; before: RetentionSettings }> {
  const before = await getRetentionSettings(db, projectId);
  const rules: RetentionRules = {
    enabled: input.enabled ?? before.enabled,
    keepReleases: input.keepReleases ?? before.keepReleases,
    keepNewestPerMajor: input.keepNewestPerMajor ?? before.keepNewestPerMajor,
    minAgeDays: input.minAgeDays ?? before.minAgeDays,
    countYanked: input.countYanked ?? before.countYanked,
    deleteLatest: input.deleteLatest ?? before.deleteLatest,
    keepImageTags: input.keepImageTags !== undefined ? input.keepImageTags : before.keepImageTags,
  };
  const columns = {
    enabled: rules.enabled ? 1 : 0,
    keep_releases: rules.keepReleases,
    keep_newest_per_major: rules.keepNewestPerMajor ? 1 : 0,
    min_age_days: rules.minAgeDays,
    count_yanked: rules.countYanked ? 1 : 0,
    delete_latest: rules.deleteLatest ? 1 : 0,
    keep_image_tags: rules.keepImageTags,
    updated_at: nowIso(),
  };
  await db
    .insertInto("retention_policy")
    .values({ project_id: projectId, ...columns })
    .onConflict((oc) => oc.column("project_id").doUpdateSet(columns))
    .execute();
  return { settings: { ...rules, lastRun: before.lastRun }, before };
}

/** Notes a run that deleted releases (shown in the settings). */
export async function recordRetentionRun(db: Db, projectId: string, at: string, removed: string[]) {
  await db
    .updateTable("retention_policy")
    .set({ last_run_at: at, last_run_removed: JSON.stringify(removed) })
    .where("project_id", "=", projectId)
    .execute();
}
