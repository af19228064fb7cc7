import { describe, expect, it } from "vitest";
import { contactSchema } from "./contact.ts";

const valid = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Private repositories",
  message: "Can a read key be limited to one project?",
  type: "support",
};

const firstErrors = (input: Record<string, unknown>) => {
  const result = contactSchema.safeParse(input);
  const errors: Record<string, string> = {};
  if (!result.success)
    for (const issue of result.error.issues) errors[String(issue.path[0])] ??= issue.message;
  return errors;
};

describe("contact form rules (spec §5)", () => {
  it.each([
    [{ name: "A" }, "name", "Name must be at least 2 characters"],
    [{ name: "  A  " }, "name", "Name must be at least 2 characters"],
    [{ email: "ada@" }, "email", "Please enter a valid email address"],
    [{ email: "" }, "email", "Please enter a valid email address"],
    [{ subject: "Hi" }, "subject", "Subject must be at least 5 characters"],
    [{ message: "Too short" }, "message", "Message must be at least 10 characters"],
    [{ type: "billing" }, "type", "Choose what your message is about"],
  ])("%j is refused on %s with %j", (change, field, message) => {
    expect(firstErrors({ ...valid, ...change })).toEqual({ [field]: message });
  });

  it("accepts each type, trims the text and lowercases the email", () => {
    for (const type of ["general", "support", "sales", "partnership"]) {
      expect(contactSchema.safeParse({ ...valid, type }).success).toBe(true);
    }
    const parsed = contactSchema.parse({ ...valid, name: "  Ada  ", email: " Ada@Example.COM " });
    expect(parsed.name).toBe("Ada");
    expect(parsed.email).toBe("ada@example.com");
  });

  it("has upper bounds, so a message cannot fill the database", () => {
    expect(firstErrors({ ...valid, message: "x".repeat(5001) })).toEqual({
      message: "Message must be at most 5000 characters",
    });
  });
});
