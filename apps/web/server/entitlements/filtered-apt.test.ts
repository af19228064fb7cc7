import { parseVersionRange } from "@packyard/contract/entitlements.ts";
import { describe, expect, it } from "vitest";
import { filterPackages } from "./filtered-apt.ts";

const range = (text: string) => {
  const parsed = parseVersionRange(text);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return parsed.range;
};

const stanza = (name: string, version: string) =>
  `Package: ${name}\nVersion: ${version}\nArchitecture: amd64\nFilename: pool/main/${name[0]}/${name}/${name}_${version}_amd64.deb\nDescription: ${name}\n multi-line\n`;

describe("a Packages index for a version range", () => {
  it("keeps the paragraphs whose Version is in the range, compared as dpkg does", () => {
    const index = [
      stanza("tool", "1.9"),
      stanza("tool", "2.0~rc1"),
      stanza("tool", "2.0"),
      stanza("tool", "2.10.1-1"),
      stanza("tool", "3.0"),
    ].join("\n");
    // 2.0~rc1 sorts before 2.0 in dpkg's order: outside >=2.0.
    expect(filterPackages(index, range(">=2.0 <3.0"))).toBe(
      `${stanza("tool", "2.0")}\n${stanza("tool", "2.10.1-1")}`,
    );
  });

  it("is an empty index when nothing is in the range", () => {
    expect(filterPackages(stanza("tool", "1.0"), range(">=2"))).toBe("");
    expect(filterPackages("", range(">=2"))).toBe("");
  });
});
