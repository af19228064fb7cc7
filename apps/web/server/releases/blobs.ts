// When a blob's bytes may be placed in storage and when they may be removed. Blobs are shared:
// identical content uploaded to two releases is stored once, so an upload and a removal of the
// same bytes can meet, in one process or in several on one database. One rule keeps an
// acknowledged upload from losing its bytes:
//
//   A blob's bytes are placed or removed only inside a transaction that holds its `blob` row.
//
// - An upload upserts the row (which locks it: PostgreSQL's row lock, SQLite's single writer),
//   clearing any mark, places the bytes, and inserts its file rows, all in one transaction.
// - Deleting files, releases, projects and accounts deletes rows only. Bytes are removed by
//   mark-and-sweep (decision 022): a pass marks blobs no file refers to (`unreferenced_since`);
//   a later pass, once the mark is older than the grace period, locks the row, asks in a new
//   statement whether any file refers to it (under READ COMMITTED that statement sees every file
//   row committed before the lock was granted), and only then deletes the bytes and the row.
//   Downloads already under way and links already handed out keep working for the grace period.
// - Bytes with no row (a crash before the upload committed) are removed by first inserting a
//   row for them, so a concurrent upload of the same bytes waits for the removal, or the
//   removal finds the upload's row and leaves the bytes alone.
// Decisions 007 and 022 record why.
import { type ExpressionBuilder, type Kysely, PostgresAdapter, type Transaction } from "kysely";
import { nowIso } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import type { BlobStore, StagedBlob } from "../platform/storage/blob-store.ts";
import { sweepUnknownObjects } from "../platform/storage/orphan-sweep.ts";

type Db = Kysely<Database>;

/**
 * Places a staged blob's bytes under its sha256, inside the caller's transaction, which must
 * then record the file rows that refer to it before it commits.
 */
export async function placeBlob(
  tx: Transaction<Database>,
  staged: StagedBlob,
  createdAt: string,
): Promise<void> {
  await (await startPlacingBlob(tx, staged, createdAt)).placed;
}

/**
 * placeBlob in two steps: resolves once the blob's row is held, with the placing of its bytes
 * under way (`placed`), so the caller writes its rows meanwhile (on S3 the PUT overlaps them:
 * issue 44). The caller awaits `placed` before its transaction commits, and lets it settle
 * before it gives up on a failure (so no bytes land after an undo).
 */
export async function startPlacingBlob(
  tx: Transaction<Database>,
  staged: StagedBlob,
  createdAt: string,
): Promise<{ placed: Promise<void> }> {
  await tx
    .insertInto("blob")
    .values({ sha256: staged.sha256, size: staged.size, created_at: createdAt, unreferenced_since: null })
    // DO UPDATE, not DO NOTHING: the update takes the row lock when the row already exists, and
    // clears a sweep's mark (decision 022).
    .onConflict((oc) => oc.column("sha256").doUpdateSet({ size: staged.size, unreferenced_since: null }))
    .execute();
  const placed = staged.commit();
  placed.catch(() => {});
  return { placed };
}

/**
 * placeBlob for bytes in hand (a container image's manifest): the row, then the bytes under
 * their sha256, inside the caller's transaction.
 */
export async function placeBytes(
  tx: Transaction<Database>,
  blobs: BlobStore,
  bytes: Uint8Array,
  sha256: string,
  createdAt: string,
): Promise<void> {
  await tx
    .insertInto("blob")
    .values({ sha256, size: bytes.byteLength, created_at: createdAt, unreferenced_since: null })
    .onConflict((oc) => oc.column("sha256").doUpdateSet({ unreferenced_since: null }))
    .execute();
  await blobs.putBytes(bytes, sha256);
}

/**
 * Holds the row of bytes already placed under `sha256` (a container image layer received in one
 * chunk, stored under its own digest before it was known to be complete): true if the bytes are
 * still there, checked under the row's lock, so no sweep removes them before the caller commits.
 */
export async function adoptPlacedBytes(
  tx: Transaction<Database>,
  blobs: BlobStore,
  sha256: string,
  size: number,
  createdAt: string,
): Promise<boolean> {
  await tx
    .insertInto("blob")
    .values({ sha256, size, created_at: createdAt, unreferenced_since: null })
    .onConflict((oc) => oc.column("sha256").doUpdateSet({ unreferenced_since: null }))
    .execute();
  return (await blobs.stat(sha256))?.size === size;
}

/** Whether the database is PostgreSQL (row locks with FOR UPDATE / SKIP LOCKED; SQLite has one writer). */
export const isPostgres = (db: Db | Transaction<Database>) =>
  db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The mark: notes when a blob was first seen with no file referring to it. Deleting files,
 * releases and projects only deletes rows; this and the sweep below remove the bytes later.
 * Rows an upload holds are skipped (PostgreSQL), so the mark never waits for one. A mark may be
 * stale (an upload referred to the blob since): the sweep checks again under the row's lock.
 */
