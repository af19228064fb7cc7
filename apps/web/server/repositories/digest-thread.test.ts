import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedBytes } from "@packyard/formats/compress/gzip-members.ts";
import { type KeyedChunk, ResumableDigests } from "@packyard/formats/compress/resumable-digests.ts";
import { afterAll, describe, expect, it, vi } from "vitest";
import { DigestThread } from "./digest-thread.ts";

const thread = new DigestThread();
afterAll(() => thread.close());

const chunks = (names: readonly string[]): KeyedChunk[] =>
  names.map((key) => ({ key, bytes: sharedBytes(`${key}\n`.repeat(80_000)) }));
const sha = (algorithm: string, list: readonly KeyedChunk[]) => {
  const hash = createHash(algorithm);
  for (const chunk of list) hash.update(chunk.bytes);
  return hash.digest("hex");
};

describe("DigestThread", () => {
  it("computes SHA512 in the other thread while SHA256 is computed here, resuming both alike", async () => {
    // Both sides checkpoint every 256 KiB (the default): every second chunk here.
    const here = new ResumableDigests(["sha256"]);
    const there = thread.hasher(["sha512"]);
    const documents = [
      ["a", "b", "c", "d", "e"],
      ["a", "b", "c", "d", "e", "f"],
      ["a", "b", "x", "d", "e", "f"],
      ["first", "a", "b", "x", "d", "e", "f"],
    ].map(chunks);
    for (const document of documents) {
      let ran = 0;
      const digests = await here.digestWith(there, document, { meanwhile: () => ran++ });
      expect(digests).toEqual([sha("sha256", document), sha("sha512", document)]);
      expect(ran).toBe(1);
    }
    expect(thread.available).toBe(true);
  });

  it("hashes chunks that are not on SharedArrayBuffers too (joined and moved to the thread)", async () => {
    const here = new ResumableDigests(["sha256"]);
    const there = thread.hasher(["sha512"]);
    const document: KeyedChunk[] = [
      ...chunks(["shared"]),
      { key: "plain", bytes: Buffer.from("plain\n".repeat(50_000)) },
    ];
    expect(await here.digestWith(there, document)).toEqual([
      sha("sha256", document),
      sha("sha512", document),
    ]);
  });

  it("fails a digest whose midstates the thread does not have, so the caller hashes afresh", async () => {
    const there = thread.hasher(["sha512"]);
    await expect(there.hash(3, [sharedBytes("x")])).rejects.toThrow(/no midstate/);
  });

  it("is running only once started and up, and no longer once closed", async () => {
    const fresh = new DigestThread();
    expect(fresh.running).toBe(false);
    fresh.warm();
    await vi.waitFor(() => expect(fresh.running).toBe(true), { timeout: 15_000 });
    await fresh.close();
    expect(fresh.running).toBe(false);
  });

  it("keeps a process running while a digest is awaited, and lets it end once idle", () => {
    const script = `
      import { DigestThread } from ${JSON.stringify(new URL("./digest-thread.ts", import.meta.url).href)};
      const hasher = new DigestThread().hasher(["sha512"]);
      const [hex] = await hasher.hash(0, [Buffer.from("abc")]);
      console.log(hex.slice(0, 16));
    `;
    const dir = mkdtempSync(join(tmpdir(), "packyard-digest-thread-"));
    const file = join(dir, "publishes.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(createHash("sha512").update("abc").digest("hex").slice(0, 16));
  });

  it("warms the thread without keeping an otherwise idle process running", () => {
    const script = `
      import { DigestThread } from ${JSON.stringify(new URL("./digest-thread.ts", import.meta.url).href)};
      const thread = new DigestThread();
      thread.warm();
      thread.warm();
      setTimeout(async () => {
        const [hex] = await thread.hasher(["sha256"]).hash(0, [Buffer.from("abc")]);
        console.log(hex.slice(0, 16));
        // Idle again: nothing below keeps the process, the warmed worker least of all.
      }, 100);
    `;
    const dir = mkdtempSync(join(tmpdir(), "packyard-digest-thread-"));
    const file = join(dir, "warms.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(createHash("sha256").update("abc").digest("hex").slice(0, 16));
  });
});
