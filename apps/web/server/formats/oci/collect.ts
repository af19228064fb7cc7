// Garbage collection of container images (issue 41): a blob an image holds that no manifest of
// that image needs is released once it was uploaded more than the grace period ago (a push sends
// its blobs before its manifest), and uploads left unfinished as long are forgotten. The blob's
// bytes are then the blob store's mark-and-sweep's to remove when nothing else holds them
// (releases/blobs.ts, decision 022).
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";
import { isPostgres } from "../../releases/blobs.ts";

type Db = Kysely<Database>;

/** Releases unneeded blobs and forgets stale uploads; returns how many of each. */
export async function collectImageLeftovers(
  db: Db,
  graceMs: number,
): Promise<{ blobs: number; uploads: number }> {
  const cutoff = new Date(Date.now() - graceMs).toISOString();
  const uploads = Number(
    (await db.deleteFrom("oci_upload").where("updated_at", "<", cutoff).executeTakeFirst()).numDeletedRows,
  );
  const candidates = await db
    .selectFrom("oci_blob")
    .select(["repository_id", "sha256"])
    .where("created_at", "<", cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("oci_manifest_ref")
            .select("manifest")
            .whereRef("oci_manifest_ref.repository_id", "=", "oci_blob.repository_id")
            .whereRef("oci_manifest_ref.sha256", "=", "oci_blob.sha256"),
        ),
      ),
    )
    .execute();
  let blobs = 0;
  for (const { repository_id, sha256 } of candidates) {
    // Like the blob sweep: the row locked first (a push holding it is skipped), then a new
    // statement asks whether a manifest needs it, which sees every push committed before the lock.
    const released = await db.transaction().execute(async (tx) => {
      let lock = tx
        .selectFrom("oci_blob")
        .select("sha256")
        .where("repository_id", "=", repository_id)
        .where("sha256", "=", sha256);
      if (isPostgres(tx)) lock = lock.forUpdate().skipLocked();
      if (!(await lock.executeTakeFirst())) return false;
      const needed = await tx
        .selectFrom("oci_manifest_ref")
        .select("manifest")
        .where("repository_id", "=", repository_id)
        .where("sha256", "=", sha256)
        .executeTakeFirst();
      if (needed) return false;
      await tx
        .deleteFrom("oci_blob")
        .where("repository_id", "=", repository_id)
        .where("sha256", "=", sha256)
        .execute();
      return true;
    });
    if (released) blobs++;
  }
  return { blobs, uploads };
}
