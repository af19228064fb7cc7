// The spares kept between publishes: within their byte budget, oldest out first, one per file.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { createLocalBlobStore } from "../platform/storage/blob-store.ts";
import { IndexSpares } from "./index-spares.ts";

afterAll(removeTempDirs);

describe("index spares", () => {
  it("keeps one spare per file within the budget, dropping the oldest, and removes them on close", async () => {
    const dir = makeTempDir("packyard-spares-");
    const file = (n: number) => ({ key: `file${n}`, bytes: new Uint8Array(1000).fill(n) });
    const spares = IndexSpares.for(createLocalBlobStore(dir), 2_500)!;
    spares.prepare([file(1), file(2)], 0, 100);
    await spares.settled();
    const first = spares.take("file1")!;
    expect(first.bytes[0]).toBe(1);
    spares.giveBack("file1", first);
    // A third spare: over 2,500 bytes, so the oldest kept (file2's) goes, its file with it.
    spares.prepare([file(3)], 0, 100);
    await spares.settled();
    expect(spares.take("file2")).toBeUndefined();
    expect(readdirSync(join(dir, "tmp"))).toHaveLength(2);
    // The same file again replaces its spare; a small one gets none.
    spares.prepare([file(3), { key: "small", bytes: new Uint8Array(10) }], 0, 100);
    await spares.settled();
    expect(readdirSync(join(dir, "tmp"))).toHaveLength(2);
    expect(spares.take("small")).toBeUndefined();
    const kept = spares.take("file3")!;
    spares.giveBack("file3", kept);
    await spares.close();
    expect(existsSync(kept.path)).toBe(false);
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
  });

  it("closes at once while a spare waits for its delay, and writes it no more", async () => {
    // The delay's timer does not hold the process open: a close that waited for it was left
    // unsettled when the rest of the server had already stopped, and the shutdown after it
    // (API keys' last use, the database) never ran.
    const dir = makeTempDir("packyard-spares-");
    const spares = IndexSpares.for(createLocalBlobStore(dir))!;
    spares.prepare([{ key: "late", bytes: new Uint8Array(1000) }], 60_000, 100);
    const closed = await Promise.race([
      spares.close().then(() => "closed"),
      new Promise((resolve) => setTimeout(resolve, 2_000, "still waiting")),
    ]);
    expect(closed).toBe("closed");
    spares.prepare([{ key: "after", bytes: new Uint8Array(1000) }], 0, 100);
    await spares.settled();
    expect(spares.take("late")).toBeUndefined();
    expect(spares.take("after")).toBeUndefined();
    expect(existsSync(join(dir, "tmp")) ? readdirSync(join(dir, "tmp")) : []).toEqual([]);
  });

  it("is not made for a store that keeps no spares", () => {
    const store = createLocalBlobStore(makeTempDir("packyard-spares-"));
    expect(IndexSpares.for({ ...store, prepareSpare: undefined })).toBeUndefined();
  });
});
