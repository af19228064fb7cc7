// Real dnf (librepo + libsolv) reads repodata written a block of packages per gzip member:
// every package, its files (filelists.xml) and its changelog (other.xml).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { renderFilelistsPackage } from "./filelists-xml.ts";
import { renderOtherPackage } from "./other-xml.ts";
import { renderPrimaryPackage } from "./primary-xml.ts";
import { buildRepodataFiles } from "./repodata-blocks.ts";
import { renderRepomd } from "./repomd-xml.ts";
import { samplePackage } from "./testing/sample-package.ts";

const hasTools = requireTools(["dnf"]);
const COUNT = 300;

describe.skipIf(!hasTools)("dnf reads repodata compressed a block per gzip member", () => {
  let work: string;
  const repo = () => join(work, "repo");

  function dnf(...args: string[]) {
    const root = join(work, "root");
    const run = spawnSync(
      "dnf",
      [
        "-q",
        `--installroot=${root}`,
        "--releasever=12",
        `--setopt=reposdir=${root}/etc/yum.repos.d`,
        `--setopt=cachedir=${root}/cache`,
        `--repofrompath=blocks,file://${repo()}`,
        "--repo=blocks",
        "--setopt=blocks.gpgcheck=0",
        "--setopt=blocks.skip_if_unavailable=False",
        ...args,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    if (run.status !== 0) throw new Error(`dnf ${args.join(" ")} failed (${run.status}):\n${run.stderr}`);
    return run.stdout;
  }

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "packyard-dnf-blocks-"));
    const packages = Array.from({ length: COUNT }, (_, i) => {
      const name = `blocks-${String(i).padStart(4, "0")}`;
      const pkg = samplePackage({ name, sourceRpm: `${name}-1.2.3-4.src.rpm` });
      const checksum = createHash("sha256").update(name).digest("hex");
      return {
        id: name,
        name,
        primary: renderPrimaryPackage(pkg, { checksum, href: `packages/${name}.rpm`, size: 1000, time: 1 }),
        filelists: renderFilelistsPackage(pkg, { checksum }),
        other: renderOtherPackage(pkg, { checksum }),
      };
    });
    const files = buildRepodataFiles(packages, 1_700_000_000);
    mkdirSync(join(repo(), "repodata"), { recursive: true });
    for (const file of files) writeFileSync(join(repo(), file.path), file.bytes);
    writeFileSync(
      join(repo(), "repodata/repomd.xml"),
      renderRepomd({ revision: 1_700_000_000, entries: files.map((f) => f.entry) }),
    );
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("lists every package, with files and changelogs from the other documents", () => {
    const names = dnf("repoquery", "--queryformat", "%{name}")
      .split("\n")
      .filter((line) => line !== "")
      .sort();
    expect(names).toHaveLength(COUNT);
    expect(names[0]).toBe("blocks-0000");
    expect(names.at(-1)).toBe(`blocks-${String(COUNT - 1).padStart(4, "0")}`);
    // The last package's files and changelog sit in the last members of their documents.
    const last = `blocks-${String(COUNT - 1).padStart(4, "0")}`;
    expect(dnf("repoquery", "--list", last)).toContain("/usr/bin/");
    expect(dnf("repoquery", "--changelogs", last)).toMatch(/\S/);
  });
});
