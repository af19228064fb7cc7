// The one error type the .deb reader throws, so callers can map `code` to a response without parsing text.

export const debFormatErrorCodes = [
  "DEB_TRUNCATED",
  "DEB_NOT_AR",
  "DEB_BAD_ARCHIVE",
  "DEB_TOO_MANY_MEMBERS",
  "DEB_TOO_LARGE",
  "DEB_BAD_DEBIAN_BINARY",
  "DEB_MISSING_CONTROL",
  "DEB_MISSING_DATA",
  "DEB_CONTROL_TOO_LARGE",
  "DEB_UNSUPPORTED_COMPRESSION",
  "DEB_CORRUPT_MEMBER",
  "DEB_BAD_TAR",
  "DEB_BAD_CONTROL",
  "DEB_MISSING_FIELD",
  "DEB_BAD_FIELD",
] as const;

export type DebFormatErrorCode = (typeof debFormatErrorCodes)[number];

export class DebFormatError extends Error {
  override readonly name = "DebFormatError";
  readonly code: DebFormatErrorCode;
  /** The control field at fault, for DEB_MISSING_FIELD and DEB_BAD_FIELD. */
  readonly field: string | undefined;

  constructor(code: DebFormatErrorCode, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options?.field;
  }
}
