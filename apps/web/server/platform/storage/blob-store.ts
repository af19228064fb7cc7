// Content-addressed storage of blobs and published index files: one interface (BlobStore), two
// implementations — the local disk here (the default) and S3-compatible object storage
// (s3-blob-store.ts). A write streams the body to a temporary place while hashing it in the
// same pass (sha256 always; sha512, sha1 and md5 unless the caller says it needs fewer: an
// upload computes only what its format's index lists, decision 036), enforcing a size limit,
// written through two reused 2 MiB buffers (large writes, flat memory); commit() makes it visible
// under its sha256. Identical content is stored once. Nothing is visible under its final name
// before commit(), so an aborted upload leaves nothing behind. The store knows nothing of the
// database: who may place or remove a blob, and when, is decided by releases/blobs.ts.
// On disk: commit() fsyncs and renames the temporary file to <root>/sha256/<aa>/<bb>/<sha256>.
// An index file that differs from the one before only near its end (one package more) is written
// by appending to a copy of that one made ahead, after the previous publish (a spare, decision
// 049): the publish writes and fsyncs kilobytes, not the whole file.
import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { ALL_EXTRA_DIGESTS, createDigester, type ExtraDigest, releaseChunk } from "./digests.ts";

export interface BlobDigests {
  sha256: string;
  /** "" when stage() was not asked for it (see StageOptions.digests). */
  sha512: string;
  /** "" when stage() was not asked for it. */
  sha1: string;
  /** "" when stage() was not asked for it. */
  md5: string;
  size: number;
}

export interface StageOptions {
  maxBytes: number;
  /**
   * The digests besides sha256 to compute while the body is received (default: all three).
   * Those not asked for are "" in the result; releases/blob-digests.ts fills them in later.
   */
  digests?: readonly ExtraDigest[];
  /** Computes those only while the body is at most this long (default: whatever its length). */
  extraDigestsUpTo?: number;
  /** Of `digests`, those computed whatever the body's length (`extraDigestsUpTo` spares them). */
  keepDigests?: readonly ExtraDigest[];
  /**
   * The body's chunks are nobody else's once read (a request body read from the socket): the
   * local store frees each one's memory as soon as it is hashed and copied, instead of leaving
   * it to V8's next full collection (decision 036). Never set for chunks the caller keeps.
   */
  releaseChunks?: boolean;
}

export interface StagedBlob extends BlobDigests {
  /**
   * Reads the staged bytes, or the range start..end (inclusive) of them (before commit: the
   * packages are read from here; a wheel's zip through ranges).
   */
  read(range?: { start: number; end: number }): Readable;
  /**
   * Makes the blob visible under its sha256. Idempotent; a blob already stored is kept, or
   * written again with the same bytes (S3, a body staged in memory: cheaper than asking first).
   */
  commit(): Promise<void>;
  /** Throws the temporary file away. */
  discard(): Promise<void>;
}

/** A stored blob as a listing reports it. */
export interface BlobEntry {
  sha256: string;
  size: number;
  /** When it was last written (ms since the epoch). */
  modifiedAt: number;
}

export interface BlobPage {
  entries: BlobEntry[];
  /** Pass back as `cursor` for the next page; absent on the last page. */
  cursor?: string;
}

export interface ListOptions {
  /** Only blobs whose sha256 starts with this (hex). */
  prefix?: string;
  /** Where the previous page ended. */
  cursor?: string;
  /** At most this many entries (default 1000). */
  limit?: number;
}

/** What a presigned download URL makes the storage answer with (see BlobStore.presignGet). */
export interface PresignGetOptions {
  /** Seconds the URL stays valid (a download must start within them). */
  expiresSeconds: number;
  /** The Content-Type the storage answers with (S3's ResponseContentType). */
  contentType?: string;
  /** The Content-Disposition the storage answers with (S3's ResponseContentDisposition). */
  contentDisposition?: string;
}

/**
 * A copy of some bytes in a temporary file, written and fsynced ahead (prepareSpare): putBytes
 * of bytes that begin alike keeps that beginning and writes only the rest.
 */
export interface SpareCopy {
  readonly bytes: Uint8Array;
  readonly path: string;
}

