// Reading download statistics (decision 033): one function answers GET
// /api/v1/projects/{slug}/stats and feeds the dashboard's chart and tables, so both show the
// same numbers. Rows are written by downloads/counts.ts; this server's counts still in memory
// are written first, so a single server shows its own downloads at once.
import {
  daysOf,
  type ProjectStats,
  type StatsGrouping,
  type StatsPeriod,
  type StatsRow,
  utcDay,
} from "@packyard/contract/stats.ts";
import { type Kysely, sql } from "kysely";
import { flushDownloadCounts } from "../billing/usage.ts";
import type { Database } from "../platform/db/schema.ts";

type Db = Kysely<Database>;

export interface StatsRequest extends StatsPeriod {
  by: StatsGrouping;
  /** Only this release's files. */
  version?: string;
}

const groupColumn = {
  day: "day",
  file: "filename",
  version: "version",
  client: "client",
  distribution: "distribution",
} as const;

/** A project's downloads and bytes over a period (both ends included), grouped one way. */
export async function projectStats(
  db: Db,
  projectId: string,
  request: StatsRequest,
  { flush = true } = {},
): Promise<ProjectStats> {
  if (flush) await flushDownloadCounts(db);
  const column = groupColumn[request.by];
  let query = db
    .selectFrom("download_stat")
    .where("project_id", "=", projectId)
    .where("day", ">=", request.from)
    .where("day", "<=", request.to);
  if (request.version !== undefined) query = query.where("version", "=", request.version);
  const sums = [
    sql<number | string>`sum(downloads)`.as("downloads"),
    sql<number | string>`sum(bytes)`.as("bytes"),
  ] as const;
  const grouped: { key: string; version?: string; downloads: number | string; bytes: number | string }[] =
    request.by === "file"
      ? await query
          .select([sql<string>`filename`.as("key"), "version", ...sums])
          .groupBy(["filename", "version"])
          .execute()
      : await query
          .select([sql<string>`${sql.ref(column)}`.as("key"), ...sums])
          .groupBy(column)
          .execute();
  let rows: StatsRow[] = grouped.map((r) => {
    return {
      key: r.key,
      ...(request.by === "file" ? { version: r.version } : {}),
      downloads: Number(r.downloads),
      bytes: Number(r.bytes),
    };
  });
  if (request.by === "day") {
    const byDay = new Map(rows.map((r) => [r.key, r]));
    rows = daysOf(request).map((day) => byDay.get(day) ?? { key: day, downloads: 0, bytes: 0 });
  } else
    rows.sort(
      (a, b) =>
        b.downloads - a.downloads ||
        b.bytes - a.bytes ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
        ((a.version ?? "") < (b.version ?? "") ? -1 : 1),
    );
  const total = rows.reduce(
    (sum, r) => ({ downloads: sum.downloads + r.downloads, bytes: sum.bytes + r.bytes }),
    { downloads: 0, bytes: 0 },
  );
  return {
    from: request.from,
    to: request.to,
    by: request.by,
    ...(request.version !== undefined ? { version: request.version } : {}),
    total,
    rows,
  };
}

/**
 * The project's downloads this calendar month (UTC) so far: the downloads badge. Public traffic
 * (every README view) that is cached for 5 minutes anyway: it reads what is written, never
 * making this server write its pending counts.
 */
export async function monthDownloads(db: Db, projectId: string, now: Date): Promise<number> {
  const today = utcDay(now);
  const stats = await projectStats(
    db,
    projectId,
    { from: `${today.slice(0, 8)}01`, to: today, by: "client" },
    { flush: false },
  );
  return stats.total.downloads;
}
