import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buffer, text } from "node:stream/consumers";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { BlobTooLargeError, commonPrefixLength, createLocalBlobStore } from "./blob-store.ts";

const root = () => makeTempDir("packyard-blobs-");
async function* chunks(...parts: string[]) {
  for (const p of parts) yield new TextEncoder().encode(p);
}
const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());

describe("local blob store", () => {
  it("hashes while writing and stores under the sha256 only on commit", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    const staged = await store.stage(chunks("hello ", "world"), { maxBytes: 100 });
    const expected = createHash("sha256").update("hello world").digest("hex");
    expect(staged).toMatchObject({
      size: 11,
      sha256: expected,
      sha512: createHash("sha512").update("hello world").digest("hex"),
      sha1: createHash("sha1").update("hello world").digest("hex"),
      md5: createHash("md5").update("hello world").digest("hex"),
    });
    expect(await store.exists(expected)).toBe(false);
    await staged.commit();
    expect(await store.exists(expected)).toBe(true);
    expect(
      readFileSync(join(dir, "sha256", expected.slice(0, 2), expected.slice(2, 4), expected), "utf8"),
    ).toBe("hello world");
    expect(await text(store.read(expected, { start: 6, end: 10 }))).toBe("world");
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
  });

  it("creates its directories when a write finds them missing, however they went", async () => {
    const dir = join(root(), "not-yet");
    const store = createLocalBlobStore(dir);
    const put = async (content: string) => {
      const sha256 = createHash("sha256").update(content).digest("hex");
      await store.putBytes(new TextEncoder().encode(content), sha256);
      return sha256;
    };
    const first = await put("put into a store whose root does not exist");
    const staged = await store.stage(chunks("staged"), { maxBytes: 100 });
    await staged.commit();
    // Removed behind the store's back (an operator's cleanup): the next writes make them again.
    rmSync(join(dir, "tmp"), { recursive: true });
    rmSync(join(dir, "sha256", first.slice(0, 2)), { recursive: true });
    const again = await put("put into a store whose root does not exist");
    expect(again).toBe(first);
    expect(await text(store.read(first))).toBe("put into a store whose root does not exist");
    rmSync(join(dir, "tmp"), { recursive: true });
    rmSync(join(dir, "sha256", staged.sha256.slice(0, 2)), { recursive: true });
    await (await store.stage(chunks("staged"), { maxBytes: 100 })).commit();
    expect(await text(store.read(staged.sha256))).toBe("staged");
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
  });

  it("stores identical content once", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    for (let i = 0; i < 3; i++) await (await store.stage(chunks("same"), { maxBytes: 10 })).commit();
    expect(filesUnder(dir)).toHaveLength(1);
    const listed = [];
    for await (const key of store.list()) listed.push(key);
    expect(listed).toHaveLength(1);
  });

  it("refuses a body over the limit and leaves nothing", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    await expect(store.stage(chunks("12345", "67890", "x"), { maxBytes: 10 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(filesUnder(dir)).toEqual([]);
  });

  it("leaves nothing when the body fails midway", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    async function* broken() {
      yield new Uint8Array(1000);
      throw new Error("connection reset");
    }
    await expect(store.stage(broken(), { maxBytes: 10_000 })).rejects.toThrow("connection reset");
    expect(filesUnder(dir)).toEqual([]);
  });

  // Chunks larger than the first (64 KiB) buffer, and small ones that fill it and then the 2 MiB pair.
  it.each([700_001, 9_999])(
    "stores a body of odd-sized chunks (%i bytes) across its write buffers exactly, with only the digests asked for",
    async (chunkBytes) => {
      const dir = root();
      const store = createLocalBlobStore(dir);
      const body = new Uint8Array(5 * 1024 * 1024 + 12_345).map((_, i) => (i * 13) & 0xff);
      async function* odd() {
        for (let offset = 0; offset < body.length; offset += chunkBytes)
          yield body.subarray(offset, offset + chunkBytes);
      }
      const staged = await store.stage(odd(), { maxBytes: body.length, digests: ["md5"] });
      const sha256 = createHash("sha256").update(body).digest("hex");
      expect(staged).toMatchObject({
        size: body.length,
        sha256,
        sha512: "",
        sha1: "",
        md5: createHash("md5").update(body).digest("hex"),
      });
      await staged.commit();
      expect(
        createHash("sha256")
          .update(readFileSync(join(dir, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256)))
          .digest("hex"),
      ).toBe(sha256);
    },
  );

  it("releases chunks it owns once written, when told they are nobody else's", async () => {
    const store = createLocalBlobStore(root());
    const chunks = [new Uint8Array(70_000).fill(1), new Uint8Array(5).fill(2)];
    const shared = new Uint8Array(100).fill(3);
    async function* body() {
      yield* chunks;
      yield shared.subarray(0, 50);
    }
    const staged = await store.stage(body(), { maxBytes: 100_000, releaseChunks: true });
    const expected = createHash("sha256")
      .update(new Uint8Array(70_000).fill(1))
      .update(new Uint8Array(5).fill(2))
      .update(new Uint8Array(50).fill(3))
      .digest("hex");
    expect(staged).toMatchObject({ size: 70_055, sha256: expected });
    expect(
      createHash("sha256")
        .update(await buffer(staged.read()))
        .digest("hex"),
    ).toBe(expected);
    // Whole buffers are freed; a view of part of a buffer is left alone.
    expect(chunks.map((c) => c.byteLength)).toEqual([0, 0]);
    expect(shared.byteLength).toBe(100);
    await staged.discard();
  });

  it("discard throws the staged file away", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    const staged = await store.stage(chunks("temporary"), { maxBytes: 100 });
    await staged.discard();
    expect(await store.exists(staged.sha256)).toBe(false);
    expect(filesUnder(dir)).toEqual([]);
  });

  it("reads a small staged body from memory, a large one from its file", async () => {
    const store = createLocalBlobStore(root());
    const small = await store.stage(chunks("a package"), { maxBytes: 1 << 20 });
    // The temporary file is gone once committed: only the copy in memory can still answer.
    await small.commit();
    expect(await text(small.read())).toBe("a package");
    const big = "x".repeat(100 * 1024);
    const large = await store.stage(chunks(big), { maxBytes: 1 << 20 });
    expect(await text(large.read())).toBe(big);
    await large.commit();
    await expect(text(large.read())).rejects.toMatchObject({ code: "ENOENT" });
  });
});

