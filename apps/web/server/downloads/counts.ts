// Download accounting. Every response body served from an owner's /dl URLs (release files, APT
// pool files and indexes, YUM packages and repodata) adds the bytes it handed to the client to
// the owner's monthly total, ranges and cut-off downloads by what was actually sent. A release
// file's bytes — from its stable URL, APT's pool or a YUM repository — also count in the
// project's download statistics (decision 033: per file, UTC day, kind of client and
// distribution), and a file delivered to its last byte counts once for that file and the month:
// an install when a package manager fetched it, a download otherwise (the statistics tell them
// apart by the kind of client; decision 083), neither when it is a signature or a checksum
// list. Who fetched it counts as one of the project's machines of the day (machines.ts).
// Responses are added up in memory (DownloadBatch) and written in one transaction per flush
// (writeDownloadBatch); usage.ts's countServed decides when.
import { type ClientKind, DISTRIBUTION_MAX, isInstaller } from "@packyard/contract/stats.ts";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "../platform/db/schema.ts";

/**
 * The UTC day of a moment, "2026-11-24", and its month: made once per day, however many
 * responses it counts.
 */
let dayNumber = Number.NaN;
let dayText = "";
let monthText = "";
function dayOf(date: Date): string {
  const day = Math.floor(date.getTime() / 86_400_000);
  if (day !== dayNumber) {
    dayText = date.toISOString().slice(0, 10);
    monthText = dayText.slice(0, 7);
    dayNumber = day;
  }
  return dayText;
}

/** The month a download counts in: UTC, "2026-11". */
export const currentMonth = (date = new Date()) => {
  dayOf(date);
  return monthText;
};

/** The release file a response served bytes of, as its statistics name it. */
export interface ServedFile {
  id: string;
  projectId: string;
  version: string;
  filename: string;
  /** A signature or a checksum list: its bytes count, never an install or a download. */
  check?: boolean;
}

export interface Served {
  ownerId: string;
  /** Bytes of the body the client's connection took. */
  bytes: number;
  /** The release file these bytes are of; none for an index, a key or a script. */
  file?: ServedFile;
  /** The file reached the client to its last byte: one download. */
  download?: boolean;
  /** Who asked (from the User-Agent), and for which distribution: for the statistics. */
  client?: ClientKind;
  distribution?: string;
  /** The day's machine of who asked (machines.ts), when a file was served. */
  machine?: string;
  /** The entitlement token the request came with: its usage (entitlements/checks.ts). */
  entitlement?: EntitlementUse;
}

/** A response served to an entitlement token's holder. */
export interface EntitlementUse {
  id: string;
  /** The day's hash of the address and client (no address is kept with the usage). */
  machine: string;
  /** Its last use, as the token's page shows it. */
  address: string;
  userAgent: string | null;
}

interface EntitlementDayEntry {
  id: string;
  day: string;
  downloads: number;
  installs: number;
  bytes: number;
}

/** The owner's month after a batch was written. */
export interface MonthTotals {
  ownerId: string;
  month: string;
  bytes: number;
  /** The allowance warning already mailed this month: 0, 80 or 100. */
  notifiedPercent: number;
}

interface MonthEntry {
  ownerId: string;
  month: string;
  downloads: number;
  bytes: number;
}

/** A machine that installed or downloaded one of a project's files on a day. */
interface MachineEntry {
  projectId: string;
  day: string;
  machine: string;
  client: ClientKind;
}

interface StatEntry {
  file: ServedFile;
  day: string;
  client: ClientKind;
  distribution: string;
  downloads: number;
  bytes: number;
}

/** Served responses added up: per owner and month, per file, per statistics row. */
export class DownloadBatch {
  readonly months = new Map<string, MonthEntry>();
  /** Downloads per release file (its download_count). */
  readonly files = new Map<string, number>();
  readonly stats = new Map<string, StatEntry>();
  /** The projects' machines per day (distinct within this batch; the database dedupes across). */
  readonly machines = new Map<string, MachineEntry>();
  /** Per entitlement token and day; its month's bytes; its machines; its last use. */
  readonly entitlementDays = new Map<string, EntitlementDayEntry>();
  readonly entitlementMonths = new Map<string, { id: string; month: string; bytes: number }>();
  readonly entitlementMachines = new Map<string, { id: string; day: string; machine: string }>();
  readonly entitlementLastUse = new Map<string, { at: string; address: string; userAgent: string | null }>();

