import { describe, expect, it } from "vitest";
import { quietMoment } from "./quiet-moment.ts";

const readings = (values: number[]) => {
  const next = [...values];
  let reads = 0;
  return {
    utilization: () => {
      reads++;
      return next.shift() ?? 1;
    },
    reads: () => reads,
  };
};

describe("quietMoment", () => {
  it("waits through busy windows and resolves at the first quiet one", async () => {
    const loop = readings([0.9, 0.6, 0.05, 0]);
    expect(await quietMoment({ windowMs: 5, maxWaitMs: 1000, utilization: loop.utilization })).toBe(true);
    expect(loop.reads()).toBe(3);
  });

  it("gives up waiting after the longest wait when the server stays busy", async () => {
    const loop = readings([]);
    expect(await quietMoment({ windowMs: 5, maxWaitMs: 20, utilization: loop.utilization })).toBe(false);
    expect(loop.reads()).toBe(4);
  });

  it("ends at once when aborted, without reading the loop again", async () => {
    const loop = readings([]);
    const stopping = new AbortController();
    const waiting = quietMoment({
      windowMs: 60_000,
      maxWaitMs: 600_000,
      utilization: loop.utilization,
      signal: stopping.signal,
    });
    const started = performance.now();
    stopping.abort();
    expect(await waiting).toBe(false);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(loop.reads()).toBe(0);
    expect(await quietMoment({ utilization: loop.utilization, signal: stopping.signal })).toBe(false);
  });

  it("reads this process's event loop by default: an idle test process is quiet", async () => {
    expect(await quietMoment({ windowMs: 50, maxWaitMs: 1000 })).toBe(true);
  });
});
