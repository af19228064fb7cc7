// Test-only: package metadata as the RPM reader would store it, for renderer tests without real packages.
import { makeDependency } from "../../rpm/rpm-dependency.ts";
import type { RpmPackageMetadata } from "../../rpm/rpm-package-metadata.ts";

export function samplePackage(overrides: Partial<RpmPackageMetadata> = {}): RpmPackageMetadata {
  return {
    name: "packyard-alpha",
    epoch: 2,
    version: "1.2.3",
    release: "4",
    arch: "noarch",
    isSource: false,
    summary: "Alpha test package & <friends>",
    description: 'Alpha is a test package.\nIt has two lines & "quotes".',
    packager: "Test Packager <test@example.com>",
    url: "https://example.com/alpha",
    license: "MIT",
    vendor: "Packyard Tests",
    group: "Applications/System",
    buildHost: "vm",
    sourceRpm: "packyard-alpha-1.2.3-4.src.rpm",
    buildTime: 1795257154,
    installedSize: 30,
    archiveSize: 816,
    headerStart: 4504,
    headerEnd: 7421,
    provides: [
      makeDependency("alpha-virtual", 8, "1.0"),
      makeDependency("config(packyard-alpha)", 268435464, "2:1.2.3-4"),
      makeDependency("packyard-alpha", 8, "2:1.2.3-4"),
    ],
    requires: [
      makeDependency("/bin/sh", 512, ""),
      makeDependency("/bin/sh", 768, ""),
      makeDependency("/bin/sh", 16384, ""),
      makeDependency("config(packyard-alpha)", 268435464, "2:1.2.3-4"),
      makeDependency("rpmlib(CompressedFileNames)", 16777226, "3.0.4-1"),
    ],
    conflicts: [makeDependency("old-alpha", 2, "1.0")],
    obsoletes: [makeDependency("alpha-legacy", 10, "0.9")],
    suggests: [makeDependency("delta", 12, "2")],
    enhances: [],
    recommends: [makeDependency("gamma", 0, "")],
    supplements: [],
    files: [
      { path: "/etc/alpha", mode: 0o40755, flags: 0, type: "dir" },
      { path: "/etc/alpha/alpha.conf", mode: 0o100644, flags: 17, type: "file" },
      { path: "/usr/bin/alpha", mode: 0o100755, flags: 0, type: "file" },
      { path: "/usr/share/alpha", mode: 0o40755, flags: 0, type: "dir" },
      { path: "/usr/share/alpha/data.txt", mode: 0o100644, flags: 0, type: "file" },
      { path: "/var/log/alpha.log", mode: 0o100000, flags: 64, type: "ghost" },
    ],
    changelog: [
      { time: 1704196800, author: "Alice <alice@example.com> - 2:1.2.3-4", text: "- Second entry <b>" },
      { time: 1704110400, author: "Bob <bob@example.com> - 2:1.2.3-3", text: "- First entry" },
    ],
    ...overrides,
  };
}

export const SAMPLE_FILE = {
  checksum: "35e809fd38c2a5ca459e37f547c2ad54d7c426be711cea84e9c5c34da9a6dbb0",
  href: "packyard-alpha-1.2.3-4.noarch.rpm",
  size: 7625,
  time: 1795257160,
};
