// A suite built again after a change: the index the change touched is split from its first
// changed block and made again; an index no change touched is the previous build's, its files
// reused as they were (nothing compressed or hashed), and every file is what a build from
// scratch makes.
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { generateSigningKey, loadSigningKey, type SigningKey } from "@packyard/formats/openpgp/index.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { DigestThread } from "../../repositories/digest-thread.ts";
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

describe.runIf(hasXz)("buildSuite and the digest thread", () => {
  it("hashes here while the thread boots, in the thread once it is up, and lists the same digests", async () => {
    const thread = new DigestThread();
    try {
      const indexes = new SuiteIndexes<Row>(
        (a, b) => b.serial - a.serial,
        (a, b) => a.serial - b.serial,
      );
      indexes.apply(
        [],
        Array.from({ length: 200 }, (_, i) => row(`thr-${i}`, "amd64")),
      );
      const kept = {
        gzipCache: new Map(),
        xzCache: new Map<string, XzBlockCache>(),
        digests: new Map<string, IndexDigests>(),
      };
      const options = { origin: "Packyard", label: "t/t", suite: "stable", signers: [key], thread };
      // Nothing started the thread: the first build does not wait for it to boot, it starts it.
      expect(thread.running).toBe(false);
      const first = await buildSuite({
        ...options,
        date: new Date(),
        indexes,
        xz: systemXzEncoder(),
        ...kept,
      });
      expect(kept.digests.get("main/binary-amd64/Packages")!.remote).toBeUndefined();
      await vi.waitFor(() => expect(thread.running).toBe(true), { timeout: 15_000 });
      indexes.apply([], [row("thr-new", "amd64")]);
      const second = await buildSuite({
        ...options,
        date: new Date(),
        indexes,
        xz: systemXzEncoder(),
        ...kept,
      });
      expect(kept.digests.get("main/binary-amd64/Packages")!.remote).toBeDefined();
      // The digests Release lists are those of the bytes, whichever thread computed them.
      const plain = (built: typeof first) =>
        built.listed.find((entry) => entry.path === "main/binary-amd64/Packages")!;
      for (const built of [first, second]) {
        const gz = built.files.get("main/binary-amd64/Packages.gz")!;
        const text = gunzipSync(gz);
        expect(plain(built).sha256).toBe(createHash("sha256").update(text).digest("hex"));
        expect(plain(built).sha512).toBe(createHash("sha512").update(text).digest("hex"));
      }
      expect(plain(second).sha512).not.toBe(plain(first).sha512);
    } finally {
      await thread.close();
    }
    expect(thread.running).toBe(false);
  });
});