afterAll(removeTempDirs);

describe("spares: index files written from a copy of the previous one (decision 049)", () => {
  const bytesOf = (text: string) => new TextEncoder().encode(text);
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
  const body = "stanza\n".repeat(20_000);
  const previous = bytesOf(`${body}tail one\n`);

  it("keeps the common beginning and writes the rest; the spare is used up", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    // Shorter at its end, then longer: the copy is cut at the first byte that differs.
    for (const next of [`${body}tail`, `${body}tail two, longer\n`]) {
      const spare = await store.prepareSpare!(previous);
      expect(readdirSync(join(dir, "tmp"))).toEqual([spare.path.split("/").pop()]);
      const bytes = bytesOf(next);
      await store.putBytes(bytes, sha256(bytes), { spare });
      expect(await text(store.read(sha256(bytes)))).toBe(next);
      expect(readdirSync(join(dir, "tmp"))).toEqual([]);
    }
  });

  it("writes the file whole when less than half begins alike, or when the spare was swept", async () => {
    const dir = root();
    const store = createLocalBlobStore(dir);
    const different = bytesOf(`other\n${body}`);
    await store.putBytes(different, sha256(different), { spare: await store.prepareSpare!(previous) });
    expect(await buffer(store.read(sha256(different)))).toEqual(Buffer.from(different));
    const swept = await store.prepareSpare!(previous);
    rmSync(swept.path);
    const alike = bytesOf(`${body}tail three\n`);
    await store.putBytes(alike, sha256(alike), { spare: swept });
    expect(await buffer(store.read(sha256(alike)))).toEqual(Buffer.from(alike));
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
    await store.discardSpare!(await store.prepareSpare!(previous));
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
  });

  it("finds the common beginning of two byte strings", () => {
    const a = bytesOf("abcdefgh");
    expect(commonPrefixLength(a, bytesOf("abcdefgh"))).toBe(8);
    expect(commonPrefixLength(a, bytesOf("abcdefghij"))).toBe(8);
    expect(commonPrefixLength(a, bytesOf("abcdXfgh"))).toBe(4);
    expect(commonPrefixLength(a, bytesOf("Xbcdefgh"))).toBe(0);
    expect(commonPrefixLength(a, bytesOf("abcdefgX"))).toBe(7);
    expect(commonPrefixLength(a, new Uint8Array(0))).toBe(0);
    const long = Buffer.alloc(100_003, 7);
    const changed = Buffer.from(long);
    changed[77_777] = 8;
    expect(commonPrefixLength(long, changed)).toBe(77_777);
  });
});
