import { describe, expect, it } from "vitest";
import { updateRepositorySettingsInput } from "./repository-settings.ts";
import { createProjectInput } from "./schemas.ts";

function issues(input: unknown): Record<string, string> {
  const parsed = updateRepositorySettingsInput.safeParse(input);
  if (parsed.success) return {};
  return Object.fromEntries(parsed.error.issues.map((i) => [i.path.join("."), i.message]));
}

describe("repository settings", () => {
  it("accepts an empty change, a key expiry, Valid-Until and the Release fields", () => {
    expect(updateRepositorySettingsInput.parse({})).toEqual({});
    expect(
      updateRepositorySettingsInput.parse({
        keyExpiryDays: 365,
        aptValidUntilDays: 7,
        aptOrigin: " Example Corp ",
        aptLabel: "Example tools",
        aptCodename: "widget",
      }),
    ).toEqual({
      keyExpiryDays: 365,
      aptValidUntilDays: 7,
      aptOrigin: "Example Corp",
      aptLabel: "Example tools",
      aptCodename: "widget",
    });
  });

  it("turns things off or back to their defaults with null, and Release fields with an empty string", () => {
    expect(
      updateRepositorySettingsInput.parse({
        keyExpiryDays: null,
        aptValidUntilDays: null,
        aptOrigin: "",
        aptLabel: null,
        aptCodename: "  ",
      }),
    ).toEqual({
      keyExpiryDays: null,
      aptValidUntilDays: null,
      aptOrigin: null,
      aptLabel: null,
      aptCodename: null,
    });
  });

  it("refuses expiries and periods out of range with messages that say the range", () => {
    const expiry = "Key expiry must be a whole number of days from 90 to 3650, or none";
    expect(issues({ keyExpiryDays: 30 })).toEqual({ keyExpiryDays: expiry });
    expect(issues({ keyExpiryDays: 4000 })).toEqual({ keyExpiryDays: expiry });
    expect(issues({ keyExpiryDays: 100.5 })).toEqual({ keyExpiryDays: expiry });
    expect(issues({ keyExpiryDays: "365" })).toEqual({ keyExpiryDays: expiry });
    const period = "The Valid-Until period must be a whole number of days from 1 to 365";
    expect(issues({ aptValidUntilDays: 0 })).toEqual({ aptValidUntilDays: period });
    expect(issues({ aptValidUntilDays: 366 })).toEqual({ aptValidUntilDays: period });
  });

  it("refuses Release fields apt would misread", () => {
    expect(issues({ aptOrigin: "two\nlines" })).toEqual({
      aptOrigin: "Origin may only contain printable ASCII characters (no line breaks)",
    });
    expect(issues({ aptLabel: "x".repeat(101) })).toEqual({
      aptLabel: "Label must be at most 100 characters",
    });
    expect(issues({ aptCodename: "my codename" })).toEqual({
      aptCodename:
        "Codename must start with a letter or digit and contain only letters, digits, '.', '_', '+' and '-'",
    });
    expect(issues({ aptCodename: "-x" })).toHaveProperty("aptCodename");
  });

  it("lets a new project choose its key expiry, none by default", () => {
    expect(createProjectInput.parse({ slug: "tool", name: "Tool" }).keyExpiryDays).toBeUndefined();
    expect(createProjectInput.parse({ slug: "tool", name: "Tool", keyExpiryDays: 730 }).keyExpiryDays).toBe(
      730,
    );
    expect(createProjectInput.safeParse({ slug: "tool", name: "Tool", keyExpiryDays: 10 }).success).toBe(
      false,
    );
  });
});
