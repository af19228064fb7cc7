// A document compressed as a series of gzip members, one per block of its text, each member
// cached by the block it holds: rebuilding a repository index after one package changed
// recompresses one block, not the whole file. gzip(1), zlib's gzread, apt and libsolv (dnf) read
// consecutive members as one stream (RFC 1952 §2.2: "a gzip file consists of a series of
// members").
import { createHash } from "node:crypto";
import { gzipSync, inflateRawSync } from "node:zlib";
import type { KeyedChunk, ResumableDigests } from "./resumable-digests.ts";

/**
 * A block whose text is rendered only when its key is not cached: the key must identify the text
 * (for blocks of immutable items, their ids in order).
 */
export interface KeyedBlock {
  key: string;
  text(): string;
}

/** A block: its text (which is then its own key), or a KeyedBlock. */
export type TextBlock = string | KeyedBlock;

export interface CachedMember {
  /**
   * The block's text, encoded: hashed again for the whole document's digests. A member taken
   * back from a published file (splitGzipMembers) inflates it on first use only.
   */
  readonly open: Buffer;
  /** Its length (known without inflating). */
  readonly size: number;
  readonly member: Uint8Array;
}

/** A cached member whose text is inflated from `member` when first asked for. */
function lazyMember(member: Uint8Array, dataOffset: number, size: number, keyDigest: string): SplitMember {
  let open: Buffer | undefined;
  return {
    member,
    size,
    keyDigest,
    get open() {
      // On a SharedArrayBuffer, like new blocks' text: another thread hashes it without a copy.
      open ??= sharedBytes(inflateRawSync(member.subarray(dataOffset, member.byteLength - 8)));
      return open;
    },
  };
}

/**
 * The gzip extra subfield (RFC 1952 §2.3.1.1) a tagged member carries: the member's length
 * (so a reader finds the next member without inflating) and the first 16 bytes of SHA-256 of
 * its block key (so a fresh process matches a published member to a block by key, not text).
 * Decoders skip extra fields: gzip(1), zlib, apt and libsolv read the file as before.
 */
const TAG = [0x50, 0x79]; // "Py"
const TAG_LENGTH = 4 + 16;
/** Header (10) + XLEN (2) + subfield header (4) + the subfield. */
const TAGGED_HEADER = 10 + 2 + 4 + TAG_LENGTH;

