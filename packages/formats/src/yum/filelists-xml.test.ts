import { describe, expect, it } from "vitest";
import { renderFilelistsPackage, renderFilelistsXml } from "./filelists-xml.ts";
import { SAMPLE_FILE, samplePackage } from "./testing/sample-package.ts";

describe("renderFilelistsPackage", () => {
  it("lists every file with its type", () => {
    expect(renderFilelistsPackage(samplePackage(), SAMPLE_FILE)).toBe(
      `<package pkgid="35e809fd38c2a5ca459e37f547c2ad54d7c426be711cea84e9c5c34da9a6dbb0" name="packyard-alpha" arch="noarch">
  <version epoch="2" ver="1.2.3" rel="4"/>
  <file type="dir">/etc/alpha</file>
  <file>/etc/alpha/alpha.conf</file>
  <file>/usr/bin/alpha</file>
  <file type="dir">/usr/share/alpha</file>
  <file>/usr/share/alpha/data.txt</file>
  <file type="ghost">/var/log/alpha.log</file>
</package>
`,
    );
  });

  it("escapes file names", () => {
    const pkg = samplePackage({ files: [{ path: "/a & <b>", mode: 0o100644, flags: 0, type: "file" }] });
    expect(renderFilelistsPackage(pkg, SAMPLE_FILE)).toContain("<file>/a &amp; &lt;b&gt;</file>");
  });

  it("wraps the document", () => {
    expect(renderFilelistsXml(["x\n"])).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<filelists xmlns="http://linux.duke.edu/metadata/filelists" packages="1">\nx\n</filelists>`,
    );
  });
});
