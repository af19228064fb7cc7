// An account's usage against its plan (docs/decisions/018-plan-limits.md):
//
// - Private projects: the owner's projects whose visibility is private.
// - Storage: the sizes of the owner's release files added up. A file counts once per release it
//   is in, even when identical bytes are stored once: what the owner sees listed is what counts,
//   and deleting a file frees exactly its size.
// - Downloads this month: the bytes served from the owner's /dl URLs in the calendar month (UTC),
//   counted as they are delivered (downloads.ts).
//
// The limits themselves are decided in authorization.ts; this module reads the numbers, and
// warns the owner (mail) when the month's downloads pass 80 % and 100 % of the allowance.
import type { Usage } from "@packyard/contract";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import { type PlanId, plans } from "@packyard/contract/plans.ts";
import type { Kysely } from "kysely";
import {
  currentMonth,
  DownloadBatch,
  type MonthTotals,
  type Served,
  writeDownloadBatch,
} from "../downloads/counts.ts";
import { ownerRecipients } from "../orgs/storage.ts";
import type { Config } from "../platform/config/config.ts";
import type { AccountHoldings } from "../platform/core/authorization.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { downloadAllowanceMail } from "../platform/mail/templates.ts";
import type { Logger } from "../platform/observability/logger.ts";
import { accountPlan, limitsEnabled } from "./plan.ts";

type Db = Kysely<Database>;

/** Whether plan limits apply (PLAN_LIMITS): what the checking domain functions are given. */
export type LimitsSetting = Pick<Config, "planLimits">;

/**
 * The bytes of the owner's files: every release file of every project they own, and their
 * container images' blobs and manifests, each distinct one once (layers shared between images
 * and tags are stored once, and counted once).
 */
export async function storageBytes(db: Db, ownerId: string): Promise<number> {
  const [files, images] = await Promise.all([
    db
      .selectFrom("release_file")
      .innerJoin("release", "release.id", "release_file.release_id")
      .innerJoin("project", "project.id", "release.project_id")
      .select((eb) => eb.fn.sum<number | string | null>("release_file.size").as("bytes"))
      .where("project.owner_id", "=", ownerId)
      .executeTakeFirst(),
    db
      .selectFrom((eb) =>
        eb
          .selectFrom("oci_blob")
          .innerJoin("oci_repository", "oci_repository.id", "oci_blob.repository_id")
          .innerJoin("project", "project.id", "oci_repository.project_id")
          .select(["oci_blob.sha256", "oci_blob.size"])
          .where("project.owner_id", "=", ownerId)
          .union(
            eb
              .selectFrom("oci_manifest")
              .innerJoin("oci_repository", "oci_repository.id", "oci_manifest.repository_id")
              .innerJoin("project", "project.id", "oci_repository.project_id")
              .select(["oci_manifest.sha256", "oci_manifest.size"])
              .where("project.owner_id", "=", ownerId),
          )
          .as("held"),
      )
      .select((eb) => eb.fn.sum<number | string | null>("held.size").as("bytes"))
      .executeTakeFirst(),
  ]);
  return Number(files?.bytes ?? 0) + Number(images?.bytes ?? 0);
}

/** How many private projects the owner has. */
export async function privateProjectCount(
  db: Db,
  ownerId: string,
  excludeProjectId?: string,
): Promise<number> {
  let query = db
    .selectFrom("project")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("owner_id", "=", ownerId)
    .where("visibility", "=", "private");
  if (excludeProjectId) query = query.where("id", "!=", excludeProjectId);
  const { n } = await query.executeTakeFirstOrThrow();
  return Number(n);
}

/** The owner's plan and what they hold against it, for the checks in authorization.ts. */
export async function accountHoldings(db: Db, ownerId: string): Promise<AccountHoldings> {
  // Asked at once: on a pool (an upload's check, before its transaction) each is a round trip
  // of its own connection; in a transaction they queue on its one connection as before.
  const [account, privateProjects, bytes] = await Promise.all([
    accountPlan(db, ownerId),
    privateProjectCount(db, ownerId),
    storageBytes(db, ownerId),
  ]);
  return { plan: account.plan, privateProjects, storageBytes: bytes };
}

async function monthRow(db: Db, ownerId: string, month: string) {
  return db
    .selectFrom("download_month")
    .select(["downloads", "bytes"])
    .where("owner_id", "=", ownerId)
    .where("month", "=", month)
    .executeTakeFirst();
}

