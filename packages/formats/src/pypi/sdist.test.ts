// Source distributions made with tar (as build tools write them), read as a stream.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { PypiMetadataError } from "./metadata.ts";
import { readSdistMetadata } from "./sdist.ts";

const hasTar = requireTools(["tar"]);
const dir = mkdtempSync(join(tmpdir(), "packyard-sdist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sdist(name: string, files: Record<string, string>): Buffer {
  const root = mkdtempSync(join(dir, "src-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const out = join(dir, name);
  execFileSync("tar", [
    "-czf",
    out,
    "-C",
    root,
    ...Object.keys(files)
      .map((p) => p.split("/")[0]!)
      .filter((v, i, a) => a.indexOf(v) === i),
  ]);
  return readFileSync(out);
}

const PKG_INFO = "Metadata-Version: 2.1\nName: acme-sdk\nVersion: 1.2.0\nSummary: The SDK\n";
const read = (bytes: Buffer, max = 10_000_000) =>
  readSdistMetadata(
    (async function* () {
      yield bytes;
    })(),
    { maxDecompressedBytes: max },
  );

describe.runIf(hasTar)("a source distribution's metadata", () => {
  it("is its top directory's PKG-INFO", async () => {
    const bytes = sdist("acme-sdk-1.2.0.tar.gz", {
      "acme_sdk-1.2.0/setup.py": "from setuptools import setup\nsetup()\n",
      "acme_sdk-1.2.0/PKG-INFO": PKG_INFO,
      "acme_sdk-1.2.0/acme_sdk.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: other\nVersion: 9\n",
    });
    const { metadata } = await read(bytes);
    expect(metadata).toMatchObject({ name: "acme-sdk", version: "1.2.0", summary: "The SDK" });
  });

  it("refuses what is not one with a named error", async () => {
    await expect(read(Buffer.from("not gzip"))).rejects.toBeInstanceOf(PypiMetadataError);
    await expect(read(sdist("none.tar.gz", { "acme-1.0/setup.py": "" }))).rejects.toThrow(/no PKG-INFO/);
    // A bomb: a small gzip of many zero bytes stops at the bound.
    await expect(read(gzipSync(Buffer.alloc(50_000_000)), 1_000_000)).rejects.toThrow(
      /decompresses to more than/,
    );
  });
});
