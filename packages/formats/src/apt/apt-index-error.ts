// The one error type of the APT index renderers: a refusal to write an index apt would misread.

export const aptIndexErrorCodes = [
  "APT_BAD_FIELD",
  "APT_BAD_HASH",
  "APT_BAD_PATH",
  "APT_BAD_SIZE",
  "APT_BAD_DATE",
  "APT_DUPLICATE_PACKAGE",
] as const;

export type AptIndexErrorCode = (typeof aptIndexErrorCodes)[number];

export class AptIndexError extends Error {
  override readonly name = "AptIndexError";
  readonly code: AptIndexErrorCode;

  constructor(code: AptIndexErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
