// Every code the .deb and .rpm readers can throw is an API error code, so a refused package
// answers with the reader's code and its status, never with an unknown code. The formats
// package defines the code unions; the contract lists the API's codes.
import { Readable } from "node:stream";
import { type ApiErrorCode, apiErrorCodeOr, apiErrorStatus, isApiErrorCode } from "@packyard/contract";
import { type DebFormatErrorCode, debFormatErrorCodes } from "@packyard/formats/deb/index.ts";
import type { RpmFormatErrorCode } from "@packyard/formats/rpm/rpm-format-error.ts";
import { describe, expect, expectTypeOf, it } from "vitest";
import { parseDeb } from "../formats/apt/ingest.ts";
import { DomainError } from "../platform/core/errors.ts";

// Exhaustive by construction: a code added to RpmFormatErrorCode and missing here fails typecheck.
const rpmFormatErrorCodes = Object.keys({
  RPM_TRUNCATED: true,
  RPM_BAD_MAGIC: true,
  RPM_UNSUPPORTED: true,
  RPM_BAD_HEADER: true,
  RPM_INDEX_OUT_OF_BOUNDS: true,
  RPM_TOO_LARGE: true,
  RPM_TOO_MANY_ENTRIES: true,
  RPM_MISSING_TAG: true,
  RPM_DIGEST_MISMATCH: true,
  RPM_PAYLOAD_DIGEST_MISMATCH: true,
} satisfies Record<RpmFormatErrorCode, true>);

describe("package reader error codes", () => {
  it("every DebFormatError code is an API error code answered with 400", () => {
    expectTypeOf<DebFormatErrorCode>().toExtend<ApiErrorCode>();
    expect(debFormatErrorCodes.filter((code) => !isApiErrorCode(code))).toEqual([]);
    for (const code of debFormatErrorCodes) expect(apiErrorStatus[code]).toBe(400);
  });

  it("every RpmFormatError code is an API error code answered with 400", () => {
    expectTypeOf<RpmFormatErrorCode>().toExtend<ApiErrorCode>();
    expect(rpmFormatErrorCodes.filter((code) => !isApiErrorCode(code))).toEqual([]);
    for (const code of rpmFormatErrorCodes) expect(apiErrorStatus[code as ApiErrorCode]).toBe(400);
  });

  it("a code the contract lacks falls back to the given code instead of passing through", () => {
    expect(isApiErrorCode("DEB_SOMETHING_NEW")).toBe(false);
    expect(isApiErrorCode("toString")).toBe(false);
    expect(apiErrorCodeOr("DEB_SOMETHING_NEW", "VALIDATION_FAILED")).toBe("VALIDATION_FAILED");
    expect(apiErrorCodeOr("DEB_NOT_AR", "VALIDATION_FAILED")).toBe("DEB_NOT_AR");
  });

  it("a file that is not a .deb is refused with the reader's code", async () => {
    const error = await parseDeb(
      Readable.from([Buffer.from("this is not an ar archive, just some text\n")]),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toMatch(/^DEB_/);
  });
});
