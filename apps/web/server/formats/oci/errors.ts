// The registry's error answers: the OCI Distribution Specification's body
// `{"errors":[{"code","message","detail"}]}` and the status each code has there. Packyard's own
// domain errors met on the way (an invalid key, a full disk, the plan) keep their meaning with
// the closest code of the specification.
import { apiErrorStatus } from "@packyard/contract";
import { OciError, type OciErrorCode } from "@packyard/formats/oci/manifest.ts";
import { DomainError, isStorageFull } from "../../platform/core/errors.ts";
import type { Logger } from "../../platform/observability/logger.ts";

/** The specification's status of each code. */
export const OCI_STATUS: Record<OciErrorCode, number> = {
  BLOB_UNKNOWN: 404,
  BLOB_UPLOAD_INVALID: 400,
  BLOB_UPLOAD_UNKNOWN: 404,
  DIGEST_INVALID: 400,
  MANIFEST_BLOB_UNKNOWN: 400,
  MANIFEST_INVALID: 400,
  MANIFEST_UNKNOWN: 404,
  NAME_INVALID: 400,
  NAME_UNKNOWN: 404,
  SIZE_INVALID: 400,
  UNAUTHORIZED: 401,
  DENIED: 403,
  UNSUPPORTED: 405,
  TOOMANYREQUESTS: 429,
};

function byStatus(status: number): OciErrorCode {
  if (status === 401) return "UNAUTHORIZED";
  if (status === 403) return "DENIED";
  if (status === 404) return "NAME_UNKNOWN";
  if (status === 413) return "SIZE_INVALID";
  if (status === 429) return "TOOMANYREQUESTS";
  return "UNSUPPORTED";
}

export function ociErrorResponse(error: unknown, logger: Logger, challenge: string): Response {
  let code: OciErrorCode;
  let status: number;
  let message: string;
  let detail: unknown;
  if (error instanceof OciError) {
    code = error.code;
    const given = (error.detail as { status?: number } | undefined)?.status;
    status = given ?? OCI_STATUS[code];
    message = error.message;
    detail = given === undefined ? error.detail : undefined;
  } else if (error instanceof DomainError) {
    status = apiErrorStatus[error.code];
    code = byStatus(status);
    message = error.message;
    detail = { code: error.code };
  } else if (isStorageFull(error)) {
    status = 507;
    code = "UNSUPPORTED";
    message = "The server is out of disk space";
  } else {
    logger.error("registry request failed", error);
    status = 500;
    code = "UNSUPPORTED";
    message = "Internal error";
  }
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "docker-distribution-api-version": "registry/2.0",
  };
  if (status === 401) headers["www-authenticate"] = challenge;
  const body = { errors: [{ code, message, ...(detail === undefined ? {} : { detail }) }] };
  return new Response(JSON.stringify(body), { status, headers });
}
