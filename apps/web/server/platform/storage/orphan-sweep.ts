// The sweep's walk over a store (decision 022): a page of objects at a time (S3: one
// ListObjectsV2 call), those older than the grace looked up in their table together, and each
// one the table does not know handed to `remove` (which re-checks under its own lock).
import type { BlobStore } from "./blob-store.ts";

export async function sweepUnknownObjects(
  store: BlobStore,
  graceMs: number,
  known: (sha256s: string[]) => Promise<Set<string>>,
  remove: (sha256: string) => Promise<boolean>,
): Promise<number> {
  const cutoff = Date.now() - graceMs;
  let removed = 0;
  let cursor: string | undefined;
  do {
    const page = await store.listPage({ cursor, limit: 500 });
    cursor = page.cursor;
    const old = page.entries.filter((e) => e.modifiedAt <= cutoff).map((e) => e.sha256);
    if (old.length === 0) continue;
    const rows = await known(old);
    for (const sha256 of old) {
      if (!rows.has(sha256) && (await remove(sha256))) removed++;
    }
  } while (cursor !== undefined);
  return removed;
}
