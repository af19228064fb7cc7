// npm package names and tarballs made with tar, the way `npm pack` lays them out.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { assertPackageName, NpmPackageError, packagePathSegment, readTarballManifest } from "./package.ts";

const hasTar = requireTools(["tar"]);
const dir = mkdtempSync(join(tmpdir(), "packyard-npm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tgz(name: string, files: Record<string, string>): Buffer {
  const root = mkdtempSync(join(dir, "src-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const out = join(dir, name);
  execFileSync("tar", ["-czf", out, "-C", root, "package"]);
  return readFileSync(out);
}

const read = (bytes: Buffer, max = 10_000_000) =>
  readTarballManifest(
    (async function* () {
      yield bytes;
    })(),
    { maxDecompressedBytes: max },
  );

describe("npm package names", () => {
  it("accepts what npm publishes, scoped or not, and names the reasons otherwise", () => {
    expect(assertPackageName("@acme/sdk")).toEqual({ scope: "acme", bare: "sdk" });
    expect(assertPackageName("acme-sdk")).toEqual({ bare: "acme-sdk" });
    for (const bad of ["Acme", "../x", "@acme/", " sdk", "node_modules"])
      expect(() => assertPackageName(bad), bad).toThrow(NpmPackageError);
    expect(packagePathSegment("@acme/sdk")).toBe("@acme%2Fsdk");
    expect(packagePathSegment("sdk")).toBe("sdk");
  });
});

describe.runIf(hasTar)("a package tarball", () => {
  it("is read up to its package/package.json", async () => {
    const bytes = tgz("sdk.tgz", {
      "package/package.json": JSON.stringify({ name: "@acme/sdk", version: "1.2.0" }),
      "package/index.js": "module.exports = 1;\n",
    });
    expect((await read(bytes)).manifest).toEqual({ name: "@acme/sdk", version: "1.2.0" });
  });

  it("refuses what is not one with a named error", async () => {
    await expect(read(Buffer.from("not gzip"))).rejects.toBeInstanceOf(NpmPackageError);
    await expect(read(tgz("none.tgz", { "package/index.js": "" }))).rejects.toThrow(
      /no package\/package.json/,
    );
    await expect(read(tgz("bad.tgz", { "package/package.json": "{" }))).rejects.toThrow(/not JSON/);
    await expect(read(gzipSync(Buffer.alloc(50_000_000)), 1_000_000)).rejects.toThrow(
      /decompresses to more than/,
    );
  });
});
