// Decompresses a .deb's control.tar member with a hard cap on output, so a small hostile member
// cannot expand into gigabytes before we notice.
import { createGunzip, createZstdDecompress } from "node:zlib";
import { xzDecompressStream } from "../compress/xz-stream.ts";
import { DebFormatError } from "./deb-format-error.ts";

export type DebCompression = "none" | "gzip" | "xz" | "zstd";

function tooLarge(maxBytes: number): DebFormatError {
  return new DebFormatError(
    "DEB_CONTROL_TOO_LARGE",
    `control.tar decompresses to more than ${maxBytes} bytes`,
  );
}

function joinChunks(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

async function collectZlib(
  stream: ReturnType<typeof createGunzip>,
  input: Uint8Array,
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  stream.end(input);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      stream.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return joinChunks(chunks, total);
}

async function collectXz(input: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  // A decoder of its own (compress/xz-stream.ts): cancelled at the cap, it frees its memory.
  const compressed = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(input);
      controller.close();
    },
  });
  const reader = xzDecompressStream(compressed).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return joinChunks(chunks, total);
}

export async function decompressBounded(
  input: Uint8Array,
  compression: DebCompression,
  maxBytes: number,
): Promise<Uint8Array> {
  try {
    switch (compression) {
      case "none":
        if (input.length > maxBytes) throw tooLarge(maxBytes);
        return input;
      case "gzip":
        return await collectZlib(createGunzip(), input, maxBytes);
      case "zstd":
        return await collectZlib(createZstdDecompress(), input, maxBytes);
      case "xz":
        return await collectXz(input, maxBytes);
    }
  } catch (error) {
    if (error instanceof DebFormatError) throw error;
    throw new DebFormatError(
      "DEB_CORRUPT_MEMBER",
      `control.tar (${compression}) could not be decompressed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
