// The digests of a stored file besides its sha256 (sha512, sha1, md5), when the upload did not
// compute them while receiving it. An upload hashes with sha256 only once the body passes a few
// MiB (a .deb with md5 and sha1 too: its Packages stanza lists them), so a large file is
// received at about the speed of one hash (decisions 036, 047). The rest are filled in here,
// after the upload's transaction committed, off the request path:
// - right after the upload, by this process, one blob at a time (fillDigestsSoon);
// - and by the collect-garbage pass (at start-up, then every ten minutes), for rows a crash or
//   a copy made meanwhile (promotion) left without them (fillMissingDigests).
// A missing digest is "" in its column; the API shows sha512 as null until it is filled.
// Identical content shares its digests: a blob already known is filled by copying them.
import type { Kysely } from "kysely";
import type { Database } from "../platform/db/schema.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { digestStream } from "../platform/storage/digests.ts";

type Db = Kysely<Database>;

/** Fills the rows of one blob; returns how many rows it updated. */
export async function fillDigests(db: Db, blobs: BlobStore, sha256: string): Promise<number> {
  const known = await db
    .selectFrom("release_file")
    .select(["sha512", "sha1", "md5"])
    .where("sha256", "=", sha256)
    .where("sha512", "!=", "")
    .where("sha1", "!=", "")
    .where("md5", "!=", "")
    .limit(1)
    .executeTakeFirst();
  let digests = known;
  if (!digests) {
    const exists = await db
      .selectFrom("release_file")
      .select("id")
      .where("sha256", "=", sha256)
      .limit(1)
      .executeTakeFirst();
    // The file was deleted meanwhile: nothing to fill (its bytes may be gone too).
    if (!exists) return 0;
    // The stored bytes' chunks are this read's own: freed as soon as hashed.
    const computed = await digestStream(await blobs.open(sha256), undefined, { releaseChunks: true });
    if (computed.sha256 !== sha256) throw new Error(`blob ${sha256} reads back as ${computed.sha256}`);
    digests = { sha512: computed.sha512, sha1: computed.sha1, md5: computed.md5 };
  }
  const result = await db
    .updateTable("release_file")
    .set(digests)
    .where("sha256", "=", sha256)
    .where((eb) => eb.or([eb("sha512", "=", ""), eb("sha1", "=", ""), eb("md5", "=", "")]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Fills every row still missing a digest, a blob at a time; returns how many blobs it filled. */
export async function fillMissingDigests(db: Db, blobs: BlobStore): Promise<number> {
  let filled = 0;
  let after = "";
  for (;;) {
    const page = await db
      .selectFrom("release_file")
      .select("sha256")
      .distinct()
      .where((eb) => eb.or([eb("sha512", "=", ""), eb("sha1", "=", ""), eb("md5", "=", "")]))
      .where("sha256", ">", after)
      .orderBy("sha256")
      .limit(100)
      .execute();
    for (const { sha256 } of page) if ((await fillDigests(db, blobs, sha256)) > 0) filled++;
    if (page.length < 100) return filled;
    after = page[page.length - 1]!.sha256;
  }
}

// This process's fills, one blob at a time so that several large uploads do not hash at once.
let queue: Promise<void> = Promise.resolve();

/**
 * Fills one blob's rows after the current request, in the background; a failure is left to the
 * collect-garbage pass (reported through `onError`).
 */
export function fillDigestsSoon(
  db: Db,
  blobs: BlobStore,
  sha256: string,
  onError: (error: unknown) => void = () => {},
): void {
  queue = queue.then(() => fillDigests(db, blobs, sha256).then(() => {}, onError));
}

/** Resolves once the fills asked for so far have finished (tests, the benchmark, shutdown). */
export function digestFillsSettled(): Promise<void> {
  return queue;
}
