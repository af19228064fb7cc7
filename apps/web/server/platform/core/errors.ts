// Domain failures with the stable codes of the API contract. Services throw these; one place
// (platform/http/api-errors.ts) turns them into HTTP responses.
import type { ApiErrorCode } from "@packyard/contract";

export class DomainError extends Error {
  readonly code: ApiErrorCode;
  readonly details: Record<string, string> | undefined;
  /** When a limit lifts at a known time: seconds to wait, answered as Retry-After. */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    code: ApiErrorCode,
    message: string,
    details?: Record<string, string>,
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const notFound = (what = "Not found") => new DomainError("NOT_FOUND", what);

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errcode?: string; message?: string };
  return (
    e?.code === "23505" ||
    /UNIQUE constraint failed|unique constraint|duplicate key/i.test(String(e?.message))
  );
}

/** PostgreSQL SQLSTATE classes and codes that mean "the database cannot take this now". */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[123])/;
const UNAVAILABLE_MESSAGE =
  /too many clients|Connection terminated|timeout exceeded when trying to connect|database is locked/i;

/**
 * True when the database could not be reached or refused the work for lack of resources (no
 * free connection, shutting down, starting, locked): the request may succeed if repeated, so it
 * is answered 503, never as a fault of the request or of the caller's credentials.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (/^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_SQLSTATE.test(code);
  if (code === "SQLITE_BUSY" || code === "ECONNREFUSED") return true;
  return UNAVAILABLE_MESSAGE.test(String(e.message ?? ""));
}

/** SQLite's primary result code SQLITE_FULL, as node:sqlite reports it (errcode). */
const SQLITE_FULL = 13;

/**
 * True when a write failed for lack of space: the filesystem (ENOSPC, or a quota: EDQUOT),
 * SQLite (SQLITE_FULL, "database or disk is full") or PostgreSQL (53100 disk_full), also when
 * wrapped as another error's cause. Nothing is wrong with the request: it is answered 507.
 */
export function isStorageFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const { code, errcode, message, cause } = e as {
      code?: unknown;
      errcode?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    if (code === "ENOSPC" || code === "EDQUOT" || code === "53100" || code === "SQLITE_FULL") return true;
    if (code === "ERR_SQLITE_ERROR" && errcode === SQLITE_FULL) return true;
    if (/database or disk is full/i.test(String(message ?? ""))) return true;
    e = cause;
  }
  return false;
}