  get size(): number {
    return (
      this.months.size +
      this.files.size +
      this.stats.size +
      this.machines.size +
      this.entitlementDays.size +
      this.entitlementLastUse.size
    );
  }

  add(served: Served, at: Date): void {
    const downloads = served.file && served.download && !served.file.check ? 1 : 0;
    const month = currentMonth(at);
    const monthKey = `${served.ownerId} ${month}`;
    const entry = this.months.get(monthKey);
    if (entry) {
      entry.downloads += downloads;
      entry.bytes += served.bytes;
    } else this.months.set(monthKey, { ownerId: served.ownerId, month, downloads, bytes: served.bytes });
    if (served.entitlement) this.#addEntitlementUse(served, served.entitlement, at, downloads, month);
    const file = served.file;
    if (!file) return;
    if (downloads) this.files.set(file.id, (this.files.get(file.id) ?? 0) + 1);
    const day = dayOf(at);
    const client = served.client ?? "other";
    // The column's width: one over-long name must not fail a whole batch on PostgreSQL.
    const distribution = (served.distribution ?? "").slice(0, DISTRIBUTION_MAX);
    const statKey = `${file.id}\0${day}\0${client}\0${distribution}`;
    const stat = this.stats.get(statKey);
    if (stat) {
      stat.downloads += downloads;
      stat.bytes += served.bytes;
    } else this.stats.set(statKey, { file, day, client, distribution, downloads, bytes: served.bytes });
    if (downloads && served.machine)
      this.machines.set(`${file.projectId}\0${day}\0${served.machine}`, {
        projectId: file.projectId,
        day,
        machine: served.machine,
        client,
      });
  }

  /** Bytes of an entitlement token in the month this batch holds (not written yet). */
  entitlementBytes(id: string, month: string): number {
    return this.entitlementMonths.get(`${id}\0${month}`)?.bytes ?? 0;
  }

  #addEntitlementUse(served: Served, use: EntitlementUse, at: Date, downloads: number, month: string): void {
    const day = dayOf(at);
    const installs = downloads && isInstaller(served.client ?? "other") ? 1 : 0;
    const dayKey = `${use.id}\0${day}`;
    const entry = this.entitlementDays.get(dayKey);
    if (entry) {
      entry.downloads += downloads - installs;
      entry.installs += installs;
      entry.bytes += served.bytes;
    } else
      this.entitlementDays.set(dayKey, {
        id: use.id,
        day,
        downloads: downloads - installs,
        installs,
        bytes: served.bytes,
      });
    const monthKey = `${use.id}\0${month}`;
    const m = this.entitlementMonths.get(monthKey);
    if (m) m.bytes += served.bytes;
    else this.entitlementMonths.set(monthKey, { id: use.id, month, bytes: served.bytes });
    this.entitlementMachines.set(`${dayKey}\0${use.machine}`, { id: use.id, day, machine: use.machine });
    this.entitlementLastUse.set(use.id, {
      at: at.toISOString(),
      address: use.address,
      userAgent: use.userAgent,
    });
  }

  /** Adds another batch's numbers to this one (a failed write, tried again with the next). */
  merge(other: DownloadBatch): void {
    for (const [key, m] of other.months) {
      const entry = this.months.get(key);
      if (entry) {
        entry.downloads += m.downloads;
        entry.bytes += m.bytes;
      } else this.months.set(key, { ...m });
    }
    for (const [id, n] of other.files) this.files.set(id, (this.files.get(id) ?? 0) + n);
    for (const [key, s] of other.stats) {
      const entry = this.stats.get(key);
      if (entry) {
        entry.downloads += s.downloads;
        entry.bytes += s.bytes;
      } else this.stats.set(key, { ...s });
    }
    for (const [key, m] of other.machines) this.machines.set(key, m);
    for (const [key, d] of other.entitlementDays) {
      const entry = this.entitlementDays.get(key);
      if (entry) {
        entry.downloads += d.downloads;
        entry.installs += d.installs;
        entry.bytes += d.bytes;
      } else this.entitlementDays.set(key, { ...d });
    }
    for (const [key, m] of other.entitlementMonths) {
      const entry = this.entitlementMonths.get(key);
      if (entry) entry.bytes += m.bytes;
      else this.entitlementMonths.set(key, { ...m });
    }
    for (const [key, m] of other.entitlementMachines) this.entitlementMachines.set(key, m);
    // The newer use wins: this batch's, when it has one.
    for (const [id, use] of other.entitlementLastUse)
      if (!this.entitlementLastUse.has(id)) this.entitlementLastUse.set(id, use);
  }
}

