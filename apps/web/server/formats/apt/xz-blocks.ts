// Packages.xz as one .xz stream of independent blocks, one per block of Packages' stanzas, each
// compressed block cached by its key: a publish that adds one package compresses one block and
// reassembles the stream (header, the blocks, a new index, footer), as multi-threaded xz(1)
// writes its output. Every xz decoder reads a multi-block stream (xz-file-format 1.1.0 §3); an
// LZMA2 block starts with a fresh dictionary, so a cached block is valid in any stream.
//
// The encoder is the system's xz(1) (xz-utils): one process per build compresses every block not
// cached, with --block-list putting each into its own xz block. Without xz the suite is published
// without Packages.xz (apt then takes Packages.gz), and the server says so in its log: once, and
// once more for a build that needed xz before the search for it had ended (decision 048).
//
// A publish that adds a package or a few changes one block; xz(1) took 2–6 ms of it, waiting on
// the process (decision 049). Such a build stores the changed text in the block (LZMA2's
// uncompressed chunks: microseconds) — or, when the text extends the block compressed last, only
// what it added, in a second xz block — and the blocks are compressed after the publish, for the
// next one to use.
import { spawn, spawnSync } from "node:child_process";
import { crc32 } from "node:zlib";
import type { TextBlock } from "@packyard/formats/compress/gzip-members.ts";
import type { KeyedChunk, ResumableDigests } from "@packyard/formats/compress/resumable-digests.ts";
import { isStoredXzBlock, storedXzBlock } from "@packyard/formats/compress/xz-stored.ts";
import { XzHelper } from "./xz-helper.ts";

/** A compressed xz block (with its padding) and the sizes the stream's index records for it. */
export interface CachedXzBlock {
  block: Buffer;
  unpadded: number;
  uncompressed: number;
}

/**
 * One block of stanzas in Packages.xz: one compressed xz block; or, until it is compressed after
 * the publish that made it, its text stored (`stored`) — whole, or the part beyond the block of
 * its beginning that was compressed last, as a second xz block.
 */
export interface XzPiece {
  blocks: readonly CachedXzBlock[];
  stored?: boolean;
}

/** Pieces by block key (the same keys as Packages.gz's members). */
export type XzBlockCache = Map<string, XzPiece>;

/**
 * Per cache, the text of the block compressed last after a publish, with that block: a block whose
 * text extends it is stored as it plus the rest. Passed on from cache to cache by each build.
 */
interface Tail {
  text: Buffer;
  block: CachedXzBlock;
  /** Which compression made it: a later one replaces it, an earlier one that ends late does not. */
  order: number;
}
const tails = new WeakMap<XzBlockCache, Tail>();

/** The server's builds store changed text up to this size and compress it after the publish. */
export const STORED_UP_TO = 64 * 1024;

/** The uncompressed size of a piece. */
function pieceSize(piece: XzPiece): number {
  let size = 0;
  for (const block of piece.blocks) size += block.uncompressed;
  return size;
}

/** The piece of xz blocks from a stream's blocks (restore-blocks.ts): stored when any one is. */
export function xzPiece(blocks: readonly CachedXzBlock[]): XzPiece {
  return blocks.some((b) => isStoredXzBlock(b.block)) ? { blocks, stored: true } : { blocks };
}

/** Compresses each text into its own block of one .xz stream (CRC64 checks). */
export type XzEncoder = (texts: readonly Buffer[]) => Promise<Buffer>;

/**
 * xz's default preset (6) with a 256 KiB dictionary: a block of stanzas (~15 KiB, at most 128
 * stanzas) fits in it, so the output is byte for byte what -6 makes, 16 % smaller than -2's;
 * but the encoder sets up 3 MiB instead of 94, so one block takes ~6 ms instead of ~15–19 ms,
 * and decoders need 256 KiB (decision 024).
 */
export const XZ_FILTER = "--lzma2=preset=6,dict=256KiB";

const MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
/** Stream flags: check type CRC64 (0x04). */
const FLAGS = Buffer.from([0x00, 0x04]);

function u32le(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value >>> 0);
  return out;
}

function writeVarint(value: number, out: number[]) {
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

function readVarint(bytes: Buffer, at: { offset: number }): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[at.offset++];
    if (byte === undefined) throw new Error("xz: truncated index");
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return value;
    scale *= 0x80;
  }
  throw new Error("xz: bad varint");
}