/** First 16 bytes of SHA-256 of a block key, hex: what a tagged member records. */
export function blockKeyDigest(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

/** gzipSync's member for `text`, with the tag of `key`. */
function taggedMember(text: Buffer, key: string, level: number): Buffer {
  return tagged(gzipSync(text, { level }), key);
}

/** An untagged member (gzipSync's 10-byte header) with the tag of `key`: the same data. */
function tagged(plain: Uint8Array, key: string): Buffer {
  const member = Buffer.allocUnsafe(plain.length - 10 + TAGGED_HEADER);
  member.set(plain.subarray(0, 10), 0);
  member[3] = 0x04; // FLG.FEXTRA
  member.writeUInt16LE(4 + TAG_LENGTH, 10);
  member[12] = TAG[0]!;
  member[13] = TAG[1]!;
  member.writeUInt16LE(TAG_LENGTH, 14);
  member.writeUInt32LE(member.length, 16);
  member.write(blockKeyDigest(key), 20, "hex");
  member.set(plain.subarray(10), TAGGED_HEADER);
  return member;
}

/** A cached member without a tag (from an older file) tagged with `key`, not compressed again. */
export function tagMember(cached: CachedMember, key: string): CachedMember {
  const member = tagged(cached.member, key);
  return {
    member,
    size: cached.size,
    get open() {
      return cached.open;
    },
  };
}

/** Compressed members, with the bytes they hold, by block key. */
export type GzipMemberCache = Map<string, CachedMember>;

export interface GzipDocument {
  /** The .gz file: a member per block (one empty member for an empty document). */
  gzip: Buffer;
  /** Byte size and digests of the uncompressed document, the blocks joined. */
  size: number;
  sha256: string;
  /** With `sha512: true`. */
  sha512?: string;
  /** sha256 and sha512 of the .gz file itself, with `digests.gzip`. */
  gzipDigests?: { sha256: string; sha512: string };
}

/**
 * Where a build resumes hashing from the previous build's midstates (resumable-digests.ts):
 * `open` for the uncompressed document (sha256, then sha512 when asked for), `gzip` for the .gz
 * (sha256, sha512). Kept by the caller between builds of the same document.
 */
export interface GzipDocumentDigests {
  open: ResumableDigests;
  gzip?: ResumableDigests;
}

const EMPTY_MEMBER = gzipSync(Buffer.alloc(0));

/**
 * Joins and compresses `blocks`. Members found in `previous` are reused; every member used is
 * put in `next`, so passing last build's `next` as this build's `previous` keeps the cache to the
 * blocks of the newest document.
 */
export function gzipBlocks(
  blocks: readonly TextBlock[],
  options: {
    previous?: GzipMemberCache;
    next?: GzipMemberCache;
    sha512?: boolean;
    level?: number;
    digests?: GzipDocumentDigests;
  } = {},
): GzipDocument {
  const { gzip, size, open, members } = gzipMembers(blocks, options);
  let sha256: string;
  let sha512: string | undefined;
  if (options.digests) {
    [sha256, sha512] = options.digests.open.digest(open) as [string, string | undefined];
  } else {
    const hashes = [createHash("sha256"), ...(options.sha512 ? [createHash("sha512")] : [])];
    for (const chunk of open) for (const hash of hashes) hash.update(chunk.bytes);
    [sha256, sha512] = hashes.map((hash) => hash.digest("hex")) as [string, string | undefined];
  }
  let gzipDigests: GzipDocument["gzipDigests"];
  if (options.digests?.gzip) {
    const [gz256, gz512] = digestGzipMembers(options.digests.gzip, gzip, members);
    gzipDigests = { sha256: gz256!, sha512: gz512! };
  }
  return { gzip, size, sha256, sha512: options.sha512 ? sha512 : undefined, gzipDigests };
}

/** The .gz file's digests, resumed from its previous build's midstates. */
export function digestGzipMembers(digests: ResumableDigests, gzip: Buffer, members: readonly KeyedChunk[]) {
  // An empty document is the one empty member, under no key.
  return members.length === 0 ? digests.digest([], gzip) : digests.digest(members);
}

/**
 * gzipBlocks without the hashing: the .gz file, its size uncompressed, and the chunks (by block
 * key) of the uncompressed document and of the .gz, for the caller to hash. With `shared`, the
 * uncompressed bytes of new blocks are allocated on SharedArrayBuffers, which another thread can
 * hash without a copy.
 */
export function gzipMembers(
  blocks: readonly TextBlock[],
  options: {
    previous?: GzipMemberCache;
    next?: GzipMemberCache;
    level?: number;
    shared?: boolean;
    /** Tag new members with their length and key digest (see TAG). */
    tagged?: boolean;
  } = {},
): { gzip: Buffer; size: number; open: KeyedChunk[]; members: KeyedChunk[] } {
  const open: KeyedChunk[] = [];
  const members: KeyedChunk[] = [];
  let size = 0;
  for (const block of blocks) {
    const key = typeof block === "string" ? block : block.key;
    let cached = options.previous?.get(key);
    if (!cached) {
      const text = options.shared
        ? sharedBytes(typeof block === "string" ? block : block.text())
        : Buffer.from(typeof block === "string" ? block : block.text(), "utf8");
      const level = options.level ?? 6;
      cached = {
        open: text,
        size: text.length,
        member: options.tagged ? taggedMember(text, key, level) : gzipSync(text, { level }),
      };
    }
    if (cached.size === 0) continue;
    options.next?.set(key, cached);
    size += cached.size;
    // The text only when a digest asks for it (a member restored from a file inflates then).
    const member = cached;
    open.push({
      key,
      get bytes() {
        return member.open;
      },
    });
    members.push({ key, bytes: cached.member });
  }
  const gzip = members.length === 0 ? Buffer.from(EMPTY_MEMBER) : Buffer.concat(members.map((m) => m.bytes));
  return { gzip, size, open, members };
}

/** A string's UTF-8 bytes on a SharedArrayBuffer (or a copy of bytes, given bytes). */
export function sharedBytes(text: string | Uint8Array): Buffer {
  const length = typeof text === "string" ? Buffer.byteLength(text, "utf8") : text.byteLength;
  const bytes = Buffer.from(new SharedArrayBuffer(length));
  if (typeof text === "string") bytes.write(text, "utf8");
  else bytes.set(text);
  return bytes;
}

/** A member of a published .gz file: its key digest when it is tagged. */
export interface SplitMember extends CachedMember {
  keyDigest?: string;
}

/**
 * The members of a .gz file that gzipBlocks made (each with the 10-byte header gzipSync writes,
 * no optional fields, or tagged: see TAG), with the bytes each holds: a fresh process takes the
 * blocks of the published file back instead of compressing them again. A tagged member is found
 * and matched without inflating (its text is inflated if asked for); an untagged one is
 * inflated to find its end. Throws on any other layout.
 */
export function splitGzipMembers(gzip: Uint8Array): SplitMember[] {
  const bytes = Buffer.from(gzip.buffer, gzip.byteOffset, gzip.byteLength);
  const members: SplitMember[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0x1f || bytes[offset + 1] !== 0x8b || bytes[offset + 2] !== 8)
      throw new Error("gzip: not a member gzipBlocks wrote");
    const flags = bytes[offset + 3];
    if (
      flags === 0x04 &&
      bytes.readUInt16LE(offset + 10) === 4 + TAG_LENGTH &&
      bytes[offset + 12] === TAG[0] &&
      bytes[offset + 13] === TAG[1] &&
      bytes.readUInt16LE(offset + 14) === TAG_LENGTH
    ) {
      const end = offset + bytes.readUInt32LE(offset + 16);
      if (end > bytes.length || end < offset + TAGGED_HEADER + 8) throw new Error("gzip: truncated member");
      const member = bytes.subarray(offset, end);
      members.push(
        lazyMember(
          member,
          TAGGED_HEADER,
          bytes.readUInt32LE(end - 4),
          bytes.toString("hex", offset + 20, offset + 36),
        ),
      );
      offset = end;
      continue;
    }
    if (flags !== 0) throw new Error("gzip: not a member gzipBlocks wrote");
    const inflated = inflateRawSync(bytes.subarray(offset + 10), { info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    const end = offset + 10 + inflated.engine.bytesWritten + 8;
    if (end > bytes.length || bytes.readUInt32LE(end - 4) !== inflated.buffer.length % 2 ** 32)
      throw new Error("gzip: truncated member");
    members.push({
      open: inflated.buffer,
      size: inflated.buffer.length,
      member: bytes.subarray(offset, end),
    });
    offset = end;
  }
  return members;
}

/** FNV-1a, 32 bits: a cheap, stable hash of a name (startsBlock's; callers may compute it once per item). */
export function nameHash(name: string): number {
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
  return startsBlockAt(nameHash(name), itemsInBlock, blockSize);
}

/** startsBlock, given the name's nameHash. */
function startsBlockAt(hash: number, itemsInBlock: number, blockSize: number): boolean {
  return itemsInBlock > 0 && (hash % blockSize === 0 || itemsInBlock >= blockSize * 4);
}

/** Consecutive items, keyed by their ids in order. */
export interface ItemBlock<T> {
  key: string;
  items: readonly T[];
}

/** A split's blocks by their first item: what the next split of the same list reuses. */
export type ItemBlocksByFirst<T> = Map<T, ItemBlock<T>>;

/**
 * Items (in their final order) grouped into blocks by startsBlock, keyed by their ids. `hash`
 * gives an item's nameHash when the caller keeps it (else it is computed from the name). With
 * `previous` (the last split of the same list, by first item), a block holding the very same
 * items — the same objects, in the same order — keeps its key instead of joining the ids again
 * (50,000 packages: ~4 MB of ids per split); `next` collects this split's blocks for the next.
 */
export function splitIntoBlocks<T>(
  items: readonly T[],
  item: { name(item: T): string; id(item: T): string; hash?(item: T): number },
  blockSize = 32,
  reuse: { previous?: ItemBlocksByFirst<T>; next?: ItemBlocksByFirst<T> } = {},
): ItemBlock<T>[] {
  const blocks: ItemBlock<T>[] = [];
  const close = (current: T[]) => {
    const before = reuse.previous?.get(current[0]!);
    const same =
      before !== undefined &&
      before.items.length === current.length &&
      before.items.every((entry, index) => entry === current[index]);
    const block = same ? before : { key: current.map(item.id).join(","), items: current };
    blocks.push(block);
    reuse.next?.set(current[0]!, block);
  };
  let current: T[] = [];
  for (const entry of items) {
    const hash = item.hash ? item.hash(entry) : nameHash(item.name(entry));
    if (startsBlockAt(hash, current.length, blockSize)) {
      close(current);
      current = [];
    }
    current.push(entry);
  }
  if (current.length > 0) close(current);
  return blocks;
}

/** Roughly the memory a cache holds: its members, the bytes they hold and their keys. */
export function gzipMemberCacheBytes(cache: GzipMemberCache): number {
  let bytes = 0;
  for (const [key, { size, member }] of cache) bytes += key.length + size + member.byteLength + 96;
  return bytes;
}
