// Download accounting: a completed download adds one to the file's counter and to the owner's
// monthly totals (count and bytes), which usage and plan limits read.
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";

export const currentMonth = (date = new Date()) => date.toISOString().slice(0, 7);

export async function recordDownload(
  db: Kysely<Database>,
  file: { id: string; ownerId: string; bytes: number },
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable("release_file")
      .set({ download_count: sql`download_count + 1` })
      .where("id", "=", file.id)
      .execute();
    await tx
      .insertInto("download_month")
      .values({ owner_id: file.ownerId, month: currentMonth(), downloads: 1, bytes: file.bytes })
      .onConflict((oc) =>
        oc.columns(["owner_id", "month"]).doUpdateSet({
          downloads: sql`download_month.downloads + 1`,
          bytes: sql`download_month.bytes + ${file.bytes}`,
        }),
      )
      .execute();
  });
}
