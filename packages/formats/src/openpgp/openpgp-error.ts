// The one error type of the OpenPGP wrapper, with stable codes callers can match on.

export const openPgpErrorCodes = [
  "OPENPGP_BAD_KEY",
  "OPENPGP_NOT_A_PRIVATE_KEY",
  "OPENPGP_KEY_LOCKED",
  "OPENPGP_UNSUPPORTED_ALGORITHM",
  "OPENPGP_WEAK_SECRET",
  "OPENPGP_BAD_ENVELOPE",
  "OPENPGP_DECRYPT_FAILED",
  "OPENPGP_NO_SIGNING_KEYS",
  "OPENPGP_SIGN_FAILED",
] as const;

export type OpenPgpErrorCode = (typeof openPgpErrorCodes)[number];

export class OpenPgpError extends Error {
  override readonly name = "OpenPgpError";
  readonly code: OpenPgpErrorCode;

  constructor(code: OpenPgpErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
