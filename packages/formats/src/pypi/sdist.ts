// A source distribution's core metadata: `{name}-{version}/PKG-INFO` inside its .tar.gz, found
// while the archive streams (compress/find-in-tar-gz.ts, decision 085), with its bounds. Named
// errors for anything else.
import type { Readable } from "node:stream";
import { findInTarGz } from "../compress/find-in-tar-gz.ts";
import { type CoreMetadata, MAX_METADATA_BYTES, PypiMetadataError, parseCoreMetadata } from "./metadata.ts";

export const MAX_SDIST_ENTRIES = 100_000;

export async function readSdistMetadata(
  body: AsyncIterable<Uint8Array> | Readable,
  options: { maxDecompressedBytes: number },
): Promise<{ bytes: Uint8Array; metadata: CoreMetadata }> {
  const fail = (message: string) => new PypiMetadataError(`The source distribution ${message}`);
  const bytes = await findInTarGz(body, {
    match: (name) => /^[^/]+\/PKG-INFO$/.test(name),
    maxEntries: MAX_SDIST_ENTRIES,
    maxFileBytes: MAX_METADATA_BYTES,
    maxDecompressedBytes: options.maxDecompressedBytes,
    fail,
  });
  if (!bytes) throw fail("has no PKG-INFO at its top directory");
  return { bytes, metadata: parseCoreMetadata(bytes) };
}
