import { describe, expect, it } from "vitest";
import { isUniqueViolation } from "./errors.ts";

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