export interface BlobStore {
  stage(body: AsyncIterable<Uint8Array>, options: StageOptions): Promise<StagedBlob>;
  /**
   * Stores bytes whose sha256 the caller computed (generated index files). With a spare (which it
   * uses up, whether it helped or not): from it when at least half of the bytes begin alike.
   */
  putBytes(bytes: Uint8Array, sha256: string, options?: { spare?: SpareCopy }): Promise<void>;
  /** Local disk only: a spare holding `bytes` (see SpareCopy). */
  prepareSpare?(bytes: Uint8Array): Promise<SpareCopy>;
  /** Removes a spare that will not be used. */
  discardSpare?(spare: SpareCopy): Promise<void>;
  exists(sha256: string): Promise<boolean>;
  /** A byte range is inclusive at both ends, as in HTTP. */
  read(sha256: string, range?: { start: number; end: number }): Readable;
  /**
   * Like read(), but resolves only once the blob is open, so a missing blob is an error
   * (BlobMissingError) before any response is started.
   */
  open(sha256: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Where a blob lies on the local disk, for stores that keep files (the /dl fast path). */
  localPath?(sha256: string): string;
  delete(sha256: string): Promise<void>;
  /** Size and last write of a stored blob, or undefined when it is not stored. */
  stat(sha256: string): Promise<{ size: number; modifiedAt: number } | undefined>;
  /** When the blob was last written (ms since the epoch), or undefined when it is not stored. */
  modifiedAt(sha256: string): Promise<number | undefined>;
  /** One page of stored blobs, in sha256 order. */
  listPage(options?: ListOptions): Promise<BlobPage>;
  /** Every stored blob (by prefix), fetched a page at a time. */
  list(options?: { prefix?: string; pageSize?: number }): AsyncIterable<string>;
  /**
   * Removes temporary data not written to for `olderThanMs`: leftovers of uploads and index
   * writes cut off by a crash. Returns how many were removed.
   */
  removeStaleTemporary(olderThanMs: number): Promise<number>;
  /**
   * A short-lived URL from which the storage itself serves the blob, so that a download can be
   * redirected there instead of streamed through the server (S3_PRESIGNED_DOWNLOADS). Only
   * stores that can do so have it (S3: a presigned GetObject); the local disk has none.
   */
  presignGet?(sha256: string, options: PresignGetOptions): Promise<string>;
}

/** list() over listPage(): one page in memory at a time. */
export async function* listAll(
  store: Pick<BlobStore, "listPage">,
  options: { prefix?: string; pageSize?: number } = {},
): AsyncIterable<BlobEntry> {
  let cursor: string | undefined;
  do {
    const page = await store.listPage({ prefix: options.prefix, cursor, limit: options.pageSize });
    yield* page.entries;
    cursor = page.cursor;
  } while (cursor !== undefined);
}

export class BlobMissingError extends Error {
  readonly sha256: string;
  constructor(sha256: string, cause?: unknown) {
    super(`blob ${sha256} is missing from storage`, { cause });
    this.name = "BlobMissingError";
    this.sha256 = sha256;
  }
}

export class BlobTooLargeError extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`The file is larger than the limit of ${maxBytes} bytes`);
    this.name = "BlobTooLargeError";
    this.maxBytes = maxBytes;
  }
}

export class StorageFullError extends Error {
  constructor(cause: unknown) {
    super("The server is out of disk space", { cause });
    this.name = "StorageFullError";
  }
}

/** Upload bodies are written to disk in writes of this many bytes. */
const WRITE_BUFFER_BYTES = 2 * 1024 * 1024;
/** The first write buffer's size: enough for most packages; larger bodies grow to the above. */
const FIRST_WRITE_BUFFER_BYTES = 64 * 1024;

/** Writes every byte of `bytes`, resuming after short writes. */
async function writeAll(handle: FileHandle, bytes: Uint8Array, position?: number): Promise<void> {
  for (let offset = 0; offset < bytes.byteLength; ) {
    const { bytesWritten } = await handle.write(
      bytes,
      offset,
      bytes.byteLength - offset,
      position === undefined ? null : position + offset,
    );
    offset += bytesWritten;
  }
}

/** A new file at `path` (in `dir`) holding `bytes`, fsynced. */
async function writeDurably(dir: string, path: string, bytes: Uint8Array): Promise<void> {
  const handle = await inDirectory(dir, () => open(path, "wx", 0o640));
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** How many bytes `a` and `b` have in common from their start (a binary search of memcmp). */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const left = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const right = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let same = 0;
  let differs = Math.min(left.length, right.length);
  if (left.compare(right, 0, differs, 0, differs) === 0) return differs;
  // The first `same` bytes are equal; the first `differs` are not.
  while (differs - same > 1) {
    const middle = (same + differs) >>> 1;
    if (left.compare(right, same, middle, same, middle) === 0) same = middle;
    else differs = middle;
  }
  return same;
}

export const isHex64 = (s: string) => /^[0-9a-f]{64}$/.test(s);
/** Whether a directory named by the first characters of a sha256 may hold blobs with `prefix`. */
const mayHold = (dir: string, prefix: string) => {
  const n = Math.min(dir.length, prefix.length);
  return dir.slice(0, n) === prefix.slice(0, n);
};

