// A wheel's core metadata (`{name}-{version}.dist-info/METADATA`), read from the zip through
// ranged reads (the central directory at its end, then the one entry), so a large wheel is never
// read whole or held in memory. Pure apart from the ranges it is given; yauzl reads the zip
// (decision 085). Hostile archives are refused with named errors: too many entries, no or several
// METADATA files, a METADATA too large, a zip yauzl cannot read.
import { Readable } from "node:stream";
import yauzl from "yauzl";
import { type CoreMetadata, MAX_METADATA_BYTES, PypiMetadataError, parseCoreMetadata } from "./metadata.ts";

/** Where the wheel's bytes are: its size and a reader of any range (end exclusive). */
export interface RangeSource {
  size: number;
  read(start: number, end: number): AsyncIterable<Uint8Array> | Readable;
}

/** Entries a wheel may have; more is refused (a zip bomb of names). */
export const MAX_WHEEL_ENTRIES = 100_000;

class SourceReader extends yauzl.RandomAccessReader {
  readonly #source: RangeSource;
  constructor(source: RangeSource) {
    super();
    this.#source = source;
  }
  override _readStreamForRange(start: number, end: number): Readable {
    const stream = this.#source.read(start, end);
    return stream instanceof Readable ? stream : Readable.from(stream);
  }
}

function fail(message: string): PypiMetadataError {
  return new PypiMetadataError(`The wheel ${message}`);
}

/** The wheel's METADATA bytes and what they say. */
export async function readWheelMetadata(
  source: RangeSource,
): Promise<{ bytes: Uint8Array; metadata: CoreMetadata }> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromRandomAccessReader(
        new SourceReader(source),
        source.size,
        { lazyEntries: true, autoClose: false, validateEntrySizes: true },
        (error, file) => (error ? reject(error) : resolve(file)),
      ),
    );
  } catch (error) {
    throw fail(`is not a zip archive: ${(error as Error).message}`);
  }
  try {
    if (zip.entryCount > MAX_WHEEL_ENTRIES) throw fail(`has more than ${MAX_WHEEL_ENTRIES} entries`);
    const found: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: yauzl.Entry) => {
        if (/^[^/]+\.dist-info\/METADATA$/.test(entry.fileName)) found.push(entry);
        zip.readEntry();
      });
      zip.on("end", () => resolve());
      zip.on("error", reject);
      zip.readEntry();
    }).catch((error: unknown) => {
      if (error instanceof PypiMetadataError) throw error;
      throw fail(`cannot be read: ${(error as Error).message}`);
    });
    if (found.length !== 1)
      throw fail(found.length === 0 ? "has no .dist-info/METADATA" : "has more than one .dist-info/METADATA");
    const entry = found[0]!;
    if (entry.uncompressedSize > MAX_METADATA_BYTES)
      throw fail(`METADATA is larger than ${MAX_METADATA_BYTES} bytes`);
    const stream = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (error, s) =>
        error ? reject(fail(`METADATA cannot be read: ${error.message}`)) : resolve(s),
      ),
    );
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_METADATA_BYTES) throw fail(`METADATA is larger than ${MAX_METADATA_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    return { bytes, metadata: parseCoreMetadata(bytes) };
  } finally {
    zip.close();
  }
}
