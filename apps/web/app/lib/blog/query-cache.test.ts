import { describe, expect, it, vi } from "vitest";
import { createQueryCache, FRESH_MS } from "./query-cache.ts";

describe("the blog's query cache (spec §9: fresh for 5 minutes, one retry)", () => {
  it("answers from the cache for 5 minutes, then loads again", async () => {
    let now = 1_000;
    const cache = createQueryCache({ now: () => now });
    const load = vi.fn(async () => `loaded at ${now}`);
    expect(FRESH_MS).toBe(300_000);
    expect(await cache.get("/blog/", load)).toBe("loaded at 1000");
    now += FRESH_MS - 1;
    expect(await cache.get("/blog/", load)).toBe("loaded at 1000");
    expect(load).toHaveBeenCalledTimes(1);
    now += 1;
    expect(await cache.get("/blog/", load)).toBe(`loaded at ${now}`);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("keys entries by URL", async () => {
    const cache = createQueryCache();
    expect(await cache.get("/blog/?category=security", async () => "security")).toBe("security");
    expect(await cache.get("/blog/", async () => "all")).toBe("all");
    expect(await cache.get("/blog/?category=security", async () => "again")).toBe("security");
  });

  it("retries a failed load once", async () => {
    const cache = createQueryCache();
    const load = vi.fn().mockRejectedValueOnce(new Error("network down")).mockResolvedValueOnce("second try");
    expect(await cache.get("/blog/a", load)).toBe("second try");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("gives up after the one retry, and caches nothing", async () => {
    const cache = createQueryCache();
    const load = vi.fn().mockRejectedValue(new Error("still down"));
    await expect(cache.get("/blog/a", load)).rejects.toThrow("still down");
    expect(load).toHaveBeenCalledTimes(2);
    expect(await cache.get("/blog/a", async () => "back")).toBe("back");
  });

  it("does not keep what `keep` refuses (a not-found answer)", async () => {
    const cache = createQueryCache();
    const load = vi.fn(async () => ({ status: "not-found" }));
    await cache.get("/blog/missing", load, (v) => v.status !== "not-found");
    await cache.get("/blog/missing", load, (v) => v.status !== "not-found");
    expect(load).toHaveBeenCalledTimes(2);
  });
});
