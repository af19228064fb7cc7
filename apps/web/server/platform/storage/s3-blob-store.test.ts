// The S3 store's requests on an upload's path (issue 44): a body that fits in one part is staged
// in memory and committed with one PutObject to its content key (no temporary object, no GET to
// read it back, no HEAD, COPY or DELETE); a larger one still goes up in parts to a temporary
// object. Requests are counted by a middleware on the client; s3rver on 127.0.0.1 stores them.
// Under CI=true a missing s3rver fails (test/s3rver.ts).
import { createHash, randomBytes } from "node:crypto";
import { buffer } from "node:stream/consumers";
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadS3rver, startS3rver, type TestS3 } from "../../../test/s3rver.ts";
import { BlobTooLargeError } from "./blob-store.ts";
import { createS3BlobStore, createS3Client } from "./s3-blob-store.ts";

const s3rverModule = await loadS3rver();
let s3: TestS3 | undefined;
let client: S3Client | undefined;
/** The commands the client sent, in order. */
const sent: string[] = [];
let roots = 0;

const PART = 5 * 1024 * 1024;

beforeAll(async () => {
  if (!s3rverModule) return;
  s3 = await startS3rver(s3rverModule);
  client = createS3Client(s3.settings);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? "?");
      return next(args);
    },
    { step: "initialize", name: "countRequests" },
  );
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

async function* chunked(bytes: Uint8Array, size = 64 * 1024) {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, i + size);
}
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A store under a root of its own, and what lies under that root. */
function subject() {
  const root = `s3-store-${++roots}/`;
  const keys = async () => {
    const page = await client!.send(new ListObjectsV2Command({ Bucket: s3!.settings.bucket, Prefix: root }));
    return (page.Contents ?? []).map((o) => o.Key!.slice(root.length)).sort();
  };
  return { store: createS3BlobStore(client!, s3!.settings.bucket, root, { partSize: PART }), keys };
}

/** The commands sent while `fn` ran. */
async function requestsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const from = sent.length;
  await fn();
  return sent.slice(from);
}

describe.skipIf(!s3rverModule)("S3 store: a body that fits in one part", () => {
  it("is staged in memory, read from there and committed with one PutObject to its content key", async () => {
    const { store, keys } = subject();
    const bytes = randomBytes(300_000);
    let staged: Awaited<ReturnType<typeof store.stage>> | undefined;
    expect(
      await requestsOf(async () => {
        staged = await store.stage(chunked(bytes), { maxBytes: bytes.byteLength });
      }),
    ).toEqual([]);
    expect(staged).toMatchObject({
      size: bytes.byteLength,
      sha256: sha256(bytes),
      sha512: createHash("sha512").update(bytes).digest("hex"),
    });
    // The package is parsed from the staged bytes: from memory, no GetObject.
    let read: Buffer | undefined;
    expect(
      await requestsOf(async () => {
        read = await buffer(staged!.read());
      }),
    ).toEqual([]);
    expect(read!.equals(bytes)).toBe(true);
    expect(await keys()).toEqual([]);

    expect(await requestsOf(() => staged!.commit())).toEqual(["PutObjectCommand"]);
    expect(await keys()).toEqual([`sha256/${sha256(bytes)}`]);
    expect((await buffer(await store.open(sha256(bytes)))).equals(bytes)).toBe(true);
    // Committing again is a no-op.
    expect(await requestsOf(() => staged!.commit())).toEqual([]);

    // The same content once more: written again without asking first, still one object, whole.
    const again = await store.stage(chunked(bytes), { maxBytes: bytes.byteLength });
    expect(await requestsOf(() => again.commit())).toEqual(["PutObjectCommand"]);
    expect(await keys()).toEqual([`sha256/${sha256(bytes)}`]);
    expect((await buffer(await store.open(sha256(bytes)))).equals(bytes)).toBe(true);
  });

  it("up to exactly one part stays in memory; one byte more goes up in parts to a temporary object", async () => {
    const { store, keys } = subject();
    const bytes = randomBytes(PART + 1);
    const whole = bytes.subarray(0, PART);
    const inMemory = await store.stage(chunked(whole), { maxBytes: PART });
    expect(await keys()).toEqual([]);
    expect((await buffer(inMemory.read())).equals(whole)).toBe(true);

    let big: Awaited<ReturnType<typeof store.stage>> | undefined;
    const staging = await requestsOf(async () => {
      big = await store.stage(chunked(bytes), { maxBytes: bytes.byteLength });
    });
    expect(staging).toContain("CreateMultipartUploadCommand");
    expect((await keys()).filter((key) => key.startsWith("tmp/"))).toHaveLength(1);
    expect(big!.sha256).toBe(sha256(bytes));
    expect((await buffer(big!.read())).equals(bytes)).toBe(true);
    await big!.commit();
    await inMemory.commit();
    expect(await keys()).toEqual([`sha256/${sha256(bytes)}`, `sha256/${sha256(whole)}`].sort());
    expect((await buffer(await store.open(sha256(bytes)))).equals(bytes)).toBe(true);
    expect((await buffer(await store.open(sha256(whole)))).equals(whole)).toBe(true);
  });

  it("over the limit, failed or discarded, it sends nothing and leaves nothing", async () => {
    const { store, keys } = subject();
    const bytes = randomBytes(1000);
    const requests = await requestsOf(async () => {
      await expect(store.stage(chunked(bytes, 100), { maxBytes: 999 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      async function* broken() {
        yield bytes.subarray(0, 100);
        throw new Error("connection reset");
      }
      await expect(store.stage(broken(), { maxBytes: 1000 })).rejects.toThrow("connection reset");
      const staged = await store.stage(chunked(bytes), { maxBytes: 1000 });
      await staged.discard();
      await staged.commit();
    });
    expect(requests).toEqual([]);
    expect(await keys()).toEqual([]);
    expect(await store.exists(sha256(bytes))).toBe(false);
  });

  it("a body over the limit is let go as soon as the limit is passed", async () => {
    const { store } = subject();
    let yielded = 0;
    let released = false;
    async function* endless() {
      try {
        for (;;) {
          yielded++;
          yield new Uint8Array(1024);
        }
      } finally {
        released = true;
      }
    }
    await expect(store.stage(endless(), { maxBytes: 10 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(released).toBe(true);
    expect(yielded).toBe(11);
  });
});
