import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { renderFilelistsPackage, renderFilelistsXml } from "./filelists-xml.ts";
import { renderOtherPackage, renderOtherXml } from "./other-xml.ts";
import { renderPrimaryPackage, renderPrimaryXml } from "./primary-xml.ts";
import { buildRepodataFiles, type PackageFragments, type RepodataMemberCaches } from "./repodata-blocks.ts";
import { samplePackage } from "./testing/sample-package.ts";

function fragments(count: number, prefix = "pkg"): PackageFragments[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `${prefix}-${String(i).padStart(4, "0")}`;
    const pkg = samplePackage({ name, sourceRpm: `${name}-1.2.3-4.src.rpm` });
    const checksum = createHash("sha256").update(name).digest("hex");
    return {
      id: `file-${name}`,
      name,
      primary: renderPrimaryPackage(pkg, { checksum, href: `packages/${name}.rpm`, size: 1000, time: 1 }),
      filelists: renderFilelistsPackage(pkg, { checksum }),
      other: renderOtherPackage(pkg, { checksum }),
    };
  });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("buildRepodataFiles", () => {
  it("compresses, block by block, exactly the documents the whole-file renderers make", () => {
    const packages = fragments(300);
    const [primary, filelists, other] = buildRepodataFiles(packages, 1_700_000_000);
    const expected = [
      renderPrimaryXml(packages.map((p) => p.primary)),
      renderFilelistsXml(packages.map((p) => p.filelists)),
      renderOtherXml(packages.map((p) => p.other)),
    ];
    for (const [index, file] of [primary!, filelists!, other!].entries()) {
      const open = gunzipSync(file.bytes);
      expect(open.toString("utf8")).toBe(expected[index]);
      expect(file.entry.openChecksum).toBe(sha256(open));
      expect(file.entry.openSize).toBe(open.length);
      expect(file.entry.checksum).toBe(sha256(file.bytes));
      expect(file.entry.size).toBe(file.bytes.length);
      expect(file.path).toBe(`repodata/${file.entry.checksum}-${file.entry.type}.xml.gz`);
    }
    expect(primary!.entry.type).toBe("primary");
  });

  it("recompresses only the header and the block a new package falls in", () => {
    const packages = fragments(300);
    const first: RepodataMemberCaches = {};
    buildRepodataFiles(packages, 1, { next: first });
    const added = [...packages, ...fragments(1, "pkg-0150")].sort((a, b) => (a.name < b.name ? -1 : 1));
    const second: RepodataMemberCaches = {};
    const files = buildRepodataFiles(added, 2, { previous: first, next: second });
    for (const type of ["primary", "filelists", "other"] as const) {
      const fresh = [...second[type]!.keys()].filter((key) => !first[type]!.has(key));
      // The envelope's head (its packages="301") and one block of packages.
      expect(fresh).toHaveLength(2);
    }
    expect(gunzipSync(files[0]!.bytes).toString()).toContain("<name>pkg-0150-0000</name>");
  });

  it("makes the same files from the previous build's blocks and members as from nothing", () => {
    const packages = fragments(500);
    let caches: RepodataMemberCaches = {};
    buildRepodataFiles(packages, 1, { next: caches });
    // One more sorting first (as a new package often does), one removed, one more in the middle.
    const changes = [
      [...fragments(1, "aaa"), ...packages],
      [...fragments(1, "aaa"), ...packages.filter((p) => p.name !== "pkg-0200")],
      [
        ...fragments(1, "aaa"),
        ...packages.filter((p) => p.name !== "pkg-0200"),
        ...fragments(1, "pkg-0300"),
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    ];
    for (const list of changes) {
      const next: RepodataMemberCaches = {};
      const reused = buildRepodataFiles(list, 2, { previous: caches, next });
      const fresh = buildRepodataFiles(list, 2);
      expect(reused.map((f) => Buffer.from(f.bytes).toString("base64"))).toEqual(
        fresh.map((f) => Buffer.from(f.bytes).toString("base64")),
      );
      expect(reused.map((f) => f.entry)).toEqual(fresh.map((f) => f.entry));
      // Most blocks are the previous build's own (their keys not joined again).
      const kept = [...next.blocks!.values()].filter((b) => caches.blocks!.get(b.items[0]!) === b);
      expect(kept.length).toBeGreaterThanOrEqual(next.blocks!.size - 2);
      caches = next;
    }
  });
});
