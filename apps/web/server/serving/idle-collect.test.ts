import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { fullCollection, IdleCollector } from "./idle-collect.ts";

function collector(utilizations: number[]) {
  let collections = 0;
  const next = [...utilizations];
  const idle = new IdleCollector(
    () => next.shift() ?? 0,
    () => collections++,
  );
  return { idle, collections: () => collections };
}

describe("IdleCollector", () => {
  it("collects once when a busy server turns idle, never while it is busy", () => {
    const { idle, collections } = collector([0.9, 0.4, 0.003, 0.002, 0.002]);
    expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(false);
    expect(collections()).toBe(0);
    expect(idle.tick(0)).toBe(true);
    // Still idle, nothing let go: nothing more to give back.
    expect(idle.tick(0)).toBe(false);
    expect(collections()).toBe(1);
    // The caches let go of bytes while idle: collected again.
    expect(idle.tick(1024 * 1024)).toBe(true);
    expect(collections()).toBe(2);
  });

  it("leaves an idle server that never got busy alone, and waits while the loop is between idle and busy", () => {
    const { idle, collections } = collector([0.001, 0.001, 0.5, 0.03, 0.03, 0.005]);
    expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(false); // busy
    expect(idle.tick(4096)).toBe(false); // not idle yet
    expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(true);
    expect(collections()).toBe(1);
  });

  it("reaches V8's full collection in this runtime, and it gives back the young generation", () => {
    const gc = fullCollection();
    expect(gc).toBeTypeOf("function");
    const youngBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_size;
    // Short-lived garbage, as a load makes: the young generation grows to hold it.
    let kept: { n: number; s: string }[] = [];
    for (let i = 0; i < 2_000_000; i++) {
      kept.push({ n: i, s: `item ${i}` });
      if (kept.length > 100_000) kept = [];
    }
    const grown = youngBytes();
    expect(grown).toBeGreaterThan(8 * 1024 * 1024);
    gc?.();
    expect(youngBytes()).toBeLessThan(grown / 4);
  });
});
