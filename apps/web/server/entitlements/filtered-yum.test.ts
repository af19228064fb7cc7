import { parseVersionRange } from "@packyard/contract/entitlements.ts";
import { describe, expect, it } from "vitest";
import { filterByPkgid, filterPrimary } from "./filtered-yum.ts";

const range = (text: string) => {
  const parsed = parseVersionRange(text);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return parsed.range;
};

const primary = (pkgid: string, ver: string) =>
  `<package type="rpm">\n  <name>tool</name>\n  <arch>noarch</arch>\n  <version epoch="0" ver="${ver}" rel="1"/>\n  <checksum type="sha256" pkgid="YES">${pkgid}</checksum>\n</package>\n`;
const filelists = (pkgid: string, ver: string) =>
  `<package pkgid="${pkgid}" name="tool" arch="noarch">\n  <version epoch="0" ver="${ver}" rel="1"/>\n</package>\n`;

describe("repodata for a version range", () => {
  it("keeps the primary packages whose ver is in the range, in rpm's order, and the other files' by pkgid", () => {
    const xml = `<metadata packages="3">\n${primary("a1", "1.9")}${primary("b2", "2.10")}${primary("c3", "3.0")}</metadata>`;
    const { fragments, pkgids } = filterPrimary(xml, range(">=2.0 <3.0"));
    expect(fragments).toEqual([primary("b2", "2.10")]);
    expect([...pkgids]).toEqual(["b2"]);
    const lists = `<filelists packages="3">\n${filelists("a1", "1.9")}${filelists("b2", "2.10")}${filelists("c3", "3.0")}</filelists>`;
    expect(filterByPkgid(lists, pkgids)).toEqual([filelists("b2", "2.10")]);
  });
});
