// The compressed blocks of a suite's served Packages.gz and Packages.xz, taken back from the
// index store: the first build in a fresh process (or after the memory budget dropped the
// suite's blocks) reuses every block whose text did not change instead of compressing the whole
// index again — gzip and, above all, xz of every block was most of that build (issue 16).
import { type CachedMember, splitGzipMembers } from "@packyard/formats/compress/gzip-members.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";
import type { BlobStore } from "../../platform/storage/blob-store.ts";
import { type CachedXzBlock, splitXzStream, type XzPiece, xzPiece } from "./xz-blocks.ts";

/** A block of the served index: its gzip member and its xz block (or two, decision 049). */
export interface RestoredBlock {
  gzip: CachedMember;
  xz?: XzPiece;
}

/** A served file's size and digests, as its generation records them. */
export interface ServedFile {
  size: number;
  sha256: string;
  sha512: string;
}

/** What the newest generation served for one index. */
export interface RestoredIndex {
  /** Tagged members by their key digest (blockKeyDigest). */
  byKey: Map<string, RestoredBlock>;
  /** Members of an older file, without tags, by their text (inflated to learn it). */
  byText: Map<string, RestoredBlock>;
  /**
   * When every member is tagged: the key digests in order, and the files. A build whose blocks
   * have these keys in this order makes these very files, so their recorded digests stand.
   */
  served?: {
    keyDigests: string[];
    plain: ServedFile;
    gzip: ServedFile & { bytes: Buffer };
    xz?: ServedFile & { bytes: Buffer };
  };
}

/** Per index path (main/binary-amd64/Packages), the served blocks. */
export type RestoredBlocks = Map<string, RestoredIndex>;

async function readAll(store: BlobStore, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The xz blocks of each member, in order: one, or two where a build stored a block's text as the
 * block compressed before it plus the rest (decision 049). Undefined unless both files hold the
 * same non-empty blocks in the same order.
 */
function piecesOfMembers(blocks: readonly CachedXzBlock[], members: readonly CachedMember[]) {
  const pieces: XzPiece[] = [];
  let next = 0;
  for (const member of members) {
    const piece: CachedXzBlock[] = [];
    let size = 0;
    while (size < member.size && next < blocks.length) {
      const block = blocks[next++]!;
      piece.push(block);
      size += block.uncompressed;
    }
    if (size !== member.size || piece.length === 0 || piece.length > 2) return undefined;
    pieces.push(xzPiece(piece));
  }
  return next === blocks.length ? pieces : undefined;
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
    .select(["path", "sha256", "sha512", "size"])
    .where("generation_id", "=", generation.id)
    .where((eb) =>
      eb.or([
        eb("path", "like", "%/Packages"),
        eb("path", "like", "%/Packages.gz"),
        eb("path", "like", "%/Packages.xz"),
      ]),
    )
    .execute();
  const byPath = new Map(
    files.map((f) => [f.path, { sha256: f.sha256, sha512: f.sha512, size: Number(f.size) }]),
  );
  for (const [path, gzFile] of byPath) {
    if (!path.endsWith(".gz")) continue;
    const base = path.slice(0, -".gz".length);
    try {
      const gzBytes = await readAll(store, gzFile.sha256);
      const members = splitGzipMembers(gzBytes);
      let xzPieces: XzPiece[] | undefined;
      const xzFile = byPath.get(`${base}.xz`);
      let xzBytes: Buffer | undefined;
      if (xzFile) {
        try {
          xzBytes = await readAll(store, xzFile.sha256);
          xzPieces = piecesOfMembers(splitXzStream(xzBytes), members);
        } catch {
          xzPieces = undefined;
        }
      }
      const index: RestoredIndex = { byKey: new Map(), byText: new Map() };
      const keyDigests: string[] = [];
      members.forEach((gzip, i) => {
        const block = { gzip, xz: xzPieces?.[i] };
        if (gzip.keyDigest) {
          index.byKey.set(gzip.keyDigest, block);
          keyDigests.push(gzip.keyDigest);
        } else index.byText.set(gzip.open.toString("utf8"), block);
      });
      const plain = byPath.get(base);
      if (index.byText.size === 0 && plain && (!xzFile || xzPieces)) {
        index.served = {
          keyDigests,
          plain,
          gzip: { ...gzFile, bytes: gzBytes },
          xz: xzFile && xzBytes ? { ...xzFile, bytes: xzBytes } : undefined,
        };
      }
      restored.set(base, index);
    } catch (error) {
      warn(`${suite}/${path}: its blocks were not reused (${String(error)})`);
    }
  }
  return restored;
}
