// The compressed blocks of a suite's served Packages.gz and Packages.xz, taken back from the
// index store: the first build in a fresh process (or after the memory budget dropped the
// suite's blocks) reuses every block whose text did not change instead of compressing the whole
// index again — gzip and, above all, xz of every block was most of that build (issue 16).
import { splitGzipMembers } from "@packyard/formats/compress/gzip-members.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { BlobStore } from "../../storage/blob-store.ts";
import { type CachedXzBlock, splitXzStream } from "./xz-blocks.ts";

/** A block of the served index: its gzip member (with its text) and its xz block. */
export interface RestoredBlock {
  gzip: { open: Buffer; member: Uint8Array };
  xz?: CachedXzBlock;
}

/** Per index path (main/binary-amd64/Packages), the served blocks by their text. */
export type RestoredBlocks = Map<string, Map<string, RestoredBlock>>;

async function readAll(store: BlobStore, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The blocks of the newest generation of the suite. Anything unreadable is left out (the build
 * then compresses those blocks): a restore never fails a publish.
 */
export async function restoreServedBlocks(
  db: Kysely<Database>,
  store: BlobStore,
  projectId: string,
  suite: string,
  warn: (message: string) => void,
): Promise<RestoredBlocks> {
  const restored: RestoredBlocks = new Map();
  const generation = await db
    .selectFrom("repo_generation")
    .select("id")
    .where("project_id", "=", projectId)
    .where("format", "=", "apt")
    .where("name", "=", suite)
    .orderBy("number", "desc")
    .executeTakeFirst();
  if (!generation) return restored;
  const files = await db
    .selectFrom("repo_index_file")
    .select(["path", "sha256"])
    .where("generation_id", "=", generation.id)
    .where((eb) => eb.or([eb("path", "like", "%/Packages.gz"), eb("path", "like", "%/Packages.xz")]))
    .execute();
  const byPath = new Map(files.map((f) => [f.path, f.sha256]));
  for (const [path, sha256] of byPath) {
    if (!path.endsWith(".gz")) continue;
    const base = path.slice(0, -".gz".length);
    try {
      const members = splitGzipMembers(await readAll(store, sha256));
      let xzBlocks: CachedXzBlock[] | undefined;
      const xzHash = byPath.get(`${base}.xz`);
      if (xzHash) {
        try {
          xzBlocks = splitXzStream(await readAll(store, xzHash));
          // Both files hold the same non-empty blocks in the same order.
          if (
            xzBlocks.length !== members.length ||
            xzBlocks.some((b, i) => b.uncompressed !== members[i]!.open.length)
          )
            xzBlocks = undefined;
        } catch {
          xzBlocks = undefined;
        }
      }
      const blocks = new Map<string, RestoredBlock>();
      members.forEach((gzip, i) => {
        blocks.set(gzip.open.toString("utf8"), { gzip, xz: xzBlocks?.[i] });
      });
      restored.set(base, blocks);
    } catch (error) {
      warn(`${suite}/${path}: its blocks were not reused (${String(error)})`);
    }
  }
  return restored;
}
