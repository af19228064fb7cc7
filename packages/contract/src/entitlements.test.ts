import { describe, expect, it } from "vitest";
import {
  createEntitlementInput,
  parseVersionRange,
  rotateEntitlementInput,
  versionInRange,
} from "./entitlements.ts";

/** A plain dotted-number order, enough to test the range logic (the server passes dpkg's or rpm's). */
const numeric = (a: string, b: string) => {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

const inRange = (range: string, version: string) => {
  const parsed = parseVersionRange(range);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return versionInRange(parsed.range, version, numeric);
};

describe("version ranges", () => {
  it("hold when every comparator of one alternative holds", () => {
    expect(inRange(">=2.0 <3.0", "2.0")).toBe(true);
    expect(inRange(">=2.0 <3.0", "2.9.9")).toBe(true);
    expect(inRange(">=2.0 <3.0", "3.0")).toBe(false);
    expect(inRange(">=2.0 <3.0", "1.9")).toBe(false);
    expect(inRange(">= 2.0  < 3.0", "2.5")).toBe(true);
    expect(inRange("=1.4.2", "1.4.2")).toBe(true);
    expect(inRange("1.4.2", "1.4.3")).toBe(false);
    expect(inRange(">1 <=2", "2")).toBe(true);
    expect(inRange(">=1 <2 || >=4", "4.1")).toBe(true);
    expect(inRange(">=1 <2 || >=4", "3")).toBe(false);
  });

  it("say what is wrong with a range that does not parse", () => {
    expect(parseVersionRange("")).toEqual({
      problem: "Version range is empty: leave it out to allow every version",
    });
    expect(parseVersionRange(">=2.0 <")).toEqual({
      problem: 'Version range: "<" is not a comparator such as >=2.0, <3.0 or =1.4.2',
    });
    expect(parseVersionRange(">=1 ||")).toEqual({
      problem: "Version range has an empty alternative around ||",
    });
    expect(parseVersionRange("~>2")).toHaveProperty("problem");
  });
});

describe("requests", () => {
  it("take limits, normalise dates and ranges, and refuse dates out of order", () => {
    const parsed = createEntitlementInput.parse({
      name: " Initech ",
      validUntil: "2027-01-01T00:00:00Z",
      versionRange: " >=2.0   <3.0 ",
      suites: ["stable", "stable"],
    });
    expect(parsed).toMatchObject({
      name: "Initech",
      validUntil: "2027-01-01T00:00:00.000Z",
      versionRange: ">=2.0 <3.0",
      suites: ["stable"],
    });
    const reversed = createEntitlementInput.safeParse({
      name: "x",
      validFrom: "2027-01-02T00:00:00Z",
      validUntil: "2027-01-01T00:00:00Z",
    });
    expect(reversed.success).toBe(false);
    expect(reversed.error?.issues[0]?.message).toBe("validUntil must be after validFrom");
    expect(createEntitlementInput.safeParse({ name: "x", token: "mine" }).success).toBe(false);
    expect(rotateEntitlementInput.parse({})).toEqual({ overlapHours: 24 });
    expect(rotateEntitlementInput.safeParse({ overlapHours: 721 }).success).toBe(false);
  });
});