/** Rows per multi-row INSERT: well under SQLite's and PostgreSQL's parameter limits. */
const STAT_ROWS_PER_INSERT = 200;

/**
 * Writes a batch in one transaction: the owners' months (upserts), the files' download counters,
 * and the statistics rows (multi-row upserts). Rows of accounts and projects deleted meanwhile
 * are dropped.
 */
export async function writeDownloadBatch(db: Kysely<Database>, batch: DownloadBatch): Promise<MonthTotals[]> {
  return db.transaction().execute(async (tx) => {
    const totals: MonthTotals[] = [];
    // In key order, so two servers writing at once lock rows in the same order (no deadlock).
    const byKey = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    // Accounts deleted meanwhile are skipped: their rows are gone, and a foreign key must not
    // fail everyone else's counts.
    const ownerIds = [...new Set([...batch.months.values()].map((m) => m.ownerId))];
    const owners =
      ownerIds.length === 0
        ? new Set<string>()
        : new Set(
            (await tx.selectFrom("user").select("id").where("id", "in", ownerIds).execute()).map((u) => u.id),
          );
    for (const [, m] of byKey(batch.months)) {
      if (!owners.has(m.ownerId)) continue;
      const row = await tx
        .insertInto("download_month")
        .values({ owner_id: m.ownerId, month: m.month, downloads: m.downloads, bytes: m.bytes })
        .onConflict((oc) =>
          oc.columns(["owner_id", "month"]).doUpdateSet({
            downloads: sql`download_month.downloads + ${m.downloads}`,
            bytes: sql`download_month.bytes + ${m.bytes}`,
          }),
        )
        .returning(["bytes", "notified_percent"])
        .executeTakeFirstOrThrow();
      totals.push({
        ownerId: m.ownerId,
        month: m.month,
        bytes: Number(row.bytes),
        notifiedPercent: Number(row.notified_percent),
      });
    }
    for (const [id, n] of byKey(batch.files))
      await tx
        .updateTable("release_file")
        .set({ download_count: sql`download_count + ${n}` })
        .where("id", "=", id)
        .execute();
    const stats = byKey(batch.stats).map(([, s]) => s);
    if (stats.length > 0) {
      const projectIds = [...new Set(stats.map((s) => s.file.projectId))];
      const existing = new Set(
        (await tx.selectFrom("project").select("id").where("id", "in", projectIds).execute()).map(
          (p) => p.id,
        ),
      );
      const rows = stats
        .filter((s) => existing.has(s.file.projectId))
        .map((s) => ({
          project_id: s.file.projectId,
          file_id: s.file.id,
          version: s.file.version,
          filename: s.file.filename,
          day: s.day,
          client: s.client,
          distribution: s.distribution,
          downloads: s.downloads,
          bytes: s.bytes,
        }));
      for (let i = 0; i < rows.length; i += STAT_ROWS_PER_INSERT)
        await tx
          .insertInto("download_stat")
          .values(rows.slice(i, i + STAT_ROWS_PER_INSERT))
          .onConflict((oc) =>
            oc.columns(["file_id", "day", "client", "distribution"]).doUpdateSet({
              downloads: sql`download_stat.downloads + excluded.downloads`,
              bytes: sql`download_stat.bytes + excluded.bytes`,
            }),
          )
          .execute();
      await writeMachines(
        tx,
        byKey(batch.machines)
          .map(([, m]) => m)
          .filter((m) => existing.has(m.projectId)),
      );
    }
    await writeEntitlementUse(tx, batch);
    return totals;
  });
}

