import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  blockKeyDigest,
  type GzipMemberCache,
  gzipBlocks,
  gzipMembers,
  type KeyedBlock,
  splitGzipMembers,
  splitIntoBlocks,
  tagMember,
} from "./gzip-members.ts";

const names = Array.from({ length: 400 }, (_, i) => `pkg-${String(i).padStart(4, "0")}`);
const text = (name: string) => `Package: ${name}\nVersion: 1.0 ✓\n\n`;
const blocksOf = (list: string[]) =>
  splitIntoBlocks(list, { name: (n) => n, id: (n) => n }).map(
    (block): KeyedBlock => ({ key: block.key, text: () => block.items.map(text).join("") }),
  );

describe("gzipBlocks", () => {
  it("writes one member per block that gzip, zlib and gunzip read back as the joined text", () => {
    const blocks = blocksOf(names);
    expect(blocks.length).toBeGreaterThan(5);
    const whole = names.map(text).join("");
    const document = gzipBlocks(blocks, { sha512: true });
    expect(gunzipSync(document.gzip).toString("utf8")).toBe(whole);
    const bytes = Buffer.from(whole, "utf8");
    expect(document.size).toBe(bytes.length);
    expect(document.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(document.sha512).toBe(createHash("sha512").update(bytes).digest("hex"));
    // Every member starts with the gzip magic; gzip(1) itself agrees on the content.
    const dir = mkdtempSync(join(tmpdir(), "packyard-gzip-"));
    try {
      writeFileSync(join(dir, "index.gz"), document.gzip);
      const gzip = spawnSync("gzip", ["-dc", join(dir, "index.gz")], { encoding: "utf8" });
      expect(gzip.status).toBe(0);
      expect(gzip.stdout).toBe(whole);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reuses cached members and renders only blocks it has not seen", () => {
    const first: GzipMemberCache = new Map();
    gzipBlocks(blocksOf(names), { next: first });
    const rendered: string[] = [];
    const blocks = blocksOf([...names, "pkg-0100a"].sort()).map((block) => ({
      key: block.key,
      text: () => {
        rendered.push(block.key);
        return block.text();
      },
    }));
    const second: GzipMemberCache = new Map();
    const document = gzipBlocks(blocks, { previous: first, next: second });
    expect(rendered).toHaveLength(1);
    expect(rendered[0]).toContain("pkg-0100a");
    expect(gunzipSync(document.gzip).toString("utf8")).toBe(
      [...names, "pkg-0100a"].sort().map(text).join(""),
    );
    // The next cache holds this document's blocks only; the changed block's old member is gone.
    expect(second.size).toBe(blocks.length);
    for (const [key, member] of second) if (first.has(key)) expect(member).toBe(first.get(key));
  });

  it("treats a plain string as a block keyed by itself, and writes a valid empty file for no text", () => {
    const document = gzipBlocks(["<head>", "", "<tail>"]);
    expect(gunzipSync(document.gzip).toString()).toBe("<head><tail>");
    const empty = gzipBlocks([]);
    expect(gunzipSync(empty.gzip)).toHaveLength(0);
    expect(empty.size).toBe(0);
    expect(empty.sha256).toBe(createHash("sha256").update("").digest("hex"));
  });
});

describe("splitIntoBlocks", () => {
  it("draws boundaries by name, so adding or removing an item changes only its block", () => {
    const before = splitIntoBlocks(names, { name: (n) => n, id: (n) => n });
    const after = splitIntoBlocks(
      names.filter((n) => n !== "pkg-0300"),
      { name: (n) => n, id: (n) => n },
    );
    const keys = new Set(before.map((b) => b.key));
    expect(after.filter((b) => !keys.has(b.key))).toHaveLength(1);
    expect(before.flatMap((b) => b.items)).toEqual(names);
  });

  it("keeps the blocks of the previous split whose items are the same, and splits as without them", () => {
    const items = names.map((name) => ({ name }));
    const accessors = { name: (i: { name: string }) => i.name, id: (i: { name: string }) => i.name };
    const first = new Map();
    const before = splitIntoBlocks(items, accessors, 32, { next: first });
    const changed = [{ name: "aaa" }, ...items.filter((i) => i.name !== "pkg-0300")];
    const reused = splitIntoBlocks(changed, accessors, 32, { previous: first, next: new Map() });
    expect(reused).toEqual(splitIntoBlocks(changed, accessors, 32));
    // All but the first block (one more item) and the one that lost pkg-0300 are the same objects.
    expect(reused.filter((b) => before.includes(b))).toHaveLength(before.length - 2);
  });

  it("caps a block at four times the block size when no name starts one", () => {
    const blocks = splitIntoBlocks(names, { name: () => "same", id: (n) => n }, 8);
    expect(Math.max(...blocks.map((b) => b.items.length))).toBeLessThanOrEqual(32);
  });
});

describe("splitGzipMembers", () => {
  it("gives back gzipBlocks' members and the bytes each holds", () => {
    const blocks = ["Package: a\n", "\nPackage: b\n", "\nPackage: c\n".repeat(500)];
    const { gzip } = gzipBlocks(blocks);
    const members = splitGzipMembers(gzip);
    expect(members.map((m) => m.open.toString("utf8"))).toEqual(blocks);
    expect(Buffer.concat(members.map((m) => m.member))).toEqual(gzip);
    expect(() => splitGzipMembers(gzip.subarray(0, gzip.length - 3))).toThrow(/truncated/);
  });

  it("finds tagged members by their length and key without inflating them; gzip(1) reads the file as before", () => {
    const blocks = blocksOf(names);
    const whole = names.map(text).join("");
    const { gzip } = gzipMembers(blocks, { tagged: true });
    expect(gunzipSync(gzip).toString("utf8")).toBe(whole);
    const dir = mkdtempSync(join(tmpdir(), "packyard-gzip-"));
    try {
      writeFileSync(join(dir, "index.gz"), gzip);
      const read = spawnSync("gzip", ["-dc", join(dir, "index.gz")], { encoding: "utf8" });
      expect(read.status).toBe(0);
      expect(read.stdout).toBe(whole);
      expect(spawnSync("gzip", ["-t", join(dir, "index.gz")]).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const members = splitGzipMembers(gzip);
    expect(members.map((m) => m.keyDigest)).toEqual(blocks.map((b) => blockKeyDigest(b.key)));
    expect(members.map((m) => m.size)).toEqual(blocks.map((b) => Buffer.byteLength(b.text())));
    // Inflated only when asked for.
    expect(members.map((m) => m.open.toString("utf8"))).toEqual(blocks.map((b) => b.text()));
    expect(Buffer.concat(members.map((m) => m.member))).toEqual(gzip);
    expect(() => splitGzipMembers(gzip.subarray(0, gzip.length - 3))).toThrow(/truncated/);
  });

  it("tags a member of an older file without compressing it again", () => {
    const blocks = blocksOf(names.slice(0, 100));
    const older = splitGzipMembers(gzipMembers(blocks).gzip);
    expect(older.every((m) => m.keyDigest === undefined)).toBe(true);
    const retagged = older.map((m, i) => tagMember(m, blocks[i]!.key).member);
    expect(Buffer.concat(retagged)).toEqual(gzipMembers(blocks, { tagged: true }).gzip);
  });
});