/**
 * Runs `op` (a file created or renamed into `dir`); only when it fails because the directory is
 * missing does it create `dir` and run `op` once more. The directories nearly always exist: a
 * `mkdir -p` before every write took the main thread ~90 µs each under load, some 15 times per
 * upload and publish (issue 16).
 */
async function inDirectory<T>(dir: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dir, { recursive: true });
    return op();
  }
}

export function createLocalBlobStore(root: string): BlobStore {
  const tmpDir = join(root, "tmp");
  const pathOf = (sha256: string) => {
    if (!isHex64(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(root, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  };

  return {
    async stage(
      body,
      { maxBytes, digests: wanted = ALL_EXTRA_DIGESTS, extraDigestsUpTo, keepDigests, releaseChunks },
    ) {
      const tmp = join(tmpDir, `${randomUUID()}.part`);
      const digester = createDigester(wanted, { extraUpTo: extraDigestsUpTo, keep: keepDigests });
      let size = 0;
      let handle: FileHandle | undefined;
      let digests: BlobDigests;
      /** A body that fit the first buffer (a package, mostly): read() answers from it. */
      let whole: Buffer | undefined;
      /**
       * The body on disk (fsynced, then closed). Not waited for here: the caller reads and checks
       * the body meanwhile (a package is parsed while the disk takes it); commit() waits for it
       * before the file gets its name.
       */
      let durable: Promise<void> = Promise.resolve();
      try {
        handle = await inDirectory(tmpDir, () => open(tmp, "wx", 0o640));
        const file = handle;
        // Two write buffers, reused: the body is copied into one while the other is written.
        // Large writes, and every chunk dies young (a chunk held until a batch is written would
        // outlive a scavenge and wait for a full collection: RSS would grow). The first buffer
        // is small and the pair grows to WRITE_BUFFER_BYTES once a body fills it, so a small
        // upload (a package, a small file) does not allocate 4 MiB it never uses: external
        // memory that brings the next full collection closer (issue 16, YUM seeding).
        const buffers: (Buffer | undefined)[] = [undefined, undefined];
        let capacity = FIRST_WRITE_BUFFER_BYTES;
        let current = 0;
        let filled = 0;
        let writing: Promise<void> = Promise.resolve();
        const buffer = () => {
          const found = buffers[current];
          if (found && found.byteLength >= capacity) return found;
          const made = Buffer.allocUnsafeSlow(capacity);
          buffers[current] = made;
          return made;
        };
        const flush = async () => {
          if (filled === 0) return;
          // The other buffer is free once its write is done.
          await writing;
          writing = writeAll(file, buffers[current]!.subarray(0, filled));
          // A failed write is seen at the next flush or at the end; never unhandled meanwhile.
          writing.catch(() => {});
          current ^= 1;
          filled = 0;
          capacity = WRITE_BUFFER_BYTES;
        };
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
          digester.update(chunk);
          for (let offset = 0; offset < chunk.byteLength; ) {
            const target = buffer();
            const n = Math.min(capacity - filled, chunk.byteLength - offset);
            target.set(chunk.subarray(offset, offset + n), filled);
            filled += n;
            offset += n;
            if (filled === capacity) await flush();
          }
          if (releaseChunks) releaseChunk(chunk);
        }
        await flush();
        await writing;
        // All of it is in the first buffer, which nothing writes to again.
        if (size <= FIRST_WRITE_BUFFER_BYTES) whole = (buffers[0] ?? Buffer.alloc(0)).subarray(0, size);
        durable = file.sync().finally(() => file.close());
        // Seen by commit() or discard(); never unhandled meanwhile.
        durable.catch(() => {});
        handle = undefined;
        digests = { ...(await digester.digest()), size };
      } catch (error) {
        digester.abort();
        await handle?.close().catch(() => {});
        await rm(tmp, { force: true });
        if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new StorageFullError(error);
        throw error;
      }
      let settled = false;
      return {
        ...digests,
        read(range) {
          // From memory when small: parsing a package costs no file system round trips.
          if (whole)
            return Readable.from([range ? whole.subarray(range.start, range.end + 1) : whole], {
              objectMode: false,
            });
          if (range && range.end < range.start) return Readable.from([]);
          return createReadStream(tmp, range ? { start: range.start, end: range.end } : {});
        },
        async commit() {
          if (settled) return;
          settled = true;
          const target = pathOf(digests.sha256);
          try {
            await durable;
          } catch (error) {
            await rm(tmp, { force: true });
            if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new StorageFullError(error);
            throw error;
          }
          try {
            await stat(target);
            // Same content already stored: keep the existing copy.
            await rm(tmp, { force: true });
            return;
          } catch {
            // not stored yet
          }
          try {
            await inDirectory(join(target, ".."), () => rename(tmp, target));
            // Make the rename itself durable.
            const dir = await open(join(target, ".."), "r");
            await dir.sync().finally(() => dir.close());
          } catch (error) {
            await rm(tmp, { force: true });
            if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new StorageFullError(error);
            throw error;
          }
        },
        async discard() {
          if (settled) return;
          settled = true;
          await durable.catch(() => {});
          await rm(tmp, { force: true });
        },
      };
    },

    async putBytes(bytes, sha256, options) {
      const target = pathOf(sha256);
      const spare = options?.spare;
      if (spare) {
        const same = commonPrefixLength(spare.bytes, bytes);
        if (same >= bytes.byteLength / 2) {
          try {
            const handle = await open(spare.path, "r+");
            try {
              await handle.truncate(same);
              await writeAll(handle, bytes.subarray(same), same);
              await handle.sync();
            } finally {
              await handle.close();
            }
            await inDirectory(join(target, ".."), () => rename(spare.path, target));
            return;
          } catch (error) {
            await rm(spare.path, { force: true });
            // Swept meanwhile (removeStaleTemporary): written whole, below.
            if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
              if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new StorageFullError(error);
              throw error;
            }
          }
        } else await rm(spare.path, { force: true });
      }
      const tmp = join(tmpDir, `${randomUUID()}.part`);
      try {
        await writeDurably(tmpDir, tmp, bytes);
        await inDirectory(join(target, ".."), () => rename(tmp, target));
      } catch (error) {
        await rm(tmp, { force: true });
        if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new StorageFullError(error);
        throw error;
      }
    },

    async prepareSpare(bytes) {
      const path = join(tmpDir, `${randomUUID()}.spare`);
      try {
        await writeDurably(tmpDir, path, bytes);
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      return { bytes, path };
    },

    async discardSpare(spare) {
      await rm(spare.path, { force: true });
    },

    async exists(sha256) {
      try {
        await stat(pathOf(sha256));
        return true;
      } catch {
        return false;
      }
    },

    read(sha256, range) {
      return createReadStream(pathOf(sha256), range ? { start: range.start, end: range.end } : {});
    },

    localPath: (sha256) => pathOf(sha256),
    async open(sha256, range) {
      let handle: FileHandle;
      try {
        handle = await open(pathOf(sha256), "r");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new BlobMissingError(sha256, error);
        throw error;
      }
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async stat(sha256) {
      const info = await stat(pathOf(sha256)).catch(() => undefined);
      return info ? { size: info.size, modifiedAt: info.mtimeMs } : undefined;
    },

    async modifiedAt(sha256) {
      const info = await stat(pathOf(sha256)).catch(() => undefined);
      return info?.mtimeMs;
    },

    async delete(sha256) {
      try {
        await unlink(pathOf(sha256));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    },

    async listPage({ prefix = "", cursor, limit = 1000 } = {}) {
      const base = join(root, "sha256");
      const entries: BlobEntry[] = [];
      const sorted = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).sort();
      // Directories wholly before the cursor are skipped without being read.
      const after = (name: string) => cursor === undefined || name >= cursor.slice(0, name.length);
      for (const a of await sorted(base)) {
        if (a.length !== 2 || !mayHold(a, prefix) || !after(a)) continue;
        for (const b of await sorted(join(base, a))) {
          if (b.length !== 2 || !mayHold(a + b, prefix) || !after(a + b)) continue;
          for (const name of await sorted(join(base, a, b))) {
            if (!isHex64(name) || !name.startsWith(prefix)) continue;
            if (cursor !== undefined && name <= cursor) continue;
            const info = await stat(join(base, a, b, name)).catch(() => undefined);
            if (!info) continue;
            entries.push({ sha256: name, size: info.size, modifiedAt: info.mtimeMs });
            if (entries.length === limit) return { entries, cursor: name };
          }
        }
      }
      return { entries };
    },

    async *list(options) {
      for await (const entry of listAll(this, options)) yield entry.sha256;
    },

    removeStaleTemporary(olderThanMs) {
      return removeStaleTemporaryFiles(root, olderThanMs);
    },
  };
}

/**
 * Removes temporary files not written to for `olderThanMs`: leftovers of uploads and index
 * writes cut off by a crash. A write in progress keeps its file's mtime fresh.
 */
export async function removeStaleTemporaryFiles(root: string, olderThanMs: number): Promise<number> {
  const dir = join(root, "tmp");
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > olderThanMs) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}