export async function accountUsage(db: Db, ownerId: string): Promise<Usage> {
  const plan = plans[(await accountPlan(db, ownerId)).plan];
  const projects = await db
    .selectFrom("project")
    .select(["visibility", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("owner_id", "=", ownerId)
    .groupBy("visibility")
    .execute();
  const releases = await db
    .selectFrom("release")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("project.owner_id", "=", ownerId)
    .executeTakeFirstOrThrow();
  const month = await monthRow(db, ownerId, currentMonth());
  const count = (v: string) => Number(projects.find((p) => p.visibility === v)?.n ?? 0);
  return {
    plan: plan.id,
    storageBytes: await storageBytes(db, ownerId),
    storageLimitBytes: plan.storageBytes,
    downloadBytesThisMonth: Number(month?.bytes ?? 0),
    downloadLimitBytesPerMonth: plan.downloadBytesPerMonth,
    downloadsThisMonth: Number(month?.downloads ?? 0),
    projects: count("public") + count("private"),
    privateProjects: count("private"),
    releases: Number(releases.n),
  };
}

// ---------------------------------------------------------------------------------------------
// What the usage bars show (/dashboard and /subscription load the same numbers).

/** One measure against its limit; `limit` null: none applies (unlimited, or PLAN_LIMITS=off). */
export interface UsageMeasure {
  used: number;
  limit: number | null;
}

export interface UsageSummary {
  plan: PlanId;
  planName: string;
  /** False when PLAN_LIMITS=off: the numbers are shown, no limit applies. */
  limited: boolean;
  /** The month the downloads are counted in, UTC: "2026-11". */
  month: string;
  privateProjects: UsageMeasure;
  storageBytes: UsageMeasure;
  downloadBytes: UsageMeasure;
}

export async function usageSummary(
  db: Db,
  setting: LimitsSetting,
  userId: string,
  now = new Date(),
): Promise<UsageSummary> {
  const plan = plans[(await accountPlan(db, userId, now)).plan];
  const limited = limitsEnabled(setting);
  const month = currentMonth(now);
  const downloads = await monthRow(db, userId, month);
  const limit = (value: number | "unlimited") => (limited && value !== "unlimited" ? value : null);
  return {
    plan: plan.id,
    planName: plan.name,
    limited,
    month,
    privateProjects: { used: await privateProjectCount(db, userId), limit: limit(plan.privateProjects) },
    storageBytes: { used: await storageBytes(db, userId), limit: limit(plan.storageBytes) },
    downloadBytes: { used: Number(downloads?.bytes ?? 0), limit: limit(plan.downloadBytesPerMonth) },
  };
}

// ---------------------------------------------------------------------------------------------
// The month's download allowance: a warning at 80 % and 100 %, never a cut-off.

export type AllowanceLevel = 80 | 100;

/** The warning level the month's bytes reached, if any. */
export function allowanceLevel(bytes: number, allowance: number): AllowanceLevel | undefined {
  if (bytes >= allowance) return 100;
  if (bytes >= allowance * 0.8) return 80;
  return undefined;
}

/** What the dashboard's banner says: the level reached this month, with the numbers. */
export interface DownloadAlert {
  percent: AllowanceLevel;
  usedBytes: number;
  allowanceBytes: number;
  planName: string;
  month: string;
}

/** The dashboard banner's data: undefined under 80 % of the allowance, or with limits off. */
export async function downloadAlert(
  db: Db,
  setting: LimitsSetting,
  userId: string,
  now = new Date(),
): Promise<DownloadAlert | undefined> {
  if (!limitsEnabled(setting)) return undefined;
  const month = currentMonth(now);
  const row = await monthRow(db, userId, month);
  const usedBytes = Number(row?.bytes ?? 0);
  if (usedBytes < smallestAllowance * 0.8) return undefined;
  const plan = plans[(await accountPlan(db, userId, now)).plan];
  const percent = allowanceLevel(usedBytes, plan.downloadBytesPerMonth);
  if (!percent) return undefined;
  return { percent, usedBytes, allowanceBytes: plan.downloadBytesPerMonth, planName: plan.name, month };
}

/** Below 80 % of the smallest allowance no plan can be near its own: no need to look it up. */
const smallestAllowance = Math.min(...Object.values(plans).map((p) => p.downloadBytesPerMonth));

/** "2026-11" → "November 2026". */
export function monthName(month: string): string {
  const [year, number] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleString("en-US", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

export interface DownloadAccountingDeps {
  db: Db;
  mailer: Mailer;
  config: Pick<Config, "planLimits" | "baseUrl">;
  logger: Logger;
  /** What time it is: the day and month a download counts in (tests move it). */
  clock?: () => Date;
}

/**
 * Counts a response served from an owner's /dl URLs, after it was delivered: it never delays or
 * fails the download, and never writes to the database on the download path. Every response
 * (whole files, ranges, cut-off downloads, APT and YUM packages and indexes) is added up in
 * memory and written every FLUSH_MS and at shutdown, in one transaction: the owners' months, the
 * files' download counters and the statistics rows (decision 033; measured in
 * docs/benchmarks.md). Each write may send an owner the month's 80 % or 100 % mail (once per
 * month and level; a write that takes the month past both at once sends the 100 % mail only).
 * Failures are logged, never thrown; a failed write is tried again once with the next.
 */
export function countServed(deps: DownloadAccountingDeps, served: Served): void {
  if (served.bytes <= 0 && !served.download) return;
  pendingFor(deps).add(served, deps.clock ? deps.clock() : new Date());
}

/**
 * Writes what waits in memory now: at shutdown (services.close()), in tests, and before this
 * server answers with download numbers (a single server then shows its own downloads at once).
 */
export function flushDownloadCounts(db: Db): Promise<void> {
  return pendingCounts.get(db)?.flush() ?? Promise.resolve();
}

/**
 * Bytes an entitlement token was served this month on this server that are not in the database
 * yet (waiting, being written, or to be tried again): what its row's month_bytes lacks.
 */
export function unwrittenEntitlementBytes(db: Db, id: string, month: string): number {
  return pendingCounts.get(db)?.entitlementBytes(id, month) ?? 0;
}

export const FLUSH_MS = 2000;

/** Responses served and not written yet, and the write under way. */
class PendingCounts {
  private batch = new DownloadBatch();
  /** A batch whose write failed once, tried again with the next. */
  private retry: DownloadBatch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Batches handed to a write and not committed yet: their counts are not in the database. */
  private readonly queued = new Set<DownloadBatch>();
  private readonly deps: DownloadAccountingDeps;

  constructor(deps: DownloadAccountingDeps) {
    this.deps = deps;
  }

  add(served: Served, at: Date): void {
    this.batch.add(served, at);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  entitlementBytes(id: string, month: string): number {
    return (
      this.batch.entitlementBytes(id, month) +
      (this.retry?.entitlementBytes(id, month) ?? 0) +
      [...this.queued].reduce((sum, queued) => sum + queued.entitlementBytes(id, month), 0)
    );
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = new DownloadBatch();
    this.queued.add(batch);
    // One write at a time, in order.
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: DownloadBatch): Promise<void> {
    const retried = this.retry;
    this.retry = undefined;
    if (retried) batch.merge(retried);
    if (batch.size === 0) {
      this.queued.delete(batch);
      return;
    }
    let totals: MonthTotals[];
    try {
      totals = await writeDownloadBatch(this.deps.db, batch);
      this.queued.delete(batch);
    } catch (error) {
      this.queued.delete(batch);
      if (retried) this.deps.logger.error("counting downloads failed twice: these counts are lost", error);
      else {
        this.deps.logger.error("counting downloads failed: trying again with the next write", error);
        this.retry = batch;
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
      }
      return;
    }
    for (const month of totals) {
      try {
        await warnAboutAllowance(this.deps, month.ownerId, month, (this.deps.clock ?? (() => new Date()))());
      } catch (error) {
        this.deps.logger.error("the download allowance mail failed", error);
      }
    }
  }
}

const pendingCounts = new WeakMap<Db, PendingCounts>();

function pendingFor(deps: DownloadAccountingDeps): PendingCounts {
  let pending = pendingCounts.get(deps.db);
  if (!pending) {
    pending = new PendingCounts(deps);
    pendingCounts.set(deps.db, pending);
  }
  return pending;
}

async function warnAboutAllowance(
  deps: DownloadAccountingDeps,
  ownerId: string,
  totals: MonthTotals,
  now: Date,
): Promise<void> {
  if (!limitsEnabled(deps.config) || totals.notifiedPercent >= 100) return;
  if (totals.bytes < smallestAllowance * 0.8) return;
  const plan = plans[(await accountPlan(deps.db, ownerId, now)).plan];
  const level = allowanceLevel(totals.bytes, plan.downloadBytesPerMonth);
  if (!level || level <= totals.notifiedPercent) return;
  // Claimed in the database first, so concurrent downloads send it once.
  const claimed = await deps.db
    .updateTable("download_month")
    .set({ notified_percent: level })
    .where("owner_id", "=", ownerId)
    .where("month", "=", totals.month)
    .where("notified_percent", "<", level)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return;
  // The person, or an organization's owners (decision 040).
  const recipients = await ownerRecipients(deps.db, ownerId);
  if (recipients.length === 0) return;
  try {
    for (const user of recipients)
      await deps.mailer.send(
        downloadAllowanceMail(user.email, user.name, {
          percent: level,
          planName: plan.name,
          month: monthName(totals.month),
          used: formatFileSize(totals.bytes),
          allowance: formatFileSize(plan.downloadBytesPerMonth),
          pricingUrl: `${deps.config.baseUrl}/pricing`,
        }),
      );
  } catch (error) {
    // Not sent: give the level back, so the next download tries again.
    await deps.db
      .updateTable("download_month")
      .set({ notified_percent: totals.notifiedPercent })
      .where("owner_id", "=", ownerId)
      .where("month", "=", totals.month)
      .where("notified_percent", "=", level)
      .execute();
    throw error;
  }
}
