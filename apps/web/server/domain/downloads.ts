// Download accounting. Every response body served from an owner's /dl URLs (release files, APT
// pool files and indexes, YUM packages and repodata) adds the bytes it handed to the client to
// the owner's monthly total, ranges and cut-off downloads by what was actually sent; a release
// file delivered to its last byte also counts as one download of that file and of the month.
// Usage and the download allowance (usage.ts) read these totals; usage.ts's countServed decides
// when a response is written (a whole file at once, other bytes batched in memory).
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";

/** The month a download counts in: UTC, "2026-11". */
export const currentMonth = (date = new Date()) => date.toISOString().slice(0, 7);

export interface Served {
  ownerId: string;
  /** Bytes of the body the client's connection took. */
  bytes: number;
  /** The release file, when this response delivered it to its last byte (one download). */
  fileId?: string;
}

/** The owner's month after a response was counted. */
export interface MonthTotals {
  month: string;
  bytes: number;
  /** The allowance warning already mailed this month: 0, 80 or 100. */
  notifiedPercent: number;
}

/** Adds served bytes to the owner's month (and a file delivered whole to its counter). */
export async function recordServed(
  db: Kysely<Database>,
  served: Served,
  month = currentMonth(),
): Promise<MonthTotals> {
  const downloads = served.fileId ? 1 : 0;
  const upsert = (tx: Kysely<Database>) =>
    tx
      .insertInto("download_month")
      .values({ owner_id: served.ownerId, month, downloads, bytes: served.bytes })
      .onConflict((oc) =>
        oc.columns(["owner_id", "month"]).doUpdateSet({
          downloads: sql`download_month.downloads + ${downloads}`,
          bytes: sql`download_month.bytes + ${served.bytes}`,
        }),
      )
      .returning(["bytes", "notified_percent"])
      .executeTakeFirstOrThrow();
  const fileId = served.fileId;
  const row = fileId
    ? await db.transaction().execute(async (tx) => {
        await tx
          .updateTable("release_file")
          .set({ download_count: sql`download_count + 1` })
          .where("id", "=", fileId)
          .execute();
        return upsert(tx);
      })
    : await upsert(db);
  return { month, bytes: Number(row.bytes), notifiedPercent: Number(row.notified_percent) };
}
