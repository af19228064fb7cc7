import { describe, expect, it } from "vitest";
import { dependencyComparison, makeDependency } from "./rpm-dependency.ts";
import { RpmSense } from "./rpm-tags.ts";

describe("dependency flags", () => {
  it("maps the sense bits to comparisons, ignoring the rest", () => {
    expect(dependencyComparison(0)).toBeNull();
    expect(dependencyComparison(RpmSense.EQUAL)).toBe("EQ");
    expect(dependencyComparison(RpmSense.LESS)).toBe("LT");
    expect(dependencyComparison(RpmSense.GREATER)).toBe("GT");
    expect(dependencyComparison(RpmSense.LESS | RpmSense.EQUAL | RpmSense.RPMLIB)).toBe("LE");
    expect(dependencyComparison(RpmSense.GREATER | RpmSense.EQUAL | RpmSense.SCRIPT_PRE)).toBe("GE");
    expect(dependencyComparison(RpmSense.LESS | RpmSense.GREATER)).toBeNull();
  });

  it("marks dependencies needed before scriptlets", () => {
    for (const bit of [
      RpmSense.PREREQ,
      RpmSense.SCRIPT_PRE,
      RpmSense.SCRIPT_POST,
      RpmSense.PRETRANS,
      RpmSense.POSTTRANS,
    ]) {
      expect(makeDependency("x", bit, "").pre).toBe(true);
    }
    expect(makeDependency("x", RpmSense.SCRIPT_PREUN | RpmSense.INTERP, "").pre).toBe(false);
    expect(makeDependency("x", 12, "1:2-3")).toEqual({
      name: "x",
      flags: 12,
      evr: "1:2-3",
      comparison: "GE",
      pre: false,
    });
  });
});
