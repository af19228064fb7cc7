// The BlobStore contract, run against both implementations: the local disk and S3-compatible
// storage (s3rver on 127.0.0.1, started and stopped here). Under CI=true a missing s3rver fails.
import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { buffer } from "node:stream/consumers";
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadS3rver, startS3rver, type TestS3 } from "../../../test/s3rver.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { parseRange } from "../../formats/files/serve.ts";
import { BlobMissingError, type BlobStore, BlobTooLargeError, createLocalBlobStore } from "./blob-store.ts";
import { createS3BlobStore, createS3Client } from "./s3-blob-store.ts";

const s3rverModule = await loadS3rver();
let s3: TestS3 | undefined;
let client: S3Client | undefined;
let roots = 0;

beforeAll(async () => {
  if (!s3rverModule) return;
  s3 = await startS3rver(s3rverModule);
  client = createS3Client(s3.settings);
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
  removeTempDirs();
});

interface Subject {
  store: BlobStore;
  /** Everything stored that is not a committed blob (temporary files, parts, objects). */
  leftovers(): Promise<string[]>;
  /** Every stored thing. */
  everything(): Promise<string[]>;
}

const implementations: { name: string; available: boolean; make(): Subject }[] = [
  {
    name: "local disk",
    available: true,
    make() {
      const dir = makeTempDir("packyard-contract-");
      const everything = async () =>
        readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile())
          .map((d) => relative(dir, join(d.parentPath, d.name)));
      return {
        store: createLocalBlobStore(dir),
        everything,
        leftovers: async () => (await everything()).filter((p) => !p.startsWith("sha256/")),
      };
    },
  },
  {
    name: "S3 (s3rver)",
    available: s3rverModule !== undefined,
    make() {
      const root = `contract-${++roots}/`;
      const everything = async () => {
        const keys: string[] = [];
        let token: string | undefined;
        do {
          const page = await client!.send(
            new ListObjectsV2Command({ Bucket: s3!.settings.bucket, Prefix: root, ContinuationToken: token }),
          );
          for (const o of page.Contents ?? []) keys.push(o.Key!.slice(root.length));
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
        return keys;
      };
      return {
        // A small part size, so a few MiB already go up in several parts.
        store: createS3BlobStore(client!, s3!.settings.bucket, root, { partSize: 5 * 1024 * 1024 }),
        everything,
        leftovers: async () => (await everything()).filter((p) => !p.startsWith("sha256/")),
      };
    },
  },
];

