import { describe, expect, it } from "vitest";
import { renderOtherPackage, renderOtherXml, repodataChangelog } from "./other-xml.ts";
import { SAMPLE_FILE, samplePackage } from "./testing/sample-package.ts";

describe("renderOtherPackage", () => {
  it("writes changelogs oldest first", () => {
    expect(renderOtherPackage(samplePackage(), SAMPLE_FILE)).toBe(
      `<package pkgid="35e809fd38c2a5ca459e37f547c2ad54d7c426be711cea84e9c5c34da9a6dbb0" name="packyard-alpha" arch="noarch">
  <version epoch="2" ver="1.2.3" rel="4"/>
  <changelog author="Bob &lt;bob@example.com&gt; - 2:1.2.3-3" date="1704110400">- First entry</changelog>
  <changelog author="Alice &lt;alice@example.com&gt; - 2:1.2.3-4" date="1704196800">- Second entry &lt;b&gt;</changelog>
</package>
`,
    );
  });

  it("keeps the newest 10 by default, or what it is told", () => {
    const changelog = Array.from({ length: 12 }, (_, i) => ({
      time: 1000 - i,
      author: `a${i}`,
      text: `t${i}`,
    }));
    const pkg = samplePackage({ changelog });
    expect(renderOtherPackage(pkg, SAMPLE_FILE).match(/<changelog /g)).toHaveLength(10);
    expect(
      renderOtherPackage(pkg, { ...SAMPLE_FILE, changelogLimit: Infinity }).match(/<changelog /g),
    ).toHaveLength(12);
    expect(renderOtherPackage(pkg, { ...SAMPLE_FILE, changelogLimit: 0 })).not.toContain("<changelog");
    expect(renderOtherPackage(pkg, SAMPLE_FILE)).toContain('author="a9" date="991"');
  });

  it("bumps entries sharing a time and trims authors like createrepo_c", () => {
    const entries = repodataChangelog(
      [
        { time: 50, author: "c  ", text: "" },
        { time: 50, author: "b", text: "" },
        { time: 50, author: "a", text: "" },
        { time: 40, author: " ", text: "" },
        { time: 40, author: "y", text: "" },
      ],
      10,
    );
    expect(entries.map((e) => [e.author, e.time])).toEqual([
      ["y", 40],
      [" ", 41],
      ["a", 50],
      ["b", 51],
      ["c", 52],
    ]);
  });

  it("wraps the document", () => {
    expect(renderOtherXml([])).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<otherdata xmlns="http://linux.duke.edu/metadata/other" packages="0">\n</otherdata>`,
    );
  });
});
