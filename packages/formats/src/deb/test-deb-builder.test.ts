import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { buildTestDeb, testCompressions } from "./test-deb-builder.ts";

// The parser tests are only as good as the archives they feed it: check dpkg-deb agrees with them.
describe("buildTestDeb", () => {
  const hasTools = requireTools(["dpkg-deb"]);
  const directory = mkdtempSync(join(tmpdir(), "test-deb-builder-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it.runIf(hasTools).each(testCompressions)("writes a .deb dpkg-deb reads (%s)", (compression) => {
    const path = join(directory, `${compression}.deb`);
    writeFileSync(path, buildTestDeb({ controlCompression: compression, dataCompression: compression }));
    expect(execFileSync("dpkg-deb", ["--field", path, "Package"], { encoding: "utf8" })).toBe(
      "hello-world\n",
    );
    expect(execFileSync("dpkg-deb", ["--contents", path], { encoding: "utf8" })).toContain(
      "./usr/bin/hello-world",
    );
  });
});
