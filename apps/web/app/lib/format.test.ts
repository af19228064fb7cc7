import { describe, expect, it } from "vitest";
import {
  formatCompactCount,
  formatCount,
  formatCurrency,
  formatExpiryLabel,
  formatFileSize,
  readingTimeMinutes,
} from "./format.ts";

describe("formatFileSize", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [1024 * 1024 - 1, "1024 KB"],
    [1024 * 1024, "1 MB"],
    [1234567, "1.18 MB"],
    [1024 ** 3, "1 GB"],
    [1024 ** 4, "1 TB"],
    [1024 ** 5, "1024 TB"],
  ])("%d bytes → %s", (bytes, expected) => {
    expect(formatFileSize(bytes)).toBe(expected);
  });
});

describe("formatCompactCount", () => {
  it.each([
    [0, "0"],
    [999, "999"],
    [1000, "1.0K"],
    [1550, "1.6K"],
    [999999, "1000.0K"],
    [1000000, "1.0M"],
    [2500000, "2.5M"],
  ])("%d → %s", (count, expected) => {
    expect(formatCompactCount(count)).toBe(expected);
  });
});

describe("formatCount", () => {
  it.each([
    [0, "0 downloads"],
    [1, "1 download"],
    [2, "2 downloads"],
    [1500, "1.5K downloads"],
  ])("%i → %s", (count, expected) => {
    expect(formatCount(count, "download")).toBe(expected);
  });

  it("takes an irregular plural", () => {
    expect(formatCount(1, "entry", "entries")).toBe("1 entry");
    expect(formatCount(3, "entry", "entries")).toBe("3 entries");
  });
});

describe("formatCurrency", () => {
  it("divides minor units by 100 in en-US format, usd by default", () => {
    expect(formatCurrency(1200)).toBe("$12.00");
    expect(formatCurrency(39000)).toBe("$390.00");
    expect(formatCurrency(123456789)).toBe("$1,234,567.89");
    expect(formatCurrency(500, "eur")).toBe("€5.00");
  });
});

describe("formatExpiryLabel", () => {
  const now = new Date(2026, 10, 21, 12, 0, 0);
  const inDays = (n: number) => new Date(2026, 10, 21 + n, 9, 0, 0);
  it.each([
    [-1, "Expired"],
    [0, "Expires today"],
    [1, "Expires tomorrow"],
    [2, "Expires in 2 days"],
    [30, "Expires in 30 days"],
  ])("%d days → %s", (days, expected) => {
    expect(formatExpiryLabel(inDays(days), now)).toBe(expected);
  });
  it("31 days shows the local date", () => {
    expect(formatExpiryLabel(inDays(31), now)).toBe(`Expires ${inDays(31).toLocaleDateString()}`);
  });
});

describe("readingTimeMinutes", () => {
  const block = (words: number) => ({
    _type: "block",
    children: [{ text: Array(words).fill("word").join(" ") }],
  });
  it("gives 5 minutes for a missing or non-array body", () => {
    expect(readingTimeMinutes(undefined)).toBe(5);
    expect(readingTimeMinutes("text")).toBe(5);
    expect(readingTimeMinutes({})).toBe(5);
  });
  it("is at least one minute, words / 200 rounded up", () => {
    expect(readingTimeMinutes([])).toBe(1);
    expect(readingTimeMinutes([block(200)])).toBe(1);
    expect(readingTimeMinutes([block(201)])).toBe(2);
    expect(readingTimeMinutes([block(150), block(250)])).toBe(2);
  });
});
