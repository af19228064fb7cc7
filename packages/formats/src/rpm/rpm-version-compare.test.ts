import { describe, expect, it } from "vitest";
import { rpmVersionCompare } from "./rpm-version-compare.ts";

// Cases from rpm's own test suite (tests/rpmvercmp.at).
const CASES: [string, string, number][] = [
  ["1.0", "1.0", 0],
  ["1.0", "2.0", -1],
  ["2.0.1", "2.0.1", 0],
  ["2.0", "2.0.1", -1],
  ["2.0.1a", "2.0.1", 1],
  ["5.5p1", "5.5p2", -1],
  ["5.5p10", "5.5p1", 1],
  ["10xyz", "10.1xyz", -1],
  ["xyz10", "xyz10.1", -1],
  ["xyz.4", "8", -1],
  ["5.5p1", "5.5.p1", 0],
  ["5.6p1", "5.5p1", 1],
  ["1b.fc17", "1.fc17", -1],
  ["1.0a", "1.0", 1],
  ["2.3.0", "2.3", 1],
  ["010", "10", 0],
  ["1.0~rc1", "1.0", -1],
  ["1.0~rc1", "1.0~rc2", -1],
  ["1.0~rc1~git123", "1.0~rc1", -1],
  ["1.0^", "1.0", 1],
  ["1.0^git1", "1.0", 1],
  ["1.0^git1", "1.01", -1],
  ["1.0^20160101", "1.0.1", -1],
  ["1.0~rc1^git1", "1.0~rc1", 1],
  ["1.0^git1~pre", "1.0^git1", -1],
  ["a", "b", -1],
  ["GLIBC_2.34", "GLIBC_2.2.5", 1],
];

describe("rpmVersionCompare", () => {
  it.each(CASES)("%s vs %s = %i", (a, b, expected) => {
    expect(rpmVersionCompare(a, b)).toBe(expected);
    expect(rpmVersionCompare(b, a)).toBe(-expected || 0);
  });
});
