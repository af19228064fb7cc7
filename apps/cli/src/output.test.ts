import { describe, expect, it } from "vitest";
import { formatBytes, table } from "./output.ts";
import { renderProgress } from "./progress.ts";

describe("formatBytes (spec §9)", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [3 * 1024 * 1024, "3 MB"],
    [20_000_000, "19.07 MB"],
    [5 * 1024 ** 4, "5 TB"],
  ])("%d → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

it("table pads every column but the last", () => {
  expect(
    table(
      ["A", "LONG"],
      [
        ["abc", "x"],
        ["d", ""],
      ],
    ),
  ).toBe("A    LONG\nabc  x\nd");
});

describe("renderProgress", () => {
  it("draws a bar, the percentage and both sizes", () => {
    expect(renderProgress("app.deb", 0, 2048, 80)).toMatch(/^app\.deb \[-+\] {3}0% {2}0 B \/ 2 KB$/);
    expect(renderProgress("app.deb", 1024, 2048, 80)).toMatch(/^app\.deb \[#+-+\] {2}50% {2}1 KB \/ 2 KB$/);
    expect(renderProgress("app.deb", 2048, 2048, 80)).toMatch(/^app\.deb \[#+\] 100% {2}2 KB \/ 2 KB$/);
    expect(renderProgress("empty", 0, 0, 80)).toContain("100%");
  });

  it("fits the terminal and shortens long names", () => {
    const line = renderProgress("a-very-long-file-name-that-goes-on-and-on_1.0_amd64.deb", 10, 100, 80);
    expect(line.length).toBeLessThanOrEqual(80);
    expect(line.startsWith("a-very-long-file-name-that-go…")).toBe(true);
  });
});
