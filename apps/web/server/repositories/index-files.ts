// When a published index file's bytes may be removed from the index store. Index files are
// stored once by content and shared between generations and projects, and several servers may
// build and collect at once on one database (decision 022):
//
// - A build touches a file's `index_blob` row (upsert, touched_at = now) before it asks whether
//   the bytes are stored, and writes them if not. The upsert waits for a sweep holding the row.
//   A row the touch inserted is new content: written without asking (a HEAD less per file on
//   S3, issue 44). Writing bytes that were there after all is harmless (a content key holds
//   whole content with that hash). What must never happen, skipping a write, needs a row that
//   was there and either a committed generation referring to it (the switch below commits only
//   after the bytes were written, and the sweep never removes referred-to bytes nor, after the
//   touch, for the grace period) or bytes found stored.
// - The switch that inserts the generations referring to the files takes a shared lock on their
//   rows (PostgreSQL; SQLite has one writer) and gives up if one is gone: a sweep removed it in
//   between, so the build stores its files again.
// - Pruning generations deletes rows only. The sweep removes a file no generation refers to once
//   its last touch is older than the grace period: in one transaction per file it locks the row
//   (skipping rows others hold), checks both conditions again in new statements, deletes the
//   bytes while holding the lock, then the row.
// - Bytes with no row (a build cut off before its first touch, files written before migration
//   0015) are removed, once not written to for the grace period, by inserting a row for them
//   first, as for release blobs (releases/blobs.ts).
import { type Kysely, sql, type Transaction } from "kysely";
import { nowIso } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { sweepUnknownObjects } from "../platform/storage/orphan-sweep.ts";
import { isPostgres } from "../releases/blobs.ts";

type Db = Kysely<Database>;

/**
 * What a touch found of a file: `new` when it inserted the row (content no build had touched, or
 * swept since: written without asking the store), `stored` when the row was there and a
 * generation refers to it (a switch committed it, so its bytes were written, and the fresh touch
 * keeps any sweep off them for the grace period: not asked either), `unknown` otherwise (a row
 * there with no generation, as a build cut off between its touch and its write leaves it: the
 * store is asked).
 */
export type TouchedFile = "new" | "stored" | "unknown";

/**
 * Records that a build is using the files now (one statement for all); waits while a sweep holds
 * one of their rows. Returns what it found of each hash (`TouchedFile`). A hash taken for new by
 * mistake costs a write of the same bytes again; one taken for unknown, a question to the store:
 * neither loses anything.
 */
export async function touchIndexFiles(
  db: Db,
  files: readonly { sha256: string; size: number }[],
): Promise<Map<string, TouchedFile>> {
  const found = new Map<string, TouchedFile>();
  if (files.length === 0) return found;
  const touched = nowIso();
  // One row per file: the same content twice in one statement would be an upsert conflict.
  const rows = [
    ...new Map(
      files.map((f) => [f.sha256, { sha256: f.sha256, size: f.size, touched_at: touched }]),
    ).values(),
  ];
  const upsert = db
    .insertInto("index_blob")
    .values(rows)
    .onConflict((oc) => oc.column("sha256").doUpdateSet({ touched_at: touched }));
  if (isPostgres(db)) {
    // xmax is 0 in a row version the statement inserted; one it updated carries the lock the
    // upsert took on the existing row (the usual way to tell the two apart in one round trip).
    // The generations are those committed before the statement began (READ COMMITTED): one
    // pruned since cannot matter, as the touch already keeps the sweep away.
    const result = await upsert
      .returning([
        "sha256",
        sql<boolean>`(xmax = 0)`.as("inserted"),
        sql<boolean>`exists (select 1 from repo_index_file where repo_index_file.sha256 = index_blob.sha256)`.as(
          "referenced",
        ),
      ])
      .execute();
    for (const row of result)
      found.set(row.sha256, row.inserted ? "new" : row.referenced ? "stored" : "unknown");
    return found;
  }
  // SQLite (one writer, in-process): the rows there before, asked first. A build or sweep in
  // another process in between only makes a guess wrong in one of the harmless ways above.
  for (const row of rows) found.set(row.sha256, "new");
  for (let i = 0; i < rows.length; i += 500) {
    const there = await db
      .selectFrom("index_blob")
      .select([
        "sha256",
        (eb) =>
          eb
            .exists(
              eb
                .selectFrom("repo_index_file")
                .select("generation_id")
                .whereRef("repo_index_file.sha256", "=", "index_blob.sha256"),
            )
            .as("referenced"),
      ])
      .where(
        "sha256",
        "in",
        rows.slice(i, i + 500).map((row) => row.sha256),
      )
      .execute();
    for (const row of there) found.set(row.sha256, row.referenced ? "stored" : "unknown");
  }
  await upsert.execute();
  return found;
}