/** The blocks of a one-stream .xz file, read through its index. */
export function splitXzStream(xz: Buffer): CachedXzBlock[] {
  if (xz.length < 32 || !xz.subarray(0, 6).equals(MAGIC) || xz.subarray(-2).toString("latin1") !== "YZ")
    throw new Error("xz: not a single .xz stream");
  if (xz[7] !== 0x04) throw new Error("xz: expected CRC64 checks");
  const indexSize = (xz.readUInt32LE(xz.length - 8) + 1) * 4;
  const indexStart = xz.length - 12 - indexSize;
  const at = { offset: indexStart };
  if (xz[at.offset++] !== 0x00) throw new Error("xz: bad index indicator");
  const count = readVarint(xz, at);
  const blocks: CachedXzBlock[] = [];
  let offset = 12;
  for (let i = 0; i < count; i++) {
    const unpadded = readVarint(xz, at);
    const uncompressed = readVarint(xz, at);
    const length = Math.ceil(unpadded / 4) * 4;
    blocks.push({ block: Buffer.from(xz.subarray(offset, offset + length)), unpadded, uncompressed });
    offset += length;
  }
  if (offset !== indexStart) throw new Error("xz: blocks and index disagree");
  return blocks;
}

/** The .xz stream's bytes before its blocks (header) and after them (index, footer). */
function streamFrame(blocks: readonly CachedXzBlock[]): { header: Buffer; trailer: Buffer } {
  const header = Buffer.concat([MAGIC, FLAGS, u32le(crc32(FLAGS))]);
  const index: number[] = [0x00];
  writeVarint(blocks.length, index);
  for (const { unpadded, uncompressed } of blocks) {
    writeVarint(unpadded, index);
    writeVarint(uncompressed, index);
  }
  while (index.length % 4 !== 0) index.push(0);
  const indexBytes = Buffer.from(index);
  const indexField = Buffer.concat([indexBytes, u32le(crc32(indexBytes))]);
  const backward = Buffer.concat([u32le(indexField.length / 4 - 1), FLAGS]);
  const footer = Buffer.concat([u32le(crc32(backward)), backward, Buffer.from("YZ", "latin1")]);
  return { header, trailer: Buffer.concat([indexField, footer]) };
}

/** One .xz stream holding `blocks` in order. */
export function assembleXzStream(blocks: readonly CachedXzBlock[]): Buffer {
  const { header, trailer } = streamFrame(blocks);
  return Buffer.concat([header, ...blocks.map((b) => b.block), trailer]);
}

/**
 * Joins `blocks` into one .xz stream. Blocks found in `previous` are reused, the others are
 * compressed together by `encoder`; every block used is put in `next`.
 */
export async function xzBlocks(
  blocks: readonly TextBlock[],
  options: { encoder: XzEncoder; previous?: XzBlockCache; next?: XzBlockCache },
): Promise<Buffer> {
  return (await xzDocument(blocks, options)).xz;
}

/** A block's text stored by a build, to be compressed after its publish (compressStoredLater). */
export interface StoredText {
  key: string;
  text: Buffer;
}

/**
 * xzBlocks, and with `digests` (sha256, sha512; kept between builds of the same file) the
 * stream's digests, re-hashed from the first changed block only. Changed text of at most
 * `storeUpTo` bytes (none by default) is stored instead of compressed (see the module comment);
 * `stored` then names every block whose text is stored in this document, for compressStoredLater.
 */
