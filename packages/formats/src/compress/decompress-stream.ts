// Decompresses a web stream as it arrives: gzip and zstd with Node's zlib, xz with a
// WebAssembly decoder of its own per stream (xz-stream.ts), so no stream waits for another.
import { Duplex } from "node:stream";
import { createGunzip, createZstdDecompress } from "node:zlib";
import { xzDecompressStream } from "./xz-stream.ts";

export type StreamCompression = "none" | "gzip" | "xz" | "zstd";

/** The compression a file name's suffix says, or undefined for one we cannot read (.bz2, .zck). */
export function compressionOfName(name: string): StreamCompression | undefined {
  if (/\.gz$/i.test(name)) return "gzip";
  if (/\.xz$/i.test(name)) return "xz";
  if (/\.zst$/i.test(name)) return "zstd";
  if (/\.(bz2|lzma|zck|lz4|sqlite)$/i.test(name)) return undefined;
  return "none";
}

export function decompressStream(
  input: ReadableStream<Uint8Array>,
  compression: StreamCompression,
): ReadableStream<Uint8Array> {
  switch (compression) {
    case "none":
      return input;
    case "gzip":
      return input.pipeThrough(Duplex.toWeb(createGunzip()) as TransformStream<Uint8Array, Uint8Array>);
    case "zstd":
      return input.pipeThrough(
        Duplex.toWeb(createZstdDecompress()) as TransformStream<Uint8Array, Uint8Array>,
      );
    case "xz":
      return xzDecompressStream(input);
  }
}
