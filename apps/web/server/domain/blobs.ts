// When a blob's bytes may be placed in storage and when they may be removed. Blobs are shared:
// identical content uploaded to two releases is stored once, so an upload and a delete of the
// same bytes can meet. One rule keeps an acknowledged upload from losing its bytes:
//
//   A blob's bytes are placed or removed only inside a transaction that holds its `blob` row.
//
// - An upload upserts the row (which locks it: PostgreSQL's row lock, SQLite's single writer),
//   places the bytes, and inserts its file rows, all in one transaction.
// - A delete locks the row first (an UPDATE that changes nothing), then asks in a new statement
//   whether any file refers to it: under READ COMMITTED that statement sees every file row
//   committed before the lock was granted. Only then are the row and the bytes removed.
// - Bytes with no row (a crash before the upload committed) are removed by first inserting a
//   row for them, so a concurrent upload of the same bytes waits for the removal, or the
//   removal finds the upload's row and leaves the bytes alone.
// Decision 007 records why.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import type { BlobStore, StagedBlob } from "../storage/blob-store.ts";
import { nowIso } from "./ids.ts";

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
  await tx
    .insertInto("blob")
    .values({ sha256: staged.sha256, size: staged.size, created_at: createdAt })
    // DO UPDATE, not DO NOTHING: the update takes the row lock when the row already exists.
    .onConflict((oc) => oc.column("sha256").doUpdateSet({ size: staged.size }))
    .execute();
  await staged.commit();
}

/** Removes a blob (row and bytes) once no file refers to it. */
export async function deleteBlobIfUnreferenced(db: Db, blobs: BlobStore, sha256: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const locked = await tx
      .updateTable("blob")
      .set((eb) => ({ size: eb.ref("size") }))
      .where("sha256", "=", sha256)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) return false;
    const referenced = await tx
      .selectFrom("release_file")
      .select("id")
      .where("sha256", "=", sha256)
      .limit(1)
      .executeTakeFirst();
    if (referenced) return false;
    await tx.deleteFrom("blob").where("sha256", "=", sha256).execute();
    await blobs.delete(sha256);
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

/** Removes every blob no file refers to (after release and project deletes). */
export async function collectUnreferencedBlobs(db: Db, blobs: BlobStore): Promise<number> {
  const candidates = await db
    .selectFrom("blob")
    .select("sha256")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom("release_file").select("id").whereRef("release_file.sha256", "=", "blob.sha256"),
        ),
      ),
    )
    .execute();
  let removed = 0;
  for (const { sha256 } of candidates) if (await deleteBlobIfUnreferenced(db, blobs, sha256)) removed++;
  return removed;
}

/**
 * Removes bytes left in storage by a crash before their row committed, once not written to for
 * `graceMs`. Safe at any time by the rule above; the grace only spares work in flight.
 */
export async function collectOrphanBytes(
  db: Db,
  blobs: BlobStore,
  options: { graceMs: number },
): Promise<number> {
  let removed = 0;
  const cutoff = Date.now() - options.graceMs;
  // A page of storage at a time (S3: one ListObjectsV2 call), its rows looked up together.
  let cursor: string | undefined;
  do {
    const page = await blobs.listPage({ cursor, limit: 500 });
    cursor = page.cursor;
    const old = page.entries.filter((e) => e.modifiedAt <= cutoff).map((e) => e.sha256);
    if (old.length === 0) continue;
    const known = new Set(
      (await db.selectFrom("blob").select("sha256").where("sha256", "in", old).execute()).map(
        (r) => r.sha256,
      ),
    );
    for (const sha256 of old) {
      if (known.has(sha256)) continue;
      if (await deleteOrphanBytes(db, blobs, sha256)) removed++;
    }
  } while (cursor !== undefined);
  return removed;
}
