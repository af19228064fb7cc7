// Reading download statistics (decisions 033 and 083): one function answers GET
// /api/v1/projects/{slug}/stats and feeds the dashboard's chart and tables, so both show the
// same numbers. Rows are written by downloads/counts.ts; this server's counts still in memory
// are written first, so a single server shows its own downloads at once. A row's files are
// installs when its kind of client is a package manager, downloads otherwise; machines are the
// days' counts of distinct machines (download_machine_day), per day or per kind of client.
import {
  daysOf,
  INSTALLER_KINDS,
  type ProjectStats,
  type StatsGrouping,
  type StatsPeriod,
  type StatsRow,
  type StatsTotal,
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

/** The package managers' kinds, as SQL: `client in (…)`. */
const installer = sql`client in (${sql.join(INSTALLER_KINDS.map((kind) => sql.lit(kind)))})`;

/** A sum as the drivers give it: a number, or a string for PostgreSQL's bigint. */
type Sum = number | string;

/**
 * Distinct machines per day or per kind of client (added up over the days), and in all; none
 * when the request names a version (machines are counted per project, not per release).
 */
async function machinesOf(
  db: Db,
  projectId: string,
  request: StatsRequest,
): Promise<{ byKey?: Map<string, number>; total: number } | undefined> {
  if (request.version !== undefined) return undefined;
  const base = db
    .selectFrom("download_machine_day")
    .where("project_id", "=", projectId)
    .where("day", ">=", request.from)
    .where("day", "<=", request.to);
  if (request.by === "day" || request.by === "client") {
    const grouped = await base
      .select([sql<string>`${sql.ref(request.by)}`.as("key"), sql<Sum>`sum(machines)`.as("machines")])
      .groupBy(request.by)
      .execute();
    const byKey = new Map(grouped.map((r) => [r.key, Number(r.machines)]));
    return { byKey, total: [...byKey.values()].reduce((a, b) => a + b, 0) };
  }
  const row = await base.select(sql<Sum | null>`sum(machines)`.as("machines")).executeTakeFirst();
  return { total: Number(row?.machines ?? 0) };
}

/** A project's installs, downloads, bytes and machines over a period (both ends included), grouped one way. */
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
    sql<Sum>`sum(case when ${installer} then downloads else 0 end)`.as("installs"),
    sql<Sum>`sum(case when ${installer} then 0 else downloads end)`.as("downloads"),
    sql<Sum>`sum(bytes)`.as("bytes"),
  ] as const;
  const grouped: { key: string; version?: string; installs: Sum; downloads: Sum; bytes: Sum }[] =
    request.by === "file"
      ? await query
          .select([sql<string>`filename`.as("key"), "version", ...sums])
          .groupBy(["filename", "version"])
          .execute()
      : await query
          .select([sql<string>`${sql.ref(column)}`.as("key"), ...sums])
          .groupBy(column)
          .execute();
  const machines = await machinesOf(db, projectId, request);
  const perRow = machines?.byKey;
  const row = (key: string, counts?: (typeof grouped)[number]): StatsRow => ({
    key,
    ...(request.by === "file" ? { version: counts?.version } : {}),
    installs: Number(counts?.installs ?? 0),
    downloads: Number(counts?.downloads ?? 0),
    bytes: Number(counts?.bytes ?? 0),
    ...(perRow ? { machines: perRow.get(key) ?? 0 } : {}),
  });
  let rows: StatsRow[];
  if (request.by === "day") {
    const byDay = new Map(grouped.map((r) => [r.key, r]));
    rows = daysOf(request).map((day) => row(day, byDay.get(day)));
  } else {
    rows = grouped.map((r) => row(r.key, r));
    rows.sort(
      (a, b) =>
        b.installs + b.downloads - (a.installs + a.downloads) ||
        b.bytes - a.bytes ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) ||
        ((a.version ?? "") < (b.version ?? "") ? -1 : 1),
    );
  }
  const total: StatsTotal = { installs: 0, downloads: 0, bytes: 0 };
  for (const r of rows) {
    total.installs += r.installs;
    total.downloads += r.downloads;
    total.bytes += r.bytes;
  }
  if (machines) total.machines = machines.total;
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
 * The project's installs and downloads this calendar month (UTC) so far: the badges. Public
 * traffic (every README view) that is cached for 5 minutes anyway: it reads what is written,
 * never making this server write its pending counts.
 */
export async function monthCounts(
  db: Db,
  projectId: string,
  now: Date,
): Promise<{ installs: number; downloads: number }> {
  const today = utcDay(now);
  const row = await db
    .selectFrom("download_stat")
    .select([
      sql<Sum | null>`sum(case when ${installer} then downloads else 0 end)`.as("installs"),
      sql<Sum | null>`sum(case when ${installer} then 0 else downloads end)`.as("downloads"),
    ])
    .where("project_id", "=", projectId)
    .where("day", ">=", `${today.slice(0, 8)}01`)
    .where("day", "<=", today)
    .executeTakeFirst();
  return { installs: Number(row?.installs ?? 0), downloads: Number(row?.downloads ?? 0) };
}
