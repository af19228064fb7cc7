// Packages.xz: one xz stream of cached blocks, checked with xz(1) itself; and a suite built
// without xz on the machine.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { generateSigningKey, loadSigningKey } from "@packyard/formats/openpgp/index.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { describe, expect, it } from "vitest";
import { buildSuite, type SuitePackage } from "./build-index.ts";
import {
  assembleXzStream,
  findXzEncoder,
  splitXzStream,
  systemXzEncoder,
  type XzBlockCache,
  type XzEncoder,
  xzBlocks,
} from "./xz-blocks.ts";

const hasXz = requireTools(["xz"]);

/** What xz(1) decompresses from `bytes` (it checks every block's CRC64 and the index). */
function unxz(bytes: Buffer): { text: string } {
  const out = spawnSync("xz", ["-dc"], { input: bytes });
  expect(out.status, out.stderr.toString()).toBe(0);
  return { text: out.stdout.toString("utf8") };
}

/** Counts the texts the encoder is given. */
function counting(encoder: XzEncoder) {
  const counter = {
    texts: 0,
    calls: 0,
    encoder: (texts: readonly Buffer[]) => {
      counter.calls++;
      counter.texts += texts.length;
      return encoder(texts);
    },
  };
  return counter;
}

function stanza(name: string, version = "1.0.0") {
  return {
    component: "main",
    name,
    version,
    architecture: "amd64",
    id: `${name}-${version}`,
    stanza: `Package: ${name}\nVersion: ${version}\nArchitecture: amd64\nDescription: ${name}\nFilename: pool/main/${name[0]}/${name}/${name}_${version}_amd64.deb\nSize: 730\nSHA256: ${createHash("sha256").update(name).digest("hex")}\n`,
  } satisfies SuitePackage;
}

describe.runIf(hasXz)("xz blocks", () => {
  it("makes one stream of one block per text, which xz -dc reads back, and reuses cached blocks", async () => {
    const blocks = Array.from({ length: 40 }, (_, i) => `block ${i}\n`.repeat(50 + i));
    const xz = counting(systemXzEncoder());
    const next: XzBlockCache = new Map();
    const first = await xzBlocks(blocks, { encoder: xz.encoder, next });
    expect(unxz(first).text).toBe(blocks.join(""));
    expect(splitXzStream(first)).toHaveLength(40);
    expect(xz.texts).toBe(40);

    // One block changed: only it is compressed again.
    const changed = [...blocks];
    changed[7] = "a changed block\n";
    const again: XzBlockCache = new Map();
    const second = await xzBlocks(changed, { encoder: xz.encoder, previous: next, next: again });
    expect(xz.texts).toBe(41);
    expect(xz.calls).toBe(2);
    expect(unxz(second).text).toBe(changed.join(""));
    expect(again.size).toBe(40);

    // Nothing changed: no xz process at all.
    await xzBlocks(changed, { encoder: xz.encoder, previous: again });
    expect(xz.calls).toBe(2);
    expect(splitXzStream(second)).toHaveLength(40);
  });

  it("writes an empty document as a valid empty stream", async () => {
    const empty = await xzBlocks([], { encoder: systemXzEncoder() });
    expect(empty.equals(assembleXzStream([]))).toBe(true);
    expect(unxz(empty).text).toBe("");
    expect(unxz(await xzBlocks(["", ""], { encoder: systemXzEncoder() })).text).toBe("");
  });

  it("lists Packages.xz in Release with both hashes, and keeps it in step with Packages", async () => {
    const key = await loadSigningKey(
      (await generateSigningKey({ name: "Test", email: "t@example.com", algorithm: "ed25519" }))
        .armoredPrivateKey,
    );
    const packages = Array.from({ length: 300 }, (_, i) => stanza(`pkg-${String(i).padStart(3, "0")}`));
    const xzCache = new Map<string, XzBlockCache>();
    const gzipCache = new Map();
    const options = { origin: "Packyard", label: "t/t", suite: "stable", date: new Date(), signers: [key] };
    const xz = counting(systemXzEncoder());
    await buildSuite({ ...options, packages, xz: xz.encoder, xzCache, gzipCache });
    const before = xz.texts;
    const built = await buildSuite({
      ...options,
      packages: [stanza("pkg-150a"), ...packages],
      xz: xz.encoder,
      xzCache,
      gzipCache,
    });
    // One new amd64 package: one block of one index is compressed again, nothing else.
    expect(xz.texts - before).toBe(1);
    const file = Buffer.from(built.files.get("main/binary-amd64/Packages.xz")!);
    const plain = built.listed.find((l) => l.path === "main/binary-amd64/Packages")!;
    const text = unxz(file).text;
    expect(createHash("sha256").update(text).digest("hex")).toBe(plain.sha256);
    expect(text).toContain("Package: pkg-150a\n");
    const release = new TextDecoder().decode(built.files.get("Release"));
    const sha256 = createHash("sha256").update(file).digest("hex");
    const sha512 = createHash("sha512").update(file).digest("hex");
    expect(release).toContain(` ${sha256} ${file.length} main/binary-amd64/Packages.xz\n`);
    expect(release).toContain(` ${sha512} ${file.length} main/binary-amd64/Packages.xz\n`);
    expect(built.digests.get("main/binary-amd64/Packages.xz")).toEqual({ sha256, sha512 });
  });
});

describe("without xz on the machine", () => {
  it("publishes the suite without Packages.xz and says why once", async () => {
    const warnings: string[] = [];
    const encoder = findXzEncoder("/nonexistent/xz", (message) => warnings.push(message));
    expect(encoder).toBeNull();
    expect(warnings).toEqual([expect.stringContaining("without Packages.xz")]);
    const key = await loadSigningKey(
      (await generateSigningKey({ name: "Test", email: "t@example.com", algorithm: "ed25519" }))
        .armoredPrivateKey,
    );
    const built = await buildSuite({
      origin: "Packyard",
      label: "t/t",
      suite: "stable",
      date: new Date(),
      signers: [key],
      packages: [stanza("solo")],
      xz: encoder,
    });
    expect([...built.files.keys()].filter((path) => path.endsWith(".xz"))).toEqual([]);
    expect(built.files.has("main/binary-amd64/Packages.gz")).toBe(true);
    expect(new TextDecoder().decode(built.files.get("Release"))).not.toContain("Packages.xz");
  });

  it("publishes without Packages.xz when xz fails, and says why", async () => {
    const warnings: string[] = [];
    const key = await loadSigningKey(
      (await generateSigningKey({ name: "Test", email: "t@example.com", algorithm: "ed25519" }))
        .armoredPrivateKey,
    );
    const built = await buildSuite({
      origin: "Packyard",
      label: "t/t",
      suite: "stable",
      date: new Date(),
      signers: [key],
      packages: [stanza("solo")],
      xz: () => Promise.reject(new Error("xz killed")),
      xzCache: new Map(),
      warn: (message) => warnings.push(message),
    });
    expect(built.files.has("main/binary-amd64/Packages.xz")).toBe(false);
    expect(built.files.has("main/binary-amd64/Packages.gz")).toBe(true);
    expect(warnings).toEqual([
      expect.stringContaining("main/binary-amd64/Packages.xz left out: Error: xz killed"),
    ]);
  });
});
