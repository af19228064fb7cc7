// Failures that are no fault of the request get their own statuses: a full disk 507 (PostgreSQL's
// disk_full too, though its SQLSTATE class 53 is otherwise "unavailable"), a database out of
// connections 503.
import { describe, expect, it } from "vitest";
import type { Logger } from "../observability/logger.ts";
import { toApiErrorResponse } from "./api-errors.ts";

const logger = { error() {}, warn() {}, info() {}, debug() {} } as unknown as Logger;

describe("toApiErrorResponse", () => {
  it("answers PostgreSQL's disk_full with 507 INSUFFICIENT_STORAGE, not 503", async () => {
    const res = toApiErrorResponse(
      { code: "53100", message: "could not extend file: No space left on device" },
      logger,
    );
    expect(res.status).toBe(507);
    expect((await res.json()).error).toEqual({
      code: "INSUFFICIENT_STORAGE",
      message: "The server is out of disk space",
    });
  });

  it("still answers a database out of connections with 503", async () => {
    const res = toApiErrorResponse({ code: "53300", message: "sorry, too many clients already" }, logger);
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("SERVICE_UNAVAILABLE");
  });
});
