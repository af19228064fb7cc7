// One file out of a .tar.gz as it streams (gunzip, then tar-stream), stopping once it is read:
// an sdist's PKG-INFO, an npm tarball's package.json (decision 085). Bounded for hostile archives:
// entries looked at, bytes decompressed, the file's own size. `fail` makes the format's error.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";

export interface FindInTarGz {
  /** Whether an entry (its path, any leading "./" removed) is the file wanted. */
  match(name: string): boolean;
  maxEntries: number;
  maxFileBytes: number;
  maxDecompressedBytes: number;
  /** The format's error for a problem (its message describes it). */
  fail(message: string): Error;
}

/** Stops the pipeline once the file is read. */
class Found extends Error {}

/** The file's bytes, or undefined when the archive has none that matches. */
export async function findInTarGz(
  body: AsyncIterable<Uint8Array> | Readable,
  options: FindInTarGz,
): Promise<Buffer | undefined> {
  // The format's own errors pass through; anything else (zlib, tar) is wrapped in one.
  const ours = new WeakSet<Error>();
  const fail = (message: string) => {
    const error = options.fail(message);
    ours.add(error);
    return error;
  };
  const tar = extract();
  let bytes: Buffer | undefined;
  let entries = 0;
  let decompressed = 0;
  tar.on("entry", (header, stream, next) => {
    if (++entries > options.maxEntries) {
      tar.destroy(fail(`has more than ${options.maxEntries} entries`));
      return;
    }
    if (header.type !== "file" || !options.match(header.name.replace(/^\.\//, ""))) {
      stream.on("end", next);
      stream.resume();
      return;
    }
    if ((header.size ?? 0) > options.maxFileBytes) {
      tar.destroy(fail(`has a ${header.name} larger than ${options.maxFileBytes} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on("end", () => {
      bytes = Buffer.concat(chunks);
      tar.destroy(new Found());
    });
  });
  const gunzip = createGunzip();
  gunzip.on("data", (chunk: Buffer) => {
    decompressed += chunk.byteLength;
    if (decompressed > options.maxDecompressedBytes)
      gunzip.destroy(fail(`decompresses to more than ${options.maxDecompressedBytes} bytes`));
  });
  try {
    await pipeline(body instanceof Readable ? body : Readable.from(body), gunzip, tar);
  } catch (error) {
    if (!(error instanceof Found)) {
      if (error instanceof Error && ours.has(error)) throw error;
      throw fail(`is not a readable .tar.gz: ${(error as Error).message}`);
    }
  }
  return bytes;
}
