// Domain failures with the stable codes of the API contract. Services throw these; one place
// (http/api-errors.ts) turns them into HTTP responses.
import type { ApiErrorCode } from "@packyard/contract";

export class DomainError extends Error {
  readonly code: ApiErrorCode;
  readonly details: Record<string, string> | undefined;
  constructor(code: ApiErrorCode, message: string, details?: Record<string, string>) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details;
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
