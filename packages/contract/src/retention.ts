// Retention rules of a project (decision 034): keep the newest N releases, optionally the newest
// release of each major version and every release younger than D days; whether yanked releases
// take one of the N places; whether they may delete the release `latest` resolves to (never,
// unless asked: decision 064). Off until the owner turns it on. The API, the CLI and the dashboard
// parse with these schemas; which releases go is decided on the server (retention/policy.ts).
import { z } from "zod";

export const RETENTION_MAX_KEEP = 10_000;
export const RETENTION_MAX_AGE_DAYS = 3650;

const keepMessage = `Keep must be a whole number of releases from 1 to ${RETENTION_MAX_KEEP}`;
const tagsMessage = `Keep must be a whole number of tags from 1 to ${RETENTION_MAX_KEEP}, or none`;
const ageMessage = `The minimum age must be a whole number of days from 0 to ${RETENTION_MAX_AGE_DAYS}`;

export const retentionRules = z.object({
  /** Nothing is ever deleted while this is false. */
  enabled: z.boolean("enabled must be true or false"),
  /** The newest this many releases stay. */
  keepReleases: z
    .number(keepMessage)
    .int(keepMessage)
    .min(1, keepMessage)
    .max(RETENTION_MAX_KEEP, keepMessage),
  /** The newest (not yanked) release of each major version stays too. */
  keepNewestPerMajor: z.boolean("keepNewestPerMajor must be true or false"),
  /** No release younger than this many days is deleted (0: no minimum). */
  minAgeDays: z.number(ageMessage).int(ageMessage).min(0, ageMessage).max(RETENTION_MAX_AGE_DAYS, ageMessage),
  /** true: yanked releases take places among the newest N; false: they do not (see decision 034). */
  countYanked: z.boolean("countYanked must be true or false"),
  /** true: the release `latest` resolves to may be deleted; false: it stays whatever the rules say. */
  deleteLatest: z.boolean("deleteLatest must be true or false"),
  /**
   * Container images (docs/containers.md): each image keeps its newest this many tags (by when
   * they were last pushed); older tags are deleted, their manifests stay pullable by digest.
   * null: no rule for tags.
   */
  keepImageTags: z
    .number(tagsMessage)
    .int(tagsMessage)
    .min(1, tagsMessage)
    .max(RETENTION_MAX_KEEP, tagsMessage)
    .nullable(),
});
export type RetentionRules = z.infer<typeof retentionRules>;

export const DEFAULT_RETENTION_RULES: RetentionRules = {
  enabled: false,
  keepReleases: 10,
  keepNewestPerMajor: false,
  minAgeDays: 0,
  // Not counted: a yanked release never pushes an installable one out (decision 064).
  countYanked: false,
  deleteLatest: false,
  keepImageTags: null,
};

/** PUT /api/v1/projects/{slug}/retention: the fields sent change, the others keep their values. */
export const updateRetentionInput = retentionRules.partial();
export type UpdateRetentionInput = z.infer<typeof updateRetentionInput>;

/** Why a release stays or goes. */
export const retentionReasons = ["newest", "major", "young", "yanked", "latest", "older"] as const;
export type RetentionReason = (typeof retentionReasons)[number];

export const retentionDecision = z.object({
  version: z.string(),
  createdAt: z.string(),
  yanked: z.boolean(),
  /**
   * newest: one of the newest N; major: the newest of its major version; young: younger than
   * the minimum age; yanked: yanked, not counted, and newer than the oldest release kept;
   * latest: the release `latest` resolves to, kept only because `deleteLatest` is off; older:
   * beyond the newest N (only for releases that go).
   */
  reason: z.enum(retentionReasons),
});
export type RetentionDecision = z.infer<typeof retentionDecision>;

export const retentionPlan = z.object({
  keep: z.array(retentionDecision),
  remove: z.array(retentionDecision),
  /** The version `latest` resolves to now (the newest release not yanked), or null. */
  latest: z.string().nullable(),
  /** true: the plan deletes `latest` (only with `deleteLatest`); the preview warns of it. */
  deletesLatest: z.boolean(),
});
export type RetentionPlan = z.infer<typeof retentionPlan>;

export const retentionRun = z.object({
  at: z.string(),
  /** Versions deleted by the run. */
  removed: z.array(z.string()),
});

export const retentionSettings = retentionRules.extend({
  /** The last run that deleted something, or null. */
  lastRun: retentionRun.nullable(),
});
export type RetentionSettings = z.infer<typeof retentionSettings>;

/** POST …/retention/dry-run: the saved rules, or these (the dashboard previews unsaved ones). */
export const retentionDryRunInput = retentionRules.omit({ enabled: true }).partial();
export type RetentionDryRunInput = z.infer<typeof retentionDryRunInput>;
