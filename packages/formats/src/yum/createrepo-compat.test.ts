import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRpmPackage } from "../rpm/read-rpm.ts";
import { buildTestRpms, type TestRpms } from "../rpm/testing/build-test-rpms.ts";
import { requireTools } from "../test-support/system-tools.ts";
import { renderFilelistsPackage, renderFilelistsXml } from "./filelists-xml.ts";
import { renderOtherPackage, renderOtherXml } from "./other-xml.ts";
import { renderPrimaryPackage, renderPrimaryXml } from "./primary-xml.ts";

const hasTools = requireTools(["rpmbuild", "createrepo_c"]);

/** Splits a repodata document into its <package> fragments, each with its trailing newline. */
function fragments(xml: string): string[] {
  return xml
    .split(/(?=<package )/)
    .slice(1)
    .map((part) => part.replace(/<\/(metadata|filelists|otherdata)>$/, ""));
}

describe.skipIf(!hasTools)("same bytes as createrepo_c", () => {
  let rpms: TestRpms;
  let repo: string;
  const ours = { primary: [] as string[], filelists: [] as string[], other: [] as string[] };
  const theirs = { primary: "", filelists: "", other: "" };

  beforeAll(() => {
    rpms = buildTestRpms();
    repo = mkdtempSync(join(tmpdir(), "packyard-createrepo-"));
    mkdirSync(join(repo, "packages"));
    for (const path of [rpms.alpha, rpms.alphaSource, rpms.beta, rpms.weird]) {
      copyFileSync(path, join(repo, "packages", basename(path)));
    }
    execFileSync("createrepo_c", ["--no-database", repo], { stdio: "pipe" });
    const repodata = join(repo, "repodata");
    for (const type of ["primary", "filelists", "other"] as const) {
      const name = readdirSync(repodata).find((file) => file.endsWith(`-${type}.xml.gz`))!;
      theirs[type] = gunzipSync(readFileSync(join(repodata, name))).toString("utf8");
    }
    // Render ours in createrepo_c's package order, with the same file facts it used.
    for (const match of theirs.primary.matchAll(/<location href="([^"]+)"\/>/g)) {
      const href = match[1]!;
      const path = join(repo, href);
      const bytes = readFileSync(path);
      const file = {
        checksum: createHash("sha256").update(bytes).digest("hex"),
        href,
        size: bytes.length,
        time: Math.floor(statSync(path).mtimeMs / 1000),
      };
      const { metadata } = parseRpmPackage(bytes);
      ours.primary.push(renderPrimaryPackage(metadata, file));
      ours.filelists.push(renderFilelistsPackage(metadata, file));
      ours.other.push(renderOtherPackage(metadata, file));
    }
  });
  afterAll(() => {
    rpms?.cleanup();
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  it("primary.xml: every package fragment and the whole document", () => {
    expect(ours.primary).toHaveLength(4);
    expect(ours.primary).toEqual(fragments(theirs.primary));
    expect(renderPrimaryXml(ours.primary)).toBe(theirs.primary);
  });

  it("filelists.xml", () => {
    expect(ours.filelists).toEqual(fragments(theirs.filelists));
    expect(renderFilelistsXml(ours.filelists)).toBe(theirs.filelists);
  });

  it("other.xml, including the 10-entry changelog cut and same-second bumps", () => {
    expect(ours.other).toEqual(fragments(theirs.other));
    expect(renderOtherXml(ours.other)).toBe(theirs.other);
    expect(theirs.other).toContain('- 1.0-12" date="1709294402"');
  });
});
