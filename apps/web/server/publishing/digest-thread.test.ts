import { createHash } from "node:crypto";
import { sharedBytes } from "@packyard/formats/compress/gzip-members.ts";
import { type KeyedChunk, ResumableDigests } from "@packyard/formats/compress/resumable-digests.ts";
import { afterAll, describe, expect, it } from "vitest";
import { DigestThread } from "./digest-thread.ts";

const thread = new DigestThread();
afterAll(() => thread.close());

const chunks = (names: readonly string[]): KeyedChunk[] =>
  names.map((key) => ({ key, bytes: sharedBytes(`${key}\n`.repeat(80_000)) }));
const sha = (algorithm: string, list: readonly KeyedChunk[]) => {
  const hash = createHash(algorithm);
  for (const chunk of list) hash.update(chunk.bytes);
  return hash.digest("hex");
};

describe("DigestThread", () => {
  it("computes SHA512 in the other thread while SHA256 is computed here, resuming both alike", async () => {
    // Both sides checkpoint every 256 KiB (the default): every second chunk here.
    const here = new ResumableDigests(["sha256"]);
    const there = thread.hasher(["sha512"]);
    const documents = [
      ["a", "b", "c", "d", "e"],
      ["a", "b", "c", "d", "e", "f"],
      ["a", "b", "x", "d", "e", "f"],
      ["first", "a", "b", "x", "d", "e", "f"],
    ].map(chunks);
    for (const document of documents) {
      let ran = 0;
      const digests = await here.digestWith(there, document, { meanwhile: () => ran++ });
      expect(digests).toEqual([sha("sha256", document), sha("sha512", document)]);
      expect(ran).toBe(1);
    }
    expect(thread.available).toBe(true);
  });

  it("fails a digest whose midstates the thread does not have, so the caller hashes afresh", async () => {
    const there = thread.hasher(["sha512"]);
    await expect(there.hash(3, [sharedBytes("x")])).rejects.toThrow(/no midstate/);
  });
});
