// What the dashboard's Downloads page and a release page's download table show: read with the
// same function as GET /api/v1/projects/{slug}/stats (downloads/stats.ts), so the chart, the
// tables and the API agree.
import { addDays, type ProjectStats, type StatsGrouping } from "@packyard/contract/stats.ts";
import type { Kysely } from "kysely";
import { projectStats } from "../../server/downloads/stats.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import type { DownloadPeriod } from "./download-periods.ts";

export interface DownloadsOverview {
  days: DownloadPeriod;
  from: string;
  to: string;
  total: ProjectStats["total"];
  byDay: ProjectStats["rows"];
  byFile: ProjectStats["rows"];
  byVersion: ProjectStats["rows"];
  byClient: ProjectStats["rows"];
  byDistribution: ProjectStats["rows"];
}

/** The project's downloads over the last `days` days up to `today` (UTC), every grouping. */
export async function downloadsOverview(
  db: Kysely<Database>,
  projectId: string,
  days: DownloadPeriod,
  today: string,
): Promise<DownloadsOverview> {
  const period = { from: addDays(today, -(days - 1)), to: today };
  const read = (by: StatsGrouping) => projectStats(db, projectId, { ...period, by });
  const byDay = await read("day");
  return {
    days,
    ...period,
    total: byDay.total,
    byDay: byDay.rows,
    byFile: (await read("file")).rows,
    byVersion: (await read("version")).rows,
    byClient: (await read("client")).rows,
    byDistribution: (await read("distribution")).rows,
  };
}

/** A release's downloads per file over the last 90 days up to `today`. */
export async function releaseDownloads(
  db: Kysely<Database>,
  projectId: string,
  version: string,
  today: string,
): Promise<ProjectStats> {
  return projectStats(db, projectId, { from: addDays(today, -89), to: today, by: "file", version });
}
