// Reads an .rpm's lead and headers from bytes or a stream, stopping at the payload, and extracts its metadata.
import { ByteReader, type ByteSource } from "./byte-source.ts";
import { headerStartAfter, parseRpmFile, type RpmFile } from "./rpm-file.ts";
import { RpmFormatError, type RpmPart } from "./rpm-format-error.ts";
import { HEADER_INTRO_SIZE, parseRpmHeader, readHeaderIndex, readHeaderIntro } from "./rpm-header.ts";
import { LEAD_SIZE, parseRpmLead } from "./rpm-lead.ts";
import { extractRpmMetadata, type RpmPackageMetadata } from "./rpm-package-metadata.ts";

export interface RpmPackage {
  file: RpmFile;
  metadata: RpmPackageMetadata;
}

export interface ReadRpmOptions {
  /**
   * Leave the source open and hand back the rest of it (payload) as `rest`. By default the
   * source is closed once the main header is read: indexing never needs the payload.
   */
  keepSourceOpen?: boolean;
}

export interface ReadRpmResult extends RpmPackage {
  /** With keepSourceOpen: the bytes after the main header, from the same source. */
  rest?: AsyncIterable<Uint8Array>;
}

/** Parses a package from bytes holding at least the lead and both headers. */
export function parseRpmPackage(bytes: Uint8Array): RpmPackage {
  const file = parseRpmFile(bytes);
  return { file, metadata: extractRpmMetadata(file.signature, file.header, file) };
}

/**
 * Reads only as far as the end of the main header. Sizes are checked against the caps before
 * anything is buffered, so a hostile length field fails fast instead of waiting for 4 GiB.
 */
export async function readRpmPackage(
  source: ByteSource,
  options: ReadRpmOptions = {},
): Promise<ReadRpmResult> {
  const reader = new ByteReader(source);
  let keepOpen = false;
  try {
    const need = async (length: number, part: RpmPart) => {
      if ((await reader.readExactly(length)) === null) {
        throw new RpmFormatError(
          "RPM_TRUNCATED",
          `file ends in the ${length} bytes after offset ${reader.position}`,
          part,
        );
      }
      return reader.consumedBytes();
    };
    // The intro, then the index: both are checked before the data store they size is buffered.
    const readIntroAndIndex = async (start: number, part: "signature" | "header") => {
      const intro = readHeaderIntro(await need(HEADER_INTRO_SIZE, part), start, part);
      readHeaderIndex(
        await need(intro.size - intro.dataLength - HEADER_INTRO_SIZE, part),
        start,
        intro,
        part,
      );
      return intro;
    };
    parseRpmLead(await need(LEAD_SIZE, "lead"));
    const signature = await readIntroAndIndex(LEAD_SIZE, "signature");
    const headerStart = headerStartAfter(signature);
    // Check the signature header before waiting for more, so errors come in file order.
    parseRpmHeader(await need(signature.dataLength, "signature"), LEAD_SIZE, "signature");
    if (headerStart > reader.position) await need(headerStart - reader.position, "signature");
    const header = await readIntroAndIndex(headerStart, "header");
    const pkg = parseRpmPackage(await need(headerStart + header.size - reader.position, "header"));
    if (options.keepSourceOpen) {
      keepOpen = true;
      return { ...pkg, rest: reader.rest() };
    }
    return pkg;
  } finally {
    if (!keepOpen) await reader.close();
  }
}
