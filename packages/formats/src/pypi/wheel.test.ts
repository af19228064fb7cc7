// Wheels written by Python's zipfile (the way build tools write them), read through ranged reads.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { requireTools } from "../test-support/system-tools.ts";
import { PypiMetadataError } from "./metadata.ts";
import { MAX_WHEEL_ENTRIES, type RangeSource, readWheelMetadata } from "./wheel.ts";

const hasPython = requireTools(["python3"]);
const dir = mkdtempSync(join(tmpdir(), "packyard-wheel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A zip of `files` (name → text), deflated, written by Python's zipfile. */
function zip(name: string, files: Record<string, string>, extraEmpty = 0): Buffer {
  const path = join(dir, name);
  execFileSync(
    "python3",
    [
      "-c",
      `import json, sys, zipfile
files = json.loads(sys.stdin.read())
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for n, t in files.items():
        z.writestr(n, t)
    for i in range(int(sys.argv[2])):
        z.writestr(f"pad/{i}", "")`,
      path,
      String(extraEmpty),
    ],
    { input: JSON.stringify(files) },
  );
  return readFileSync(path);
}

/** The bytes as a range source, counting what was read. */
function source(bytes: Buffer) {
  const reads: number[] = [];
  const src: RangeSource = {
    size: bytes.byteLength,
    async *read(start, end) {
      reads.push(end - start);
      yield bytes.subarray(start, end);
    },
  };
  return { src, reads };
}

const METADATA =
  "Metadata-Version: 2.1\nName: acme-sdk\nVersion: 1.2.0\nRequires-Python: >=3.9\n\nThe SDK.\n";

describe.runIf(hasPython)("a wheel's metadata", () => {
  it("is read from its .dist-info/METADATA without reading the whole wheel", async () => {
    // Random text: it does not deflate away, so the wheel is large beside its METADATA.
    const padding = randomBytes(150_000).toString("base64");
    const wheel = zip("acme_sdk-1.2.0-py3-none-any.whl", {
      "acme_sdk/__init__.py": padding,
      "acme_sdk-1.2.0.dist-info/METADATA": METADATA,
      "acme_sdk-1.2.0.dist-info/WHEEL": "Wheel-Version: 1.0\n",
    });
    const { src, reads } = source(wheel);
    const { bytes, metadata } = await readWheelMetadata(src);
    expect(new TextDecoder().decode(bytes)).toBe(METADATA);
    expect(metadata).toMatchObject({ name: "acme-sdk", version: "1.2.0", requiresPython: ">=3.9" });
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(wheel.byteLength / 2);
  });

  it("refuses what is not a wheel with a named error", async () => {
    const cases: [string, Buffer][] = [
      ["not a zip", Buffer.from("PK? not really a zip archive at all, just bytes".repeat(10))],
      ["no METADATA", zip("none.whl", { "acme/__init__.py": "" })],
      [
        "two METADATA",
        zip("two.whl", { "a-1.dist-info/METADATA": METADATA, "b-1.dist-info/METADATA": METADATA }),
      ],
      ["a bad METADATA", zip("bad.whl", { "a-1.dist-info/METADATA": "just text\n" })],
    ];
    for (const [what, bytes] of cases)
      await expect(readWheelMetadata(source(bytes).src), what).rejects.toBeInstanceOf(PypiMetadataError);
  });

  it("refuses a wheel with more entries than the limit", async () => {
    const many = zip("many.whl", { "a-1.dist-info/METADATA": METADATA }, MAX_WHEEL_ENTRIES);
    await expect(readWheelMetadata(source(many).src)).rejects.toThrow(/more than 100000 entries/);
  }, 60_000);
});
