import { describe, expect, it } from "vitest";
import { newPasswordSchema, onboardingSchema, passwordLengthMessage } from "./account.ts";

/** The first message per field, as the forms show them. */
const errorsFor = (input: { name: string; username: string }) => {
  const result = onboardingSchema.safeParse(input);
  const errors: Record<string, string> = {};
  if (!result.success)
    for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return errors;
};

describe("onboarding rules (spec §5)", () => {
  it.each([
    [{ name: "A", username: "valid-name" }, "name", "Full name must be at least 2 characters"],
    [{ name: "x".repeat(101), username: "valid-name" }, "name", "Full name must be less than 100 characters"],
    [{ name: "Ada", username: "ab" }, "username", "Username must be at least 3 characters"],
    [{ name: "Ada", username: "a".repeat(31) }, "username", "Username must be less than 30 characters"],
    [
      { name: "Ada", username: "Ada-L" },
      "username",
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
    [
      { name: "Ada", username: "-ada" },
      "username",
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
    [
      { name: "Ada", username: "ada-" },
      "username",
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
    [
      { name: "Ada", username: "ada_l" },
      "username",
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ],
  ])("%j → %s: %s", (input, field, message) => {
    expect(errorsFor(input)[field]).toBe(message);
  });

  it.each(["ada", "ada-lovelace", "a1b", "a".repeat(30), "0day"])("accepts %j", (username) => {
    expect(errorsFor({ name: "Ada Lovelace", username })).toEqual({});
  });

  it("accepts names of exactly 2 and 100 characters", () => {
    expect(errorsFor({ name: "Al", username: "ada" })).toEqual({});
    expect(errorsFor({ name: "x".repeat(100), username: "ada" })).toEqual({});
  });
});

describe("new passwords", () => {
  const limits = { min: 10, max: 128 };
  const firstMessage = (password: string) =>
    newPasswordSchema(limits, "Please choose a password").safeParse(password).error?.issues[0]?.message;

  it("state the configured lengths", () => {
    expect(firstMessage("")).toBe("Please choose a password");
    expect(firstMessage("short")).toBe("Password must be at least 10 characters");
    expect(firstMessage("x".repeat(129))).toBe("Password must be at most 128 characters");
    expect(firstMessage("x".repeat(10))).toBeUndefined();
  });

  it("word better-auth's refusals the same way", () => {
    expect(passwordLengthMessage(limits, "PASSWORD_TOO_SHORT")).toBe(
      "Password must be at least 10 characters",
    );
    expect(passwordLengthMessage(limits, "PASSWORD_TOO_LONG")).toBe(
      "Password must be at most 128 characters",
    );
  });
});
