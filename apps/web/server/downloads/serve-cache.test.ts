import { describe, expect, it } from "vitest";
import { ContentCache, ServeCache } from "./serve-cache.ts";

describe("ServeCache", () => {
  it("keeps what it loaded until a change, then loads again", async () => {
    const cache = new ServeCache();
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get("a", load)).toBe(1);
    expect(await cache.get("a", load)).toBe(1);
    expect(cache.peek("a")).toBe(1);
    cache.invalidate();
    expect(cache.peek("a")).toBeUndefined();
    expect(await cache.get("a", load)).toBe(2);
  });

  it("does not keep a load that a change overlapped: it may have read the old rows", async () => {
    const cache = new ServeCache();
    let release!: () => void;
    const loading = cache.get("a", () => new Promise<string>((r) => (release = () => r("old"))));
    cache.invalidate();
    release();
    expect(await loading).toBe("old");
    expect(cache.peek("a")).toBeUndefined();
  });

  it("does not remember a value made from lookups that a change overlapped", async () => {
    const cache = new ServeCache();
    await cache.get("row", async () => "old row");
    // An answer made from the row across a wait, during which a change dropped the cache.
    const epoch = cache.epoch;
    const row = await cache.get("row", async () => "unused");
    cache.invalidate();
    cache.remember("answer", `made from ${row}`, epoch);
    expect(cache.peek("answer")).toBeUndefined();
    cache.remember("answer", "made from the new row", cache.epoch);
    expect(cache.peek("answer")).toBe("made from the new row");
  });

  it("keeps nothing while disabled, and errors are never kept", async () => {
    const cache = new ServeCache();
    cache.setEnabled(false);
    await cache.get("a", async () => 1);
    expect(cache.peek("a")).toBeUndefined();
    cache.setEnabled(true);
    await expect(cache.get("b", () => Promise.reject(new Error("not found")))).rejects.toThrow("not found");
    expect(cache.peek("b")).toBeUndefined();
  });

  it("asks its validator before every lookup", async () => {
    const cache = new ServeCache();
    await cache.get("a", async () => 1);
    cache.validate = () => cache.invalidate();
    expect(cache.peek("a")).toBeUndefined();
  });
});

describe("ContentCache", () => {
  it("is bounded by bytes, least recently used out first, and lets idle entries go", () => {
    const cache = new ContentCache(10, 8, 1000);
    cache.set("a", Buffer.alloc(4), 0);
    cache.set("b", Buffer.alloc(4), 0);
    expect(cache.get("a", 1500)).toBeDefined(); // a is now the most recent
    cache.set("c", Buffer.alloc(4), 1501); // 12 > 10: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.bytes).toBe(8);
    cache.set("big", Buffer.alloc(9), 1502); // over the entry limit: not kept
    expect(cache.get("big")).toBeUndefined();
    cache.get("c", 2900);
    cache.sweep(3000); // a unused since 1500, c since 2900
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBeDefined();
  });

  it("keeps the order of an entry used again within a second", () => {
    const cache = new ContentCache(10, 8, 60_000);
    cache.set("a", Buffer.alloc(4), 0);
    cache.set("b", Buffer.alloc(4), 0);
    cache.get("a", 999); // used again within a second: a stays the older of the two
    cache.set("c", Buffer.alloc(4), 1000);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeDefined();
  });
});
