import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { gzipBlocks } from "./gzip-members.ts";
import { type KeyedChunk, ResumableDigests } from "./resumable-digests.ts";

const chunk = (key: string, size = 100): KeyedChunk => ({
  key,
  bytes: Buffer.from(`${key}:`.padEnd(size, key.slice(-1))),
});
const whole = (chunks: readonly KeyedChunk[], tail = Buffer.alloc(0)) => {
  const bytes = Buffer.concat([...chunks.map((c) => c.bytes), tail]);
  return [createHash("sha256").update(bytes).digest("hex"), createHash("sha512").update(bytes).digest("hex")];
};

describe("ResumableDigests", () => {
  const chunks = Array.from({ length: 50 }, (_, i) => chunk(`block-${i}`));

  it("gives the digests of the whole document, whatever changed since the previous one", () => {
    const digests = new ResumableDigests(["sha256", "sha512"], { checkpointBytes: 500 });
    expect(digests.digest(chunks)).toEqual(whole(chunks));
    const tail = Buffer.from("trailer");
    // Added at the end, in the middle, at the start; removed; unchanged; emptied.
    const steps = [
      [...chunks, chunk("block-new-1")],
      [...chunks.slice(0, 20), chunk("block-new-2"), ...chunks.slice(20)],
      [chunk("block-new-3"), ...chunks],
      chunks.slice(0, 30),
      chunks.slice(0, 30),
      [],
    ];
    for (const step of steps) {
      expect(digests.digest(step)).toEqual(whole(step));
      expect(digests.digest(step, tail)).toEqual(whole(step, tail));
    }
  });

  it("re-hashes only from the checkpoint before the first changed chunk", () => {
    const digests = new ResumableDigests(["sha256"], { checkpointBytes: 1000 });
    digests.digest(chunks);
    expect(digests.hashedBytes).toBe(5000);
    digests.digest([...chunks, chunk("block-new")]);
    // The last checkpoint is after chunk 50 (5,000 bytes): only the new chunk is hashed.
    expect(digests.hashedBytes).toBe(100);
    digests.digest([...chunks.slice(0, 25), chunk("block-changed"), ...chunks.slice(26)]);
    // Resumed after chunk 20 (the checkpoint at or before chunk 25).
    expect(digests.hashedBytes).toBe(3000);
    digests.digest([chunk("first"), ...chunks]);
    expect(digests.hashedBytes).toBe(5100);
  });

  it("makes gzipBlocks' digests of the open and the compressed document", () => {
    const open = new ResumableDigests(["sha256", "sha512"]);
    const gzip = new ResumableDigests(["sha256", "sha512"]);
    const texts = ["Package: a\n", "\nPackage: b\n", "\nPackage: c\n"];
    for (const blocks of [texts, [...texts, "\nPackage: d\n"], texts.slice(1)]) {
      const document = gzipBlocks(blocks, { sha512: true, digests: { open, gzip } });
      expect([document.sha256, document.sha512]).toEqual(
        whole([{ key: "", bytes: Buffer.from(blocks.join("")) }]),
      );
      expect(document.gzipDigests).toEqual({
        sha256: createHash("sha256").update(document.gzip).digest("hex"),
        sha512: createHash("sha512").update(document.gzip).digest("hex"),
      });
    }
  });
});
