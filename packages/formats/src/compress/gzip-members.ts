// A document compressed as a series of gzip members, one per block of its text, each member
// cached by the block it holds: rebuilding a repository index after one package changed
// recompresses one block, not the whole file. gzip(1), zlib's gzread, apt and libsolv (dnf) read
// consecutive members as one stream (RFC 1952 §2.2: "a gzip file consists of a series of
// members").
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";

/** Compressed members by the exact block text they hold. */
export type GzipMemberCache = Map<string, Uint8Array>;

export interface GzipDocument {
  /** The .gz file: a member per block (one empty member for an empty document). */
  gzip: Buffer;
  /** Byte size and digests of the uncompressed document, the blocks joined. */
  size: number;
  sha256: string;
  /** With `sha512: true`. */
  sha512?: string;
}

const EMPTY_MEMBER = gzipSync(Buffer.alloc(0));

/**
 * Joins and compresses `blocks`. Members found in `previous` are reused; every member used is
 * put in `next`, so passing last build's `next` as this build's `previous` keeps the cache to the
 * blocks of the newest document.
 */
export function gzipBlocks(
  blocks: readonly string[],
  options: { previous?: GzipMemberCache; next?: GzipMemberCache; sha512?: boolean; level?: number } = {},
): GzipDocument {
  const sha256 = createHash("sha256");
  const sha512 = options.sha512 ? createHash("sha512") : undefined;
  const members: Uint8Array[] = [];
  let size = 0;
  for (const block of blocks) {
    if (block === "") continue;
    const bytes = Buffer.from(block, "utf8");
    size += bytes.length;
    sha256.update(bytes);
    sha512?.update(bytes);
    let member = options.previous?.get(block);
    if (!member) member = gzipSync(bytes, { level: options.level ?? 6 });
    options.next?.set(block, member);
    members.push(member);
  }
  return {
    gzip: members.length === 0 ? Buffer.from(EMPTY_MEMBER) : Buffer.concat(members),
    size,
    sha256: sha256.digest("hex"),
    sha512: sha512?.digest("hex"),
  };
}

/** FNV-1a, 32 bits: a cheap, stable hash of a name. */
function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Whether a block should start at an item with this name: when the name hashes to 0 modulo
 * `blockSize`, or the current block already holds four times that many items. Boundaries follow
 * names, not positions, so adding or removing one item changes the block it falls in and no other.
 */
export function startsBlock(name: string, itemsInBlock: number, blockSize: number): boolean {
  return itemsInBlock > 0 && (nameHash(name) % blockSize === 0 || itemsInBlock >= blockSize * 4);
}

/** Items (in their final order) joined into blocks by startsBlock. */
export function splitIntoBlocks<T>(
  items: readonly T[],
  nameOf: (item: T) => string,
  textOf: (item: T) => string,
  blockSize = 32,
): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  for (const item of items) {
    if (startsBlock(nameOf(item), current.length, blockSize)) {
      blocks.push(current.join(""));
      current = [];
    }
    current.push(textOf(item));
  }
  if (current.length > 0) blocks.push(current.join(""));
  return blocks;
}
