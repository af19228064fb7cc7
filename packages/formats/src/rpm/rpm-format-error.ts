// The one error type the RPM reader and signer throw for bad input, so callers can map it to a 400.

export type RpmFormatErrorCode =
  /** The input ended before the lead and both headers were complete. */
  | "RPM_TRUNCATED"
  /** Lead magic (ED AB EE DB) or header magic (8E AD E8 01 + 4 zero bytes) is wrong. */
  | "RPM_BAD_MAGIC"
  /** A lead field rpm itself refuses: format version, signature type. */
  | "RPM_UNSUPPORTED"
  /** A structural rule of the header is broken: region, tag, type, alignment, order, counts. */
  | "RPM_BAD_HEADER"
  /** An index entry or a value points outside the data store. */
  | "RPM_INDEX_OUT_OF_BOUNDS"
  /** An index count or data length above our caps. */
  | "RPM_TOO_LARGE"
  /**
   * More values in one header array, more files, dependencies or changelog entries than any real
   * package has (limits in rpm-header.ts and rpm-package-metadata.ts), refused before decoding them.
   */
  | "RPM_TOO_MANY_ENTRIES"
  /** A tag the metadata needs is absent (name, version, release, arch). */
  | "RPM_MISSING_TAG"
  /** A header digest in the signature header does not match the main header. */
  | "RPM_DIGEST_MISMATCH"
  /** The payload's digest (RPMTAG_PAYLOADDIGEST, or the legacy MD5 signature) does not match it. */
  | "RPM_PAYLOAD_DIGEST_MISMATCH";

/** Which part of the file the error was found in. */
export type RpmPart = "lead" | "signature" | "header" | "payload";

export class RpmFormatError extends Error {
  override readonly name = "RpmFormatError";
  readonly code: RpmFormatErrorCode;
  readonly part: RpmPart | undefined;

  constructor(code: RpmFormatErrorCode, message: string, part?: RpmPart) {
    super(part ? `${part}: ${message}` : message);
    this.code = code;
    this.part = part;
  }
}

export function isRpmFormatError(error: unknown): error is RpmFormatError {
  return error instanceof RpmFormatError;
}
