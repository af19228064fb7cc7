import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable, isStorageFull, isUniqueViolation } from "./errors.ts";

describe("isUniqueViolation", () => {
  it("recognizes PostgreSQL's and SQLite's unique violations", () => {
    expect(
      isUniqueViolation({ code: "23505", message: "duplicate key value violates unique constraint" }),
    ).toBe(true);
    expect(
      isUniqueViolation(new Error("UNIQUE constraint failed: release.project_id, release.version")),
    ).toBe(true);
  });

  it("leaves every other failure alone", () => {
    expect(
      isUniqueViolation({ code: "23503", message: "insert or update violates foreign key constraint" }),
    ).toBe(false);
    expect(isUniqueViolation(new Error("database is locked"))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});

describe("isDatabaseUnavailable", () => {
  it("recognizes a database out of connections, shutting down, starting or locked", () => {
    expect(isDatabaseUnavailable({ code: "53300", message: "sorry, too many clients already" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "57P01", message: "terminating connection" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "57P03", message: "the database system is starting up" })).toBe(
      true,
    );
    expect(isDatabaseUnavailable({ code: "08006", message: "connection failure" })).toBe(true);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isDatabaseUnavailable({ code: "ECONNREFUSED", message: "connect ECONNREFUSED" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "SQLITE_BUSY", message: "database is locked" })).toBe(true);
  });

  it("leaves the request's own failures alone", () => {
    expect(isDatabaseUnavailable({ code: "23505", message: "duplicate key value" })).toBe(false);
    expect(isDatabaseUnavailable({ code: "42P01", message: "relation does not exist" })).toBe(false);
    expect(isDatabaseUnavailable({ code: "57014", message: "canceling statement" })).toBe(false);
    expect(isDatabaseUnavailable(new Error("Something else"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable("too many clients")).toBe(false);
  });
});

describe("isStorageFull", () => {
  it("recognizes a full disk on the filesystem, in SQLite and in PostgreSQL", () => {
    expect(isStorageFull({ code: "ENOSPC", message: "ENOSPC: no space left on device, write" })).toBe(true);
    expect(isStorageFull({ code: "EDQUOT", message: "disk quota exceeded" })).toBe(true);
    // node:sqlite's SQLITE_FULL.
    expect(
      isStorageFull(
        Object.assign(new Error("database or disk is full"), { code: "ERR_SQLITE_ERROR", errcode: 13 }),
      ),
    ).toBe(true);
    expect(
      isStorageFull({
        code: "53100",
        message: 'could not extend file "base/16384/2619": No space left on device',
      }),
    ).toBe(true);
    expect(isStorageFull(new Error("The server is out of disk space", { cause: { code: "ENOSPC" } }))).toBe(
      true,
    );
  });

  it("leaves every other failure alone", () => {
    expect(isStorageFull({ code: "53300", message: "sorry, too many clients already" })).toBe(false);
    expect(isStorageFull({ code: "ERR_SQLITE_ERROR", errcode: 5, message: "database is locked" })).toBe(
      false,
    );
    expect(isStorageFull(new Error("cannot rollback - no transaction is active"))).toBe(false);
    expect(isStorageFull(undefined)).toBe(false);
  });
});
