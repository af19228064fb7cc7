// Packages.xz: one xz stream of cached blocks, checked with xz(1) itself; and a suite built
// without xz on the machine.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { ResumableDigests } from "@packyard/formats/compress/resumable-digests.ts";
import { isStoredXzBlock, storedXzBlock } from "@packyard/formats/compress/xz-stored.ts";
import { generateSigningKey, loadSigningKey } from "@packyard/formats/openpgp/index.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { describe, expect, it } from "vitest";
import { buildSuite, type SuitePackage } from "./build-index.ts";
import {
  assembleXzStream,
  compressStoredLater,
  findXzEncoder,
  STORED_UP_TO,
  splitXzStream,
  systemXzEncoder,
  type XzBlockCache,
  type XzEncoder,
  xzBlocks,
  xzDocument,
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

describe.runIf(hasXz)("xz blocks stored by a publish and compressed after it (decision 049)", () => {
  const base = "main/binary-amd64/Packages";
  const texts = Array.from({ length: 10 }, (_, i) => `Package: p${i}\nVersion: 1.${i}\n\n`.repeat(40));
  const sha = (bytes: Buffer) => [
    createHash("sha256").update(bytes).digest("hex"),
    createHash("sha512").update(bytes).digest("hex"),
  ];
  const storedCount = (xz: Buffer) => splitXzStream(xz).filter((b) => isStoredXzBlock(b.block)).length;

  it("decodes stored blocks beside compressed ones, over several LZMA2 chunks", async () => {
    const long = Buffer.from("Package: a\nVersion: 1\n\n".repeat(4000)); // 92,000 bytes: two chunks
    const [made] = splitXzStream(await systemXzEncoder()([long]));
    const xz = assembleXzStream([made!, storedXzBlock(long), storedXzBlock(Buffer.from("tail\n"))]);
    expect(unxz(xz).text).toBe(`${long}${long}tail\n`);
  });

  it("stores small changes, compresses them after, and stores only what extends the last one", async () => {
    const xz = counting(systemXzEncoder());
    const digests = new ResumableDigests(["sha256", "sha512"]);
    const caches = new Map<string, XzBlockCache>();
    const warnings: string[] = [];
    const document = (blocks: string[], storeUpTo = STORED_UP_TO) => {
      const previous = caches.get(base);
      const next: XzBlockCache = new Map();
      caches.set(base, next);
      return xzDocument(blocks, { encoder: xz.encoder, previous, next, digests, storeUpTo });
    };
    const later = (stored: Awaited<ReturnType<typeof document>>["stored"]) =>
      compressStoredLater(caches, base, stored, xz.encoder, (m) => warnings.push(m));

    // A new index of 8 KB: stored whole, no xz during the build; compressed after it.
    const first = await document(texts);
    expect(xz.calls).toBe(0);
    expect(unxz(first.xz).text).toBe(texts.join(""));
    expect(storedCount(first.xz)).toBe(10);
    expect([first.sha256, first.sha512]).toEqual(sha(first.xz));
    await later(first.stored);
    expect(xz.texts).toBe(10);

    // The last block grows: the block compressed for it, then the rest stored.
    const grown = [...texts.slice(0, 9), `${texts[9]}Package: new\n\n`];
    const second = await document(grown);
    expect(xz.calls).toBe(1);
    expect(unxz(second.xz).text).toBe(grown.join(""));
    const blocks = splitXzStream(second.xz);
    expect(blocks).toHaveLength(11);
    expect(blocks.map((b) => isStoredXzBlock(b.block))).toEqual([...Array(10).fill(false), true]);
    expect(blocks[10]!.uncompressed).toBe("Package: new\n\n".length);
    expect([second.sha256, second.sha512]).toEqual(sha(second.xz));
    await later(second.stored);
    expect(xz.texts).toBe(11);

    // Nothing changed since: every block compressed, what compressing from scratch makes.
    const third = await document(grown);
    expect(third.stored).toEqual([]);
    expect(third.xz.equals(await xzBlocks(grown, { encoder: systemXzEncoder() }))).toBe(true);
    expect([third.sha256, third.sha512]).toEqual(sha(third.xz));

    // More changed text than STORED_UP_TO: compressed during the build, as before.
    const big = [...grown, "x".repeat(STORED_UP_TO + 1)];
    const fourth = await document(big);
    expect(fourth.stored).toEqual([]);
    expect(storedCount(fourth.xz)).toBe(0);
    expect(xz.calls).toBe(3);
    expect([fourth.sha256, fourth.sha512]).toEqual(sha(fourth.xz));
    expect(warnings).toEqual([]);
  });

  it("keeps blocks stored when compressing them fails, and asks again with the next build", async () => {
    const caches = new Map<string, XzBlockCache>();
    const failing: XzEncoder = () => Promise.reject(new Error("xz exited with 1: out of memory"));
    const warnings: string[] = [];
    const next: XzBlockCache = new Map();
    caches.set(base, next);
    const first = await xzDocument(texts, { encoder: failing, next, storeUpTo: STORED_UP_TO });
    await compressStoredLater(caches, base, first.stored, failing, (m) => warnings.push(m));
    expect(warnings).toEqual([
      `${base}.xz: its changed blocks stay uncompressed until the next publish (Error: xz exited with 1: out of memory)`,
    ]);
    expect([...next.values()].every((piece) => piece.stored)).toBe(true);
    // The next build uses them as they are and hands them over again.
    const again: XzBlockCache = new Map();
    caches.set(base, again);
    const second = await xzDocument(texts, {
      encoder: failing,
      previous: next,
      next: again,
      storeUpTo: STORED_UP_TO,
    });
    expect(second.xz.equals(first.xz)).toBe(true);
    expect(second.stored.map((s) => s.text.toString())).toEqual(texts);
    await compressStoredLater(caches, base, second.stored, systemXzEncoder(), (m) => warnings.push(m));
    expect([...again.values()].some((piece) => piece.stored)).toBe(false);
    // A build that does not store compresses stored blocks it meets during the build.
    const compressing = counting(systemXzEncoder());
    const third = await xzDocument(texts, { encoder: compressing.encoder, previous: next });
    expect(compressing.texts).toBe(10);
    expect(storedCount(third.xz)).toBe(0);
  });

  it("keeps as the tail the last block stored, whatever else was stored with it", async () => {
    const caches = new Map<string, XzBlockCache>();
    const document = (blocks: string[], encoder: XzEncoder) => {
      const previous = caches.get(base);
      const next: XzBlockCache = new Map();
      caches.set(base, next);
      return xzDocument(blocks, { encoder, previous, next, storeUpTo: STORED_UP_TO });
    };
    // Stored, and not compressed after (xz failed): every block is still stored.
    const failing: XzEncoder = () => Promise.reject(new Error("xz exited with 1"));
    const first = await document(texts, failing);
    await compressStoredLater(caches, base, first.stored, failing, () => {});
    // The last block grows: it and the nine stored before it go to be compressed, in order.
    const grown = [...texts.slice(0, 9), `${texts[9]}Package: new\n\n`];
    const second = await document(grown, failing);
    expect(second.stored.map((s) => s.text.toString())).toEqual(grown);
    await compressStoredLater(caches, base, second.stored, systemXzEncoder(), () => {});
    // Grown again: stored as the compressed last block plus what was added.
    const again = [...grown.slice(0, 9), `${grown[9]}Package: newer\n\n`];
    const third = await document(again, failing);
    const blocks = splitXzStream(third.xz);
    expect(blocks).toHaveLength(11);
    expect(blocks.map((b) => isStoredXzBlock(b.block))).toEqual([...Array(10).fill(false), true]);
    expect(unxz(third.xz).text).toBe(again.join(""));
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
