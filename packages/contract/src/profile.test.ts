import { describe, expect, it } from "vitest";
import { changeEmailSchema, profileSchema } from "./profile.ts";

/** The first message per field, as the forms show them. */
const errorsFor = (input: { name: string; username: string }) => {
  const result = profileSchema.safeParse(input);
  const errors: Record<string, string> = {};
  if (!result.success)
    for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return errors;
};

const CHARACTERS = "Username can only contain letters, numbers, underscores, and hyphens";

describe("profile rules (spec §5)", () => {
  it.each([
    [{ name: "Ada", username: "ab" }, "username", "Username must be at least 3 characters"],
    [{ name: "Ada", username: "a".repeat(31) }, "username", "Username must be at most 30 characters"],
    [{ name: "Ada", username: "ada lovelace" }, "username", CHARACTERS],
    [{ name: "Ada", username: "ada.l" }, "username", CHARACTERS],
    [{ name: "Ada", username: "adä" }, "username", CHARACTERS],
    [{ name: "Ada", username: "ada/x" }, "username", CHARACTERS],
    [{ name: "", username: "ada" }, "name", "Name is required"],
    [{ name: "   ", username: "ada" }, "name", "Name is required"],
    [{ name: "x".repeat(101), username: "ada" }, "name", "Name must be at most 100 characters"],
  ])("%j → %s: %s", (input, field, message) => {
    expect(errorsFor(input)[field]).toBe(message);
  });

  it.each(["ada", "Ada_Lovelace", "-ada-", "a_1", "a".repeat(30), "0DAY"])("accepts %j", (username) => {
    expect(errorsFor({ name: "A", username })).toEqual({});
  });

  it("accepts names of 1 and 100 characters, trimmed", () => {
    expect(errorsFor({ name: "A", username: "ada" })).toEqual({});
    expect(errorsFor({ name: "x".repeat(100), username: "ada" })).toEqual({});
    expect(profileSchema.parse({ name: "  Ada  ", username: " ada " })).toEqual({
      name: "Ada",
      username: "ada",
    });
  });

  it("email: valid, lowercased", () => {
    expect(changeEmailSchema.safeParse({ email: "nope" }).error?.issues[0]?.message).toBe(
      "Please enter a valid email address",
    );
    expect(changeEmailSchema.parse({ email: " Ada@Example.COM " })).toEqual({ email: "ada@example.com" });
  });
});
