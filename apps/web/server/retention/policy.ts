// Which releases a project's retention rules keep and which they delete (decision 034). Pure:
// releases and rules in, decisions out; the job and the dry run both ask here.
//
// Releases are ranked newest first (creation time, then id, as the release list is). The newest
// N stay. A yanked release takes one of the N places when `countYanked`; when not, it takes none
// and stays while it is newer than the oldest release kept among the N (older ones go). Of the
// rest, a release stays when it is younger than `minAgeDays`, or, with `keepNewestPerMajor`,
// when it is the newest release of its major version that is not yanked. Last, the release
// `latest` resolves to (the first in the ranking that is not yanked, as releases/storage.ts
// resolves it) stays unless `deleteLatest` (decision 064).
import type { RetentionDecision, RetentionPlan, RetentionRules } from "@packyard/contract";

export interface RetentionCandidate {
  id: string;
  version: string;
  createdAt: string;
  yanked: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The major version: the leading number (after an optional "v"), else the first segment. */
export function majorVersionOf(version: string): string {
  const numeric = /^v?(\d+)/i.exec(version);
  if (numeric) return String(Number(numeric[1]));
  return version.split(/[.\-+~_:]/)[0] ?? version;
}

const newestFirst = (a: RetentionCandidate, b: RetentionCandidate) =>
  a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

export function planRetention(
  releases: readonly RetentionCandidate[],
  rules: Omit<RetentionRules, "enabled" | "keepImageTags">,
  now: Date,
): RetentionPlan {
  const ranked = [...releases].sort(newestFirst);
  const newestOfMajor = new Set<string>();
  if (rules.keepNewestPerMajor) {
    const seen = new Set<string>();
    for (const release of ranked) {
      if (release.yanked) continue;
      const major = majorVersionOf(release.version);
      if (seen.has(major)) continue;
      seen.add(major);
      newestOfMajor.add(release.id);
    }
  }
  const latest = ranked.find((release) => !release.yanked);
  const youngerThan = now.getTime() - rules.minAgeDays * DAY_MS;
  const keep: RetentionDecision[] = [];
  const remove: RetentionDecision[] = [];
  let counted = 0;
  for (const release of ranked) {
    const decided = (reason: RetentionDecision["reason"]): RetentionDecision => ({
      version: release.version,
      createdAt: release.createdAt,
      yanked: release.yanked,
      reason,
    });
    const takesPlace = !release.yanked || rules.countYanked;
    if (counted < rules.keepReleases) {
      if (takesPlace) counted++;
      keep.push(decided(takesPlace ? "newest" : "yanked"));
    } else if (rules.minAgeDays > 0 && Date.parse(release.createdAt) > youngerThan) {
      keep.push(decided("young"));
    } else if (newestOfMajor.has(release.id)) {
      keep.push(decided("major"));
    } else if (release === latest && !rules.deleteLatest) {
      keep.push(decided("latest"));
    } else {
      remove.push(decided("older"));
    }
  }
  return {
    keep,
    remove,
    latest: latest?.version ?? null,
    deletesLatest: latest !== undefined && remove.some((decision) => decision.version === latest.version),
  };
}
