// The one place that turns failures into API responses: `{"error":{"code","message"}}` with
// the status the code implies. Unexpected errors are logged and answered without their text.
// Pages refuse with the same codes and statuses (pageErrorResponse, pageActionFailure).
import { type ApiErrorBody, type ApiErrorCode, apiErrorStatus } from "@packyard/contract";
import { ZodError } from "zod";
import { DomainError, isDatabaseUnavailable, isStorageFull } from "../core/errors.ts";
import type { Logger } from "../observability/logger.ts";
import { BlobMissingError } from "../storage/blob-store.ts";
import { renderErrorPage } from "./error-page.ts";

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

const STORAGE_FULL_MESSAGE = "The server is out of disk space";

/**
 * A refusal of a request to a page (not /api): the error page with the code for a browser
 * loading a document, else the API's JSON (a script, or React Router fetching a form's answer).
 */
export function pageErrorResponse(request: Request, code: ApiErrorCode, message: string): Response {
  if (!(request.headers.get("accept") ?? "").includes("text/html")) return apiErrorResponse(code, message);
  return new Response(renderErrorPage(code), {
    status: apiErrorStatus[code],
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

/**
 * A page action's failure that is not the page's to explain (a full disk): the response React
 * Router is to throw, so that the error page answers with the API's status for it, not 500.
 * undefined for any other failure.
 */
export function pageActionFailure(error: unknown, logger: Logger): Response | undefined {
  const full =
    isStorageFull(error) || (error instanceof DomainError && error.code === "INSUFFICIENT_STORAGE");
  if (!full) return undefined;
  logger.error("page action failed: out of storage space", error);
  return new Response(STORAGE_FULL_MESSAGE, {
    status: apiErrorStatus.INSUFFICIENT_STORAGE,
    headers: { "cache-control": "no-store" },
  });
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

/** VALIDATION_FAILED with the first issue's message and, per field, the first message about it. */
function validationFailure(error: ZodError): ApiFailure {
  const details: Record<string, string> = {};
  for (const issue of error.issues) details[issue.path.join(".") || "body"] ??= issue.message;
  const first = error.issues[0];
  return { code: "VALIDATION_FAILED", message: first ? first.message : "Invalid request", details };
}

/** 400 VALIDATION_FAILED with the first issue's message and, per field, the first message about it. */
export function validationFailedResponse(error: ZodError): Response {
  const { code, message, details } = validationFailure(error);
  return apiErrorResponse(code, message, details);
}

/** A failure as the API words it: its stable code (which implies the status), message and hints. */
export interface ApiFailure {
  code: ApiErrorCode;
  message: string;
  details?: Record<string, string>;
  /** Seconds the client is asked to wait before trying again (Retry-After). */
  retryAfterSeconds?: number;
}

/**
 * The one mapping of a failure to the API's code and words; unexpected failures are logged and
 * answered without their text. The registries (npm, PyPI, formats/registry-http.ts) word the same
 * failure in their own shapes.
 */
export function describeFailure(error: unknown, logger: Logger): ApiFailure {
  if (error instanceof DomainError)
    return {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  if (error instanceof ZodError) return validationFailure(error);
  if (error instanceof BlobMissingError) {
    // Storage lost bytes a row refers to: the operator must know; the client must not cache it.
    logger.error(`stored file missing: ${error.sha256}`, error);
    return { code: "BLOB_MISSING", message: "This file is missing from storage. Please try again later." };
  }
  if (error instanceof SyntaxError)
    return { code: "VALIDATION_FAILED", message: "The request body is not valid JSON" };
  if (isClientAbort(error)) {
    // The client hung up mid-request (a cancelled upload): nobody reads this answer.
    logger.info("request aborted by the client");
    return { code: "VALIDATION_FAILED", message: "The request was aborted" };
  }
  if (isStorageFull(error)) {
    // Checked before "unavailable": PostgreSQL's disk_full (53100) is in its class 53 too.
    logger.error("API request failed: out of storage space", error);
    return { code: "INSUFFICIENT_STORAGE", message: STORAGE_FULL_MESSAGE };
  }
  if (isDatabaseUnavailable(error)) {
    // Nothing wrong with the request: the database is out of connections or restarting.
    logger.error("API request failed: the database is unavailable", error);
    return {
      code: "SERVICE_UNAVAILABLE",
      message: `The service is busy. Please try again in ${RETRY_AFTER_SECONDS} seconds.`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
  }
  logger.error("API request failed", error);
  return { code: "INTERNAL_ERROR", message: "Something went wrong. Please try again later." };
}

export function toApiErrorResponse(error: unknown, logger: Logger): Response {
  const failure = describeFailure(error, logger);
  const response = apiErrorResponse(failure.code, failure.message, failure.details);
  if (failure.retryAfterSeconds !== undefined)
    response.headers.set("retry-after", String(failure.retryAfterSeconds));
  return response;
}