/** "a\0b" keys of counts, and the count of each. */
function countBy<T>(rows: T[], key: (row: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
  return counts;
}

/**
 * The projects' machines of the day: each hash once per project and day (the primary key, so
 * across servers too); the rows inserted — machines not seen that day before — add to the day's
 * count per kind of client, which is what the statistics read and what stays once the hashes are
 * deleted (forget.ts).
 */
async function writeMachines(tx: Transaction<Database>, machines: MachineEntry[]): Promise<void> {
  const inserted: { project_id: string; day: string; client: string }[] = [];
  for (let i = 0; i < machines.length; i += STAT_ROWS_PER_INSERT)
    inserted.push(
      ...(await tx
        .insertInto("download_machine")
        .values(
          machines.slice(i, i + STAT_ROWS_PER_INSERT).map((m) => ({
            project_id: m.projectId,
            day: m.day,
            machine: m.machine,
            client: m.client,
          })),
        )
        .onConflict((oc) => oc.columns(["project_id", "day", "machine"]).doNothing())
        .returning(["project_id", "day", "client"])
        .execute()),
    );
  const counts = [...countBy(inserted, (m) => `${m.project_id}\0${m.day}\0${m.client}`)].sort(([a], [b]) =>
    a < b ? -1 : 1,
  );
  for (let i = 0; i < counts.length; i += STAT_ROWS_PER_INSERT)
    await tx
      .insertInto("download_machine_day")
      .values(
        counts.slice(i, i + STAT_ROWS_PER_INSERT).map(([key, n]) => {
          const [project_id, day, client] = key.split("\0") as [string, string, string];
          return { project_id, day, client, machines: n };
        }),
      )
      .onConflict((oc) =>
        oc.columns(["project_id", "day", "client"]).doUpdateSet({
          machines: sql`download_machine_day.machines + excluded.machines`,
        }),
      )
      .execute();
}

/** The last-used client is kept to this many characters (a user agent is free text). */
const CLIENT_MAX = 200;

/** The entitlement tokens' part of a batch; rows of tokens deleted meanwhile are dropped. */
async function writeEntitlementUse(tx: Transaction<Database>, batch: DownloadBatch): Promise<void> {
  if (batch.entitlementLastUse.size === 0) return;
  const ids = [...batch.entitlementLastUse.keys()].sort();
  const live = new Set(
    (await tx.selectFrom("entitlement").select("id").where("id", "in", ids).execute()).map((row) => row.id),
  );
  const byKey = <T>(map: Map<string, T>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [, m] of byKey(batch.entitlementMonths)) {
    if (!live.has(m.id)) continue;
    const use = batch.entitlementLastUse.get(m.id)!;
    await tx
      .updateTable("entitlement")
      .set({
        month_bytes: sql`case when "month" = ${m.month} then "month_bytes" + ${m.bytes} else ${m.bytes} end`,
        month: m.month,
        last_used_at: use.at,
        last_used_address: use.address.slice(0, 64),
        last_used_client: use.userAgent?.slice(0, CLIENT_MAX) ?? null,
      })
      .where("id", "=", m.id)
      .execute();
  }
  // The token's machines of the day, each once (across servers too): those not seen that day
  // before add to its day's count.
  const machines = byKey(batch.entitlementMachines)
    .map(([, m]) => m)
    .filter((m) => live.has(m.id));
  const inserted: { entitlement_id: string; day: string }[] = [];
  for (let i = 0; i < machines.length; i += STAT_ROWS_PER_INSERT)
    inserted.push(
      ...(await tx
        .insertInto("entitlement_machine")
        .values(
          machines
            .slice(i, i + STAT_ROWS_PER_INSERT)
            .map((m) => ({ entitlement_id: m.id, day: m.day, machine: m.machine })),
        )
        .onConflict((oc) => oc.columns(["entitlement_id", "day", "machine"]).doNothing())
        .returning(["entitlement_id", "day"])
        .execute()),
    );
  const newMachines = countBy(inserted, (m) => `${m.entitlement_id}\0${m.day}`);
  const days = byKey(batch.entitlementDays)
    .map(([, d]) => d)
    .filter((d) => live.has(d.id));
  for (let i = 0; i < days.length; i += STAT_ROWS_PER_INSERT)
    await tx
      .insertInto("entitlement_usage")
      .values(
        days.slice(i, i + STAT_ROWS_PER_INSERT).map((d) => ({
          entitlement_id: d.id,
          day: d.day,
          downloads: d.downloads,
          installs: d.installs,
          bytes: d.bytes,
          machines: newMachines.get(`${d.id}\0${d.day}`) ?? 0,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["entitlement_id", "day"]).doUpdateSet({
          downloads: sql`entitlement_usage.downloads + excluded.downloads`,
          installs: sql`entitlement_usage.installs + excluded.installs`,
          bytes: sql`entitlement_usage.bytes + excluded.bytes`,
          machines: sql`entitlement_usage.machines + excluded.machines`,
        }),
      )
      .execute();
}