/**
 * Inside the switch: locks the rows of the files the new generations refer to (shared, so
 * switches never wait for each other) and returns the hashes whose row is gone.
 */
export async function missingIndexFiles(
  tx: Transaction<Database>,
  sha256s: Iterable<string>,
): Promise<string[]> {
  const wanted = [...new Set(sha256s)].sort();
  const found = new Set<string>();
  for (let i = 0; i < wanted.length; i += 500) {
    let query = tx
      .selectFrom("index_blob")
      .select("sha256")
      .where("sha256", "in", wanted.slice(i, i + 500))
      .orderBy("sha256");
    if (isPostgres(tx)) query = query.forShare();
    for (const row of await query.execute()) found.add(row.sha256);
  }
  return wanted.filter((sha256) => !found.has(sha256));
}

/**
 * Removes one index file if no generation refers to it and no build has touched it since
 * `cutoff`, checked under its row lock; the bytes go while the lock is held.
 */
export async function sweepIndexFile(
  db: Db,
  store: BlobStore,
  sha256: string,
  cutoff: string,
): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    let lock = tx.selectFrom("index_blob").select("sha256").where("sha256", "=", sha256);
    // A row a build or a switch holds is in use: skip it rather than wait.
    if (isPostgres(tx)) lock = lock.forUpdate().skipLocked();
    if (!(await lock.executeTakeFirst())) return false;
    // New statements after the lock: under READ COMMITTED they see every touch and every
    // generation committed before the lock was granted.
    const row = await tx
      .selectFrom("index_blob")
      .select("touched_at")
      .where("sha256", "=", sha256)
      .executeTakeFirst();
    if (!row || row.touched_at > cutoff) return false;
    const referenced = await tx
      .selectFrom("repo_index_file")
      .select("generation_id")
      .where("sha256", "=", sha256)
      .limit(1)
      .executeTakeFirst();
    if (referenced) return false;
    await store.delete(sha256);
    await tx.deleteFrom("index_blob").where("sha256", "=", sha256).execute();
    return true;
  });
}

/** Sweeps every index file no generation refers to and no build touched for `graceMs`. */
export async function sweepIndexFiles(db: Db, store: BlobStore, graceMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - graceMs).toISOString();
  let removed = 0;
  let after = "";
  for (;;) {
    const page = await db
      .selectFrom("index_blob")
      .select("sha256")
      .where("touched_at", "<=", cutoff)
      .where("sha256", ">", after)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom("repo_index_file")
              .select("generation_id")
              .whereRef("repo_index_file.sha256", "=", "index_blob.sha256"),
          ),
        ),
      )
      .orderBy("sha256")
      .limit(500)
      .execute();
    for (const { sha256 } of page) if (await sweepIndexFile(db, store, sha256, cutoff)) removed++;
    if (page.length < 500) return removed;
    after = page[page.length - 1]!.sha256;
  }
}

/** Removes index-file bytes no row claims; false when one does (or a generation refers to them). */
export async function deleteOrphanIndexBytes(db: Db, store: BlobStore, sha256: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    // The claim: a build touching the same file waits for it, or the claim finds the build's row.
    const claimed = await tx
      .insertInto("index_blob")
      .values({ sha256, size: 0, touched_at: new Date(0).toISOString() })
      .onConflict((oc) => oc.column("sha256").doNothing())
      .returning("sha256")
      .executeTakeFirst();
    if (!claimed) return false;
    const referenced = await tx
      .selectFrom("repo_index_file")
      .select("generation_id")
      .where("sha256", "=", sha256)
      .limit(1)
      .executeTakeFirst();
    if (referenced) {
      // Referred to but untracked (cannot happen after migration 0015): tracked from now on.
      await tx.updateTable("index_blob").set({ touched_at: nowIso() }).where("sha256", "=", sha256).execute();
      return false;
    }
    await store.delete(sha256);
    await tx.deleteFrom("index_blob").where("sha256", "=", sha256).execute();
    return true;
  });
}

/** Index-file bytes in the store that no row claims, not written to for `graceMs`, removed. */
export function collectOrphanIndexBytes(db: Db, store: BlobStore, graceMs: number): Promise<number> {
  return sweepUnknownObjects(
    store,
    graceMs,
    async (old) =>
      new Set(
        (await db.selectFrom("index_blob").select("sha256").where("sha256", "in", old).execute()).map(
          (r) => r.sha256,
        ),
      ),
    (sha256) => deleteOrphanIndexBytes(db, store, sha256),
  );
}
