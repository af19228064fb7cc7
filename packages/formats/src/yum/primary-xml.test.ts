import { describe, expect, it } from "vitest";
import { makeDependency } from "../rpm/rpm-dependency.ts";
import { renderPrimaryPackage, renderPrimaryXml } from "./primary-xml.ts";
import { SAMPLE_FILE, samplePackage } from "./testing/sample-package.ts";

// What createrepo_c 0.17 wrote for the same package (see createrepo-compat.test.ts for the live check).
const GOLDEN = `<package type="rpm">
  <name>packyard-alpha</name>
  <arch>noarch</arch>
  <version epoch="2" ver="1.2.3" rel="4"/>
  <checksum type="sha256" pkgid="YES">35e809fd38c2a5ca459e37f547c2ad54d7c426be711cea84e9c5c34da9a6dbb0</checksum>
  <summary>Alpha test package &amp; &lt;friends&gt;</summary>
  <description>Alpha is a test package.
It has two lines &amp; "quotes".</description>
  <packager>Test Packager &lt;test@example.com&gt;</packager>
  <url>https://example.com/alpha</url>
  <time file="1795257160" build="1795257154"/>
  <size package="7625" installed="30" archive="816"/>
  <location href="packyard-alpha-1.2.3-4.noarch.rpm"/>
  <format>
    <rpm:license>MIT</rpm:license>
    <rpm:vendor>Packyard Tests</rpm:vendor>
    <rpm:group>Applications/System</rpm:group>
    <rpm:buildhost>vm</rpm:buildhost>
    <rpm:sourcerpm>packyard-alpha-1.2.3-4.src.rpm</rpm:sourcerpm>
    <rpm:header-range start="4504" end="7421"/>
    <rpm:provides>
      <rpm:entry name="alpha-virtual" flags="EQ" epoch="0" ver="1.0"/>
      <rpm:entry name="config(packyard-alpha)" flags="EQ" epoch="2" ver="1.2.3" rel="4"/>
      <rpm:entry name="packyard-alpha" flags="EQ" epoch="2" ver="1.2.3" rel="4"/>
    </rpm:provides>
    <rpm:requires>
      <rpm:entry name="/bin/sh" pre="1"/>
      <rpm:entry name="/bin/sh"/>
    </rpm:requires>
    <rpm:conflicts>
      <rpm:entry name="old-alpha" flags="LT" epoch="0" ver="1.0"/>
    </rpm:conflicts>
    <rpm:obsoletes>
      <rpm:entry name="alpha-legacy" flags="LE" epoch="0" ver="0.9"/>
    </rpm:obsoletes>
    <rpm:suggests>
      <rpm:entry name="delta" flags="GE" epoch="0" ver="2"/>
    </rpm:suggests>
    <rpm:recommends>
      <rpm:entry name="gamma"/>
    </rpm:recommends>
    <file type="dir">/etc/alpha</file>
    <file>/etc/alpha/alpha.conf</file>
    <file>/usr/bin/alpha</file>
  </format>
</package>
`;

describe("renderPrimaryPackage", () => {
  it("writes the fragment createrepo_c writes", () => {
    expect(renderPrimaryPackage(samplePackage(), SAMPLE_FILE)).toBe(GOLDEN);
  });

  it("lists source packages as arch src and takes a moved header range", () => {
    const xml = renderPrimaryPackage(samplePackage({ isSource: true, arch: "x86_64", epoch: null }), {
      ...SAMPLE_FILE,
      headerRange: { start: 4512, end: 7429 },
      base: "https://mirror.example/repo/",
    });
    expect(xml).toContain("<arch>src</arch>");
    expect(xml).toContain('<version epoch="0" ver="1.2.3" rel="4"/>');
    expect(xml).toContain('<rpm:header-range start="4512" end="7429"/>');
    expect(xml).toContain(
      '<location xml:base="https://mirror.example/repo/" href="packyard-alpha-1.2.3-4.noarch.rpm"/>',
    );
  });

  it("leaves out empty dependency lists and empty-named entries", () => {
    const xml = renderPrimaryPackage(
      samplePackage({ provides: [], requires: [], conflicts: [makeDependency("", 0, "")], files: [] }),
      SAMPLE_FILE,
    );
    expect(xml).not.toContain("rpm:provides");
    expect(xml).not.toContain("rpm:requires");
    expect(xml).toContain("    <rpm:conflicts/>\n");
    expect(xml).not.toContain("<file");
  });

  it("strips characters XML cannot carry instead of dropping the package", () => {
    const xml = renderPrimaryPackage(
      samplePackage({ summary: "bell\u0007 and nul\u0000 ok\u{1F600}" }),
      SAMPLE_FILE,
    );
    expect(xml).toContain("<summary>bell and nul ok\u{1F600}</summary>");
  });
});

describe("renderPrimaryXml", () => {
  it("wraps fragments with the namespaces and the package count", () => {
    expect(renderPrimaryXml(["<package/>\n", "<package/>\n"])).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>
<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="2">
<package/>
<package/>
</metadata>`,
    );
    expect(renderPrimaryXml([])).toContain('packages="0">\n</metadata>');
  });
});