export async function xzDocument(
  blocks: readonly TextBlock[],
  options: {
    encoder: XzEncoder;
    previous?: XzBlockCache;
    next?: XzBlockCache;
    digests?: ResumableDigests;
    storeUpTo?: number;
  },
): Promise<{ xz: Buffer; sha256?: string; sha512?: string; stored: StoredText[] }> {
  const found: (XzPiece | undefined)[] = [];
  const keys: string[] = [];
  const missing: { index: number; key: string; open: Buffer }[] = [];
  /** Blocks whose pieces an earlier build stored, used again. */
  const reused: { index: number; key: string; block: TextBlock }[] = [];
  let missingBytes = 0;
  for (const block of blocks) {
    const key = typeof block === "string" ? block : block.key;
    const cached = options.previous?.get(key);
    found.push(cached);
    keys.push(key);
    if (cached) {
      options.next?.set(key, cached);
      if (cached.stored) reused.push({ index: found.length - 1, key, block });
    } else {
      const open = textOf(block);
      // An empty block has no xz block (xz makes none for empty input).
      if (open.length > 0) {
        missing.push({ index: found.length - 1, key, open });
        missingBytes += open.length;
      }
    }
  }
  const tail = options.previous && tails.get(options.previous);
  if (tail && options.next) tails.set(options.next, tail);
  /** In the order of the blocks: the last one is the tail compressStoredLater keeps. */
  const stored: (StoredText & { index: number })[] = [];
  const storeUpTo = options.storeUpTo ?? 0;
  if (storeUpTo > 0 && missingBytes <= storeUpTo) {
    for (const m of missing) {
      let piece: XzPiece;
      if (tail?.text.equals(m.open)) piece = { blocks: [tail.block] };
      else {
        const extending =
          tail !== undefined &&
          m.open.length > tail.text.length &&
          m.open.subarray(0, tail.text.length).equals(tail.text);
        piece = {
          blocks: extending
            ? [tail.block, storedXzBlock(m.open.subarray(tail.text.length))]
            : [storedXzBlock(m.open)],
          stored: true,
        };
        stored.push({ index: m.index, key: m.key, text: m.open });
      }
      found[m.index] = piece;
      options.next?.set(m.key, piece);
    }
    for (const { index, key, block } of reused) stored.push({ index, key, text: textOf(block) });
    stored.sort((a, b) => a.index - b.index);
  } else {
    // Compressed now, and the pieces earlier builds stored with them.
    for (const { index, key, block } of reused) missing.push({ index, key, open: textOf(block) });
    if (missing.length > 0) {
      const made = splitXzStream(await options.encoder(missing.map((m) => m.open)));
      if (made.length !== missing.length)
        throw new Error(`xz: ${made.length} blocks for ${missing.length} texts`);
      missing.forEach((m, i) => {
        const block = made[i]!;
        if (block.uncompressed !== m.open.length) throw new Error("xz: block sizes disagree");
        const piece = { blocks: [block] };
        found[m.index] = piece;
        options.next?.set(m.key, piece);
      });
    }
  }
  const used: CachedXzBlock[] = [];
  const chunks: KeyedChunk[] = [];
  found.forEach((piece, i) => {
    if (!piece) return;
    used.push(...piece.blocks);
    // A key names its bytes: a stored piece's are not those of the same text compressed.
    chunks.push(
      piece.blocks.length === 1 && !piece.stored
        ? { key: keys[i]!, bytes: piece.blocks[0]!.block }
        : {
            key: `${keys[i]!}\u0000${piece.blocks.map((b) => b.unpadded).join(",")}`,
            bytes: Buffer.concat(piece.blocks.map((b) => b.block)),
          },
    );
  });
  const { header, trailer } = streamFrame(used);
  const xz = Buffer.concat([header, ...used.map((b) => b.block), trailer]);
  const texts = stored.map(({ key, text }) => ({ key, text }));
  if (!options.digests) return { xz, stored: texts };
  // The header never changes: it is the first chunk, under a key no block has.
  const [sha256, sha512] = options.digests.digest(
    [{ key: "\u0000xz-header", bytes: header }, ...chunks],
    trailer,
  );
  return { xz, sha256, sha512, stored: texts };
}

function textOf(block: TextBlock): Buffer {
  return Buffer.from(typeof block === "string" ? block : block.text(), "utf8");
}

let compressions = 0;

/**
 * Compresses, after the publish, the texts a build stored (xzDocument's `stored`), and puts each
 * compressed block in the newest cache of its index (`caches.get(base)`, the one the next build
 * starts from) where that still holds the stored piece; the last one becomes the tail a block
 * that extends it is stored against. A failure costs nothing but the compression: the blocks stay
 * stored, and the next build that uses them asks again. Resolves when done (tests wait for it).
 */
export async function compressStoredLater(
  caches: Map<string, XzBlockCache>,
  base: string,
  stored: readonly StoredText[],
  encoder: XzEncoder,
  warn: (message: string) => void,
): Promise<void> {
  if (stored.length === 0) return;
  const order = ++compressions;
  let made: CachedXzBlock[];
  try {
    made = splitXzStream(await encoder(stored.map((s) => s.text)));
    if (made.length !== stored.length || made.some((b, i) => b.uncompressed !== stored[i]!.text.length))
      throw new Error("xz: block sizes disagree");
  } catch (error) {
    warn(`${base}.xz: its changed blocks stay uncompressed until the next publish (${String(error)})`);
    return;
  }
  const latest = caches.get(base);
  if (!latest) return;
  stored.forEach(({ key, text }, i) => {
    const piece = latest.get(key);
    if (piece?.stored && pieceSize(piece) === text.length) latest.set(key, { blocks: [made[i]!] });
  });
  const tail = tails.get(latest);
  if (!tail || tail.order < order)
    tails.set(latest, { text: stored.at(-1)!.text, block: made.at(-1)!, order });
}

