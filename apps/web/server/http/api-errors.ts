// The one place that turns failures into API responses: `{"error":{"code","message"}}` with
// the status the code implies. Unexpected errors are logged and answered without their text.
import { type ApiErrorBody, type ApiErrorCode, apiErrorStatus } from "@packyard/contract";
import { ZodError } from "zod";
import { DomainError, isDatabaseUnavailable } from "../domain/errors.ts";
import type { Logger } from "../logger.ts";
import { BlobMissingError } from "../storage/blob-store.ts";

export function apiErrorResponse(
  code: ApiErrorCode,
  message: string,
  details?: Record<string, string>,
): Response {
  const body: ApiErrorBody = { error: { code, message, ...(details ? { details } : {}) } };
  // An error is about this request at this moment: never stored by a cache.
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  };
  if (code === "UNAUTHENTICATED") headers["www-authenticate"] = 'Bearer realm="Packyard"';
  if (code === "SERVICE_UNAVAILABLE") headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  return new Response(JSON.stringify(body), { status: apiErrorStatus[code], headers });
}

/** What a 503 asks the client to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

function isClientAbort(error: unknown): boolean {
  const e = error as { message?: string; code?: string; name?: string };
  return (
    e?.message === "aborted" ||
    e?.code === "ECONNRESET" ||
    e?.code === "ERR_STREAM_PREMATURE_CLOSE" ||
    e?.name === "AbortError"
  );
}

/** 400 VALIDATION_FAILED with the first issue's message and, per field, the first message about it. */
export function validationFailedResponse(error: ZodError): Response {
  const details: Record<string, string> = {};
  for (const issue of error.issues) details[issue.path.join(".") || "body"] ??= issue.message;
  const first = error.issues[0];
  return apiErrorResponse("VALIDATION_FAILED", first ? first.message : "Invalid request", details);
}

export function toApiErrorResponse(error: unknown, logger: Logger): Response {
  if (error instanceof DomainError) {
    const response = apiErrorResponse(error.code, error.message, error.details);
    if (error.retryAfterSeconds !== undefined)
      response.headers.set("retry-after", String(error.retryAfterSeconds));
    return response;
  }
  if (error instanceof ZodError) return validationFailedResponse(error);
  if (error instanceof BlobMissingError) {
    // Storage lost bytes a row refers to: the operator must know; the client must not cache it.
    logger.error(`stored file missing: ${error.sha256}`, error);
    return apiErrorResponse("BLOB_MISSING", "This file is missing from storage. Please try again later.");
  }
  if (error instanceof SyntaxError)
    return apiErrorResponse("VALIDATION_FAILED", "The request body is not valid JSON");
  if (isClientAbort(error)) {
    // The client hung up mid-request (a cancelled upload): nobody reads this answer.
    logger.info("request aborted by the client");
    return apiErrorResponse("VALIDATION_FAILED", "The request was aborted");
  }
  if (isDatabaseUnavailable(error)) {
    // Nothing wrong with the request: the database is out of connections or restarting.
    logger.error("API request failed: the database is unavailable", error);
    return apiErrorResponse(
      "SERVICE_UNAVAILABLE",
      `The service is busy. Please try again in ${RETRY_AFTER_SECONDS} seconds.`,
    );
  }
  logger.error("API request failed", error);
  return apiErrorResponse("INTERNAL_ERROR", "Something went wrong. Please try again later.");
}