async function* chunked(bytes: Uint8Array, size = 64 * 1024) {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function put(store: BlobStore, bytes: Uint8Array) {
  const staged = await store.stage(chunked(bytes), { maxBytes: bytes.byteLength });
  await staged.commit();
  return staged;
}

describe.each(implementations)("blob store contract: $name", ({ available, make }) => {
  // Only off a CI machine can s3rver be missing (under CI=true that fails above).
  describe.skipIf(!available)(available ? "behaviour" : "skipped: s3rver is not installed", () => {
    it("round-trips contents of every size, with their digests", async () => {
      const { store, leftovers } = make();
      for (const size of [0, 1, 100_000, 6 * 1024 * 1024 + 123]) {
        const bytes = randomBytes(size);
        const staged = await store.stage(chunked(bytes), { maxBytes: size });
        expect(staged).toMatchObject({
          size,
          sha256: sha256(bytes),
          sha512: createHash("sha512").update(bytes).digest("hex"),
          sha1: createHash("sha1").update(bytes).digest("hex"),
          md5: createHash("md5").update(bytes).digest("hex"),
        });
        // Readable before commit (packages are parsed from the staged bytes), invisible until then.
        expect((await buffer(staged.read())).equals(bytes)).toBe(true);
        expect(await store.exists(staged.sha256)).toBe(false);
        await staged.commit();
        expect(await store.exists(staged.sha256)).toBe(true);
        expect((await buffer(await store.open(staged.sha256))).equals(bytes)).toBe(true);
        expect((await buffer(store.read(staged.sha256))).equals(bytes)).toBe(true);
      }
      expect(await leftovers()).toEqual([]);
    });

    it("stores bytes whose hash the caller computed", async () => {
      const { store } = make();
      const bytes = randomBytes(5000);
      await store.putBytes(bytes, sha256(bytes));
      expect((await buffer(await store.open(sha256(bytes)))).equals(bytes)).toBe(true);
    });

    it("reads byte ranges: closed, open-ended, suffix, one byte", async () => {
      const { store } = make();
      const bytes = randomBytes(7 * 1024 * 1024);
      const { sha256: key } = await put(store, bytes);
      for (const header of ["bytes=0-0", "bytes=10-20", "bytes=6000000-", "bytes=-500", "bytes=-99999999"]) {
        const range = parseRange(header, bytes.byteLength);
        if (!range) throw new Error(header);
        const expected = bytes.subarray(range.start, range.end + 1);
        const got = await buffer(await store.open(key, range));
        expect(got.byteLength, header).toBe(expected.byteLength);
        expect(got.equals(expected), header).toBe(true);
      }
    });

    it("opening a missing blob is BlobMissingError before any byte", async () => {
      const { store } = make();
      const missing = "0".repeat(64);
      await expect(store.open(missing)).rejects.toBeInstanceOf(BlobMissingError);
      await expect(store.open(missing, { start: 0, end: 10 })).rejects.toBeInstanceOf(BlobMissingError);
    });

    it("stats size and modification time", async () => {
      const { store } = make();
      const before = Date.now();
      const bytes = randomBytes(4321);
      const { sha256: key } = await put(store, bytes);
      const info = await store.stat(key);
      expect(info?.size).toBe(4321);
      // S3 keeps whole seconds.
      expect(info!.modifiedAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
      expect(info!.modifiedAt).toBeLessThanOrEqual(Date.now() + 1000);
      expect(await store.modifiedAt(key)).toBe(info!.modifiedAt);
      expect(await store.stat("1".repeat(64))).toBeUndefined();
      expect(await store.modifiedAt("1".repeat(64))).toBeUndefined();
    });

    it("deletes, and deleting again (or something never stored) is fine", async () => {
      const { store, everything } = make();
      const { sha256: key } = await put(store, randomBytes(100));
      await store.delete(key);
      await store.delete(key);
      await store.delete("2".repeat(64));
      expect(await store.exists(key)).toBe(false);
      await expect(store.open(key)).rejects.toBeInstanceOf(BlobMissingError);
      expect(await everything()).toEqual([]);
    });

    it("lists by prefix in pages", async () => {
      const { store } = make();
      const keys: string[] = [];
      for (let i = 0; i < 7; i++) keys.push((await put(store, randomBytes(10 + i))).sha256);
      keys.sort();
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listPage({ cursor, limit: 3 });
        expect(page.entries.length).toBeLessThanOrEqual(3);
        for (const e of page.entries) {
          seen.push(e.sha256);
          expect(e.size).toBeGreaterThanOrEqual(10);
          expect(e.modifiedAt).toBeGreaterThan(0);
        }
        cursor = page.cursor;
        pages++;
      } while (cursor !== undefined);
      expect(pages).toBeGreaterThanOrEqual(3);
      expect(seen).toEqual(keys);
      const all: string[] = [];
      for await (const key of store.list({ pageSize: 2 })) all.push(key);
      expect(all).toEqual(keys);
      const prefix = keys[0]!.slice(0, 1);
      const byPrefix: string[] = [];
      for await (const key of store.list({ prefix, pageSize: 1 })) byPrefix.push(key);
      expect(byPrefix).toEqual(keys.filter((k) => k.startsWith(prefix)));
      let unused = "00000000";
      while (keys.some((k) => k.startsWith(unused))) unused = randomBytes(4).toString("hex");
      expect((await store.listPage({ prefix: unused })).entries).toEqual([]);
    });

    it("concurrent writes of the same content store it once", async () => {
      const { store, everything } = make();
      const bytes = randomBytes(300_000);
      const staged = await Promise.all(
        Array.from({ length: 5 }, () => store.stage(chunked(bytes), { maxBytes: bytes.byteLength })),
      );
      await Promise.all(staged.map((s) => s.commit()));
      const stored = await everything();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.endsWith(sha256(bytes))).toBe(true);
      expect((await buffer(await store.open(sha256(bytes)))).equals(bytes)).toBe(true);
    });

    it("a failed, over-limit or discarded stage leaves nothing", async () => {
      const { store, everything } = make();
      const big = randomBytes(6 * 1024 * 1024);
      async function* broken() {
        yield* chunked(big);
        throw new Error("connection reset");
      }
      await expect(store.stage(broken(), { maxBytes: 10 * 1024 * 1024 })).rejects.toThrow("connection reset");
      await expect(store.stage(chunked(big), { maxBytes: 5_500_000 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      await expect(store.stage(chunked(big.subarray(0, 100)), { maxBytes: 99 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      const staged = await store.stage(chunked(big.subarray(0, 1000)), { maxBytes: 1000 });
      await staged.discard();
      expect(await store.exists(staged.sha256)).toBe(false);
      expect(await everything()).toEqual([]);
    });

    it("removes stale temporary data (a stage cut off by a crash)", async () => {
      const { store, leftovers } = make();
      // Never committed; larger than one part (on S3 a smaller body is only ever in memory).
      const size = 6 * 1024 * 1024;
      await store.stage(chunked(randomBytes(size)), { maxBytes: size });
      expect(await leftovers()).toHaveLength(1);
      expect(await store.removeStaleTemporary(60_000)).toBe(0);
      await new Promise((r) => setTimeout(r, 20));
      expect(await store.removeStaleTemporary(0)).toBe(1);
      expect(await leftovers()).toEqual([]);
    });
  });
});
