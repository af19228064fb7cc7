// xz streams decode each on their own: one held open mid-way (an index arriving at 2 bytes a
// second) does not make another stream or a .deb's control.tar.xz wait (issue 37).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decompressBounded } from "../deb/bounded-decompress.ts";
import { decompressStream } from "./decompress-stream.ts";

const xz = (bytes: Uint8Array) =>
  new Uint8Array(execFileSync("xz", ["-c", "--check=crc64"], { input: bytes }));

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// Text that compresses, with enough random bytes that the decoder gives several output buffers.
const payload = Buffer.concat([
  Buffer.from("Package: a\nVersion: 1\n\n".repeat(20_000)),
  randomBytes(300_000),
]);

describe("xz decompression", () => {
  it("round-trips a stream given a few bytes at a time", async () => {
    const compressed = xz(payload);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < compressed.length; at += 7_777) pieces.push(compressed.subarray(at, at + 7_777));
    expect((await readAll(decompressStream(streamOf(...pieces), "xz"))).equals(payload)).toBe(true);
  });

  it("reports a stream cut short", async () => {
    const compressed = xz(payload);
    await expect(readAll(decompressStream(streamOf(compressed.subarray(0, 1000)), "xz"))).rejects.toThrow(
      /xz data/,
    );
  });

  it("decodes other streams while one is held open mid-way", async () => {
    const compressed = xz(payload);
    // A sender that gives the first kilobyte, then never another byte.
    const held = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(compressed.subarray(0, 1024));
      },
    });
    const heldReader = decompressStream(held, "xz").getReader();
    const first = await heldReader.read();
    expect(first.done).toBe(false);
    // Another user's .deb control.tar.xz and another import's index both complete meanwhile.
    const control = Buffer.from("control tar bytes ".repeat(1000));
    expect(Buffer.from(await decompressBounded(xz(control), "xz", 1 << 20)).equals(control)).toBe(true);
    expect((await readAll(decompressStream(streamOf(xz(payload)), "xz"))).equals(payload)).toBe(true);
    await heldReader.cancel();
  });
});
