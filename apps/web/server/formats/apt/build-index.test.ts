// A suite built again after a change: the index the change touched is split from its first
// changed block and made again; an index no change touched is the previous build's, its files
// reused as they were (nothing compressed or hashed), and every file is what a build from
// scratch makes.
import { createHash } from "node:crypto";
import { generateSigningKey, loadSigningKey, type SigningKey } from "@packyard/formats/openpgp/index.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { buildSuite, type IndexDigests } from "./build-index.ts";
import { type IndexedPackage, SuiteIndexes } from "./suite-indexes.ts";
import { systemXzEncoder, type XzBlockCache, type XzEncoder } from "./xz-blocks.ts";

const hasXz = requireTools(["xz"]);

interface Row extends IndexedPackage {
  serial: number;
}

let serial = 0;
function row(name: string, architecture: string): Row {
  serial++;
  return {
    id: `file-${serial}`,
    serial,
    component: "main",
    name,
    version: "1.0",
    architecture,
    stanza: `Package: ${name}\nVersion: 1.0\nArchitecture: ${architecture}\nSHA256: ${createHash("sha256").update(name).digest("hex")}\n`,
  };
}

let key: SigningKey;
beforeAll(async () => {
  key = await loadSigningKey(
    (await generateSigningKey({ name: "Test", email: "t@example.com", algorithm: "ed25519" }))
      .armoredPrivateKey,
  );
});

/** Counts the texts the encoder is given. */
function counting(encoder: XzEncoder) {
  const counter = {
    texts: 0,
    encoder: (texts: readonly Buffer[]) => {
      counter.texts += texts.length;
      return encoder(texts);
    },
  };
  return counter;
}

describe.runIf(hasXz)("buildSuite again after a change", () => {
  it("makes again only the index the change touched, and the same files as a build from scratch", async () => {
    const suiteIndexes = () =>
      new SuiteIndexes<Row>(
        (a, b) => b.serial - a.serial,
        (a, b) => a.serial - b.serial,
      );
    const rows = Array.from({ length: 400 }, (_, i) => row(`pkg-${i}`, i % 2 === 0 ? "amd64" : "arm64"));
    const indexes = suiteIndexes();
    indexes.apply([], rows);
    const xz = counting(systemXzEncoder());
    const kept = {
      gzipCache: new Map(),
      xzCache: new Map<string, XzBlockCache>(),
      digests: new Map<string, IndexDigests>(),
    };
    const options = { origin: "Packyard", label: "t/t", suite: "stable", signers: [key] };
    const first = await buildSuite({ ...options, date: new Date(), indexes, xz: xz.encoder, ...kept });
    // One more amd64 package: arm64's index is untouched.
    const added = row("zzz-new", "amd64");
    indexes.apply([], [added]);
    const before = xz.texts;
    const second = await buildSuite({ ...options, date: new Date(), indexes, xz: xz.encoder, ...kept });
    expect(xz.texts - before).toBe(1);
    for (const file of ["Packages.gz", "Packages.xz"]) {
      expect(second.files.get(`main/binary-arm64/${file}`)).toBe(
        first.files.get(`main/binary-arm64/${file}`),
      );
      expect(second.files.get(`main/binary-amd64/${file}`)).not.toEqual(
        first.files.get(`main/binary-amd64/${file}`),
      );
    }
    // Byte for byte what a build with nothing kept makes of the same packages, and Release alike.
    const fresh = suiteIndexes();
    fresh.load([added, ...rows].reverse());
    const scratch = await buildSuite({ ...options, date: new Date(), indexes: fresh, xz: systemXzEncoder() });
    for (const path of ["amd64", "arm64", "all"].flatMap((a) => [
      `main/binary-${a}/Packages.gz`,
      `main/binary-${a}/Packages.xz`,
    ])) {
      expect(Buffer.from(second.files.get(path)!).equals(Buffer.from(scratch.files.get(path)!)), path).toBe(
        true,
      );
      expect(second.digests.get(path)).toEqual(scratch.digests.get(path));
    }
    expect(second.listed).toEqual(scratch.listed);
    const release = (built: typeof second) =>
      new TextDecoder().decode(built.files.get("Release")).replace(/^Date: .*$/m, "");
    expect(release(second)).toBe(release(scratch));
    // The new package is the last entry of its index: listed in upload order.
    const amd64 = indexes.index("main", "amd64");
    expect(amd64.at(-1)!.name).toBe("zzz-new");
  });
});
