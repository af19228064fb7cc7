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
    expect(cache.get("a", 1)).toBeDefined(); // a is now the most recent
    cache.set("c", Buffer.alloc(4), 2); // 12 > 10: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.bytes).toBe(8);
    cache.set("big", Buffer.alloc(9), 3); // over the entry limit: not kept
    expect(cache.get("big")).toBeUndefined();
    cache.get("c", 900);
    cache.sweep(1500); // a unused since 1, c since 900
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBeDefined();
  });
});
