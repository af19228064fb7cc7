// A DomainError is recognised whichever copy of errors.ts made it: the route bundle holds its own
// copy of the server's modules, and its actions catch what the server's services throw.
import { describe, expect, it } from "vitest";
import { DomainError, notFound } from "./errors.ts";
import { UsernameMovedError } from "./usernames.ts";

describe("DomainError", () => {
  it("is recognised across two copies of its module", async () => {
    // A query makes Vite evaluate the module a second time, as the route bundle does.
    // @ts-expect-error: the query is Vite's, TypeScript knows the module without it
    const other = (await import("./errors.ts?second-copy")) as typeof import("./errors.ts");
    expect(other.DomainError).not.toBe(DomainError);
    const theirs = new other.DomainError("WEBHOOK_URL_FORBIDDEN", "refused", { url: "refused" });
    expect(theirs).toBeInstanceOf(DomainError);
    expect(notFound()).toBeInstanceOf(other.DomainError);
    expect(new Error("plain")).not.toBeInstanceOf(DomainError);
    expect({ code: "NOT_FOUND" }).not.toBeInstanceOf(DomainError);
  });

  it("keeps a subclass's check to its own instances", () => {
    const moved = new UsernameMovedError({ userId: "u1", username: "old" });
    expect(moved).toBeInstanceOf(DomainError);
    expect(moved).toBeInstanceOf(UsernameMovedError);
    expect(notFound()).not.toBeInstanceOf(UsernameMovedError);
  });
});