export async function markUnreferencedBlobs(db: Db, now = nowIso()): Promise<number> {
  const unreferenced = (eb: ExpressionBuilder<Database, "blob">) =>
    eb.and([
      eb("unreferenced_since", "is", null),
      eb.not(
        eb.exists(
          eb.selectFrom("release_file").select("id").whereRef("release_file.sha256", "=", "blob.sha256"),
        ),
      ),
      // Container images (formats/oci): a blob a repository holds, a manifest's own bytes.
      eb.not(
        eb.exists(eb.selectFrom("oci_blob").select("sha256").whereRef("oci_blob.sha256", "=", "blob.sha256")),
      ),
      eb.not(
        eb.exists(
          eb.selectFrom("oci_manifest").select("sha256").whereRef("oci_manifest.sha256", "=", "blob.sha256"),
        ),
      ),
    ]);
  let query = db.updateTable("blob").set({ unreferenced_since: now });
  query = isPostgres(db)
    ? query.where("sha256", "in", (eb) =>
        eb.selectFrom("blob").select("sha256").where(unreferenced).forUpdate().skipLocked(),
      )
    : query.where(unreferenced);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The sweep of one blob: removes its bytes and row if it has been marked unreferenced since
 * `cutoff` or before and, checked under its row lock, no file refers to it. The bytes are
 * deleted while the lock is held, so an upload of the same content either committed its file
 * row before (and the blob stays) or waits, and then places its own bytes.
 */
export async function sweepBlob(db: Db, blobs: BlobStore, sha256: string, cutoff: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    let lock = tx
      .selectFrom("blob")
      .select("sha256")
      .where("sha256", "=", sha256)
      .where("unreferenced_since", "<=", cutoff);
    // A row an upload holds is referenced again, or about to be: skip it rather than wait.
    if (isPostgres(tx)) lock = lock.forUpdate().skipLocked();
    if (!(await lock.executeTakeFirst())) return false;
    // A new statement after the lock: under READ COMMITTED it sees every file row committed
    // before the lock was granted (a DELETE … WHERE NOT EXISTS blocked behind an upload would not).
    const referenced =
      (await tx
        .selectFrom("release_file")
        .select("id")
        .where("sha256", "=", sha256)
        .limit(1)
        .executeTakeFirst()) ??
      (await tx
        .selectFrom("oci_blob")
        .select("sha256")
        .where("sha256", "=", sha256)
        .limit(1)
        .executeTakeFirst()) ??
      (await tx
        .selectFrom("oci_manifest")
        .select("sha256")
        .where("sha256", "=", sha256)
        .limit(1)
        .executeTakeFirst());
    if (referenced) {
      await tx.updateTable("blob").set({ unreferenced_since: null }).where("sha256", "=", sha256).execute();
      return false;
    }
    await blobs.delete(sha256);
    await tx.deleteFrom("blob").where("sha256", "=", sha256).execute();
    return true;
  });
}

/** Removes bytes that no row claims (an upload cut off before it committed); false if one does. */
export async function deleteOrphanBytes(db: Db, blobs: BlobStore, sha256: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const claimed = await tx
      .insertInto("blob")
      .values({ sha256, size: 0, created_at: nowIso() })
      .onConflict((oc) => oc.column("sha256").doNothing())
      .returning("sha256")
      .executeTakeFirst();
    if (!claimed) return false;
    await blobs.delete(sha256);
    await tx.deleteFrom("blob").where("sha256", "=", sha256).execute();
    return true;
  });
}

/**
 * Mark and sweep: marks blobs no file refers to, then removes those marked at least `graceMs`
 * ago (a blob needs two passes at least the grace apart unless `graceMs` is 0).
 */
export async function collectUnreferencedBlobs(
  db: Db,
  blobs: BlobStore,
  options: { graceMs: number },
): Promise<number> {
  await markUnreferencedBlobs(db);
  const cutoff = new Date(Date.now() - options.graceMs).toISOString();
  let removed = 0;
  let after = "";
  for (;;) {
    const page = await db
      .selectFrom("blob")
      .select("sha256")
      .where("unreferenced_since", "<=", cutoff)
      .where("sha256", ">", after)
      .orderBy("sha256")
      .limit(500)
      .execute();
    for (const { sha256 } of page) if (await sweepBlob(db, blobs, sha256, cutoff)) removed++;
    if (page.length < 500) return removed;
    after = page[page.length - 1]!.sha256;
  }
}

/**
 * Removes bytes left in storage by a crash before their row committed, once not written to for
 * `graceMs`. Safe at any time by the rule above; the grace only spares work in flight.
 */
export function collectOrphanBytes(db: Db, blobs: BlobStore, options: { graceMs: number }): Promise<number> {
  return sweepUnknownObjects(
    blobs,
    options.graceMs,
    async (old) =>
      new Set(
        (await db.selectFrom("blob").select("sha256").where("sha256", "in", old).execute()).map(
          (r) => r.sha256,
        ),
      ),
    (sha256) => deleteOrphanBytes(db, blobs, sha256),
  );
}
