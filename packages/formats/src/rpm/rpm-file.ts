// Splits the start of an .rpm (lead, signature header, main header) out of bytes in memory.
import { RpmFormatError } from "./rpm-format-error.ts";
import { type HeaderIntro, parseRpmHeader, type RpmHeader, readHeaderIntro } from "./rpm-header.ts";
import { LEAD_SIZE, parseRpmLead, type RpmLead } from "./rpm-lead.ts";

export interface RpmFile {
  lead: RpmLead;
  signature: RpmHeader;
  header: RpmHeader;
  /** Offset of the main header's magic; the signature header and its padding end here. */
  headerStart: number;
  /** Offset just past the main header's data store: where the compressed payload begins. */
  headerEnd: number;
  /** The file's first `headerEnd` bytes: lead, signature header, padding, main header. */
  prefix: Uint8Array;
}

/** The signature header is padded with zeros so the main header starts on an 8-byte boundary. */
export function signaturePadding(signatureSize: number): number {
  return (8 - (signatureSize % 8)) % 8;
}

export function headerStartAfter(signature: HeaderIntro): number {
  return LEAD_SIZE + signature.size + signaturePadding(signature.size);
}

/** Parses lead and both headers from `bytes`, which may hold the whole file or just its start. */
export function parseRpmFile(bytes: Uint8Array): RpmFile {
  const lead = parseRpmLead(bytes);
  const signatureIntro = readHeaderIntro(bytes, LEAD_SIZE, "signature");
  const signature = parseRpmHeader(bytes, LEAD_SIZE, "signature");
  const headerStart = headerStartAfter(signatureIntro);
  if (bytes.length < headerStart) {
    throw new RpmFormatError(
      "RPM_TRUNCATED",
      "file ends in the padding after the signature header",
      "signature",
    );
  }
  const header = parseRpmHeader(bytes, headerStart, "header");
  const headerEnd = headerStart + header.bytes.length;
  return { lead, signature, header, headerStart, headerEnd, prefix: bytes.subarray(0, headerEnd) };
}