/** Compresses with xz(1): every text its own block, through --block-list. */
export function systemXzEncoder(command = "xz", filter = XZ_FILTER, helper?: XzHelper): XzEncoder {
  return (texts) => {
    const args = [
      "--format=xz",
      "--check=crc64",
      filter,
      "--threads=1",
      `--block-list=${texts.map((t) => t.length).join(",")}`,
      "--stdout",
    ];
    // Through the helper when there is one (no fork of the server); xz's own failure is final,
    // a helper that is gone leaves it to a spawn here.
    if (helper?.available && command === "xz")
      return helper.run(args, texts).catch((error: unknown) => {
        if (helper.available) throw error;
        return spawnXz(command, args, texts);
      });
    return spawnXz(command, args, texts);
  };
}

function spawnXz(command: string, args: string[], texts: readonly Buffer[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.stdin.on("error", () => {}); // reported by "close" with xz's own message
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`xz exited with ${code}: ${Buffer.concat(err).toString().trim()}`));
    });
    for (const text of texts) child.stdin.write(text);
    child.stdin.end();
  });
}

/**
 * xz(1) at `command` when `command --version` runs; otherwise null, after telling `warn`.
 */
export function findXzEncoder(
  command: string,
  warn: (message: string) => void,
  helper?: XzHelper,
): XzEncoder | null {
  const probe = spawnSync(command, ["--version"], { encoding: "utf8" });
  if (probe.status === 0) return systemXzEncoder(command, XZ_FILTER, helper);
  warn(`${command} (xz-utils) not found: APT repositories are published without Packages.xz`);
  return null;
}

let detecting: Promise<XzEncoder | null> | undefined;
/** What detectXzEncoderAsync found, once it has: undefined while it is still looking. */
let settled: { encoder: XzEncoder | null } | undefined;

/**
 * The system's xz, run through a helper process (xz-helper.ts), looked for once per process and
 * without blocking: call it early (the APT builder does when it is made), when the server is
 * small and starting a process costs little. Without a working helper, detectXzEncoder's.
 */
export function detectXzEncoderAsync(): Promise<XzEncoder | null> {
  detecting ??= (async () => {
    const helper = new XzHelper();
    try {
      await helper.run(["--version"], []);
      return systemXzEncoder("xz", XZ_FILTER, helper);
    } catch {
      helper.close();
      return detectXzEncoder();
    }
  })().then((encoder) => {
    settled = { encoder };
    return encoder;
  });
  return detecting;
}

/**
 * The system's xz for a build that starts now, without waiting for detectXzEncoderAsync: its
 * answer once it has one; until then an encoder that waits for it when called. A build that reuses
 * every block (the first after a restart, restore-blocks.ts) calls no encoder, so it does not wait
 * for the helper process to start (33 ms of the first build at 10,000 packages). Should xz turn out
 * to be missing, that encoder fails and the build leaves Packages.xz out (build-index.ts).
 */
export function eventualXzEncoder(): XzEncoder | null {
  if (settled) return settled.encoder;
  const found = detectXzEncoderAsync();
  return async (texts) => {
    const encoder = await found;
    if (!encoder) throw new Error("xz (xz-utils) not found");
    return encoder(texts);
  };
}

let detected: XzEncoder | null | undefined;

/** The system's xz, looked for once per process (see findXzEncoder). */
export function detectXzEncoder(): XzEncoder | null {
  if (detected === undefined) detected = findXzEncoder("xz", (message) => console.warn(message));
  return detected;
}

/** Roughly the memory a cache holds: its blocks and their keys, and the tail's text. */
export function xzBlockCacheBytes(cache: XzBlockCache): number {
  let bytes = tails.get(cache)?.text.byteLength ?? 0;
  for (const [key, { blocks }] of cache) {
    bytes += key.length + 80;
    for (const { block } of blocks) bytes += block.byteLength;
  }
  return bytes;
}
