import { describe, expect, it } from "vitest";
import { FairLimiter, type Release } from "./fair-limiter.ts";

describe("FairLimiter", () => {
  it("never gives one key more than its share, nor all keys more than the total", async () => {
    const limiter = new FairLimiter(3, 2);
    const a1 = await limiter.acquire("a");
    const a2 = await limiter.acquire("a");
    let a3: Release | undefined;
    void limiter.acquire("a").then((r) => {
      a3 = r;
    });
    // "a" is at its share: "b" still gets the last slot at once.
    const b1 = await limiter.acquire("b");
    expect(limiter.inUse).toBe(3);
    let c1: Release | undefined;
    void limiter.acquire("c").then((r) => {
      c1 = r;
    });
    await Promise.resolve();
    expect(a3).toBeUndefined();
    expect(c1).toBeUndefined();
    // A slot of "a" freed: "a" waited first and is under its share again.
    a1();
    a1();
    await Promise.resolve();
    expect(a3).toBeDefined();
    expect(c1).toBeUndefined();
    b1();
    await Promise.resolve();
    expect(c1).toBeDefined();
    a2();
    a3!();
    c1!();
    expect(limiter.inUse).toBe(0);
  });

  it("hands freed slots to waiting keys in turn, however many one key queued", async () => {
    const limiter = new FairLimiter(1, 1);
    const first = await limiter.acquire("busy");
    const order: string[] = [];
    const waiters = [
      ...Array.from({ length: 5 }, () => "busy"),
      "other",
      ...Array.from({ length: 5 }, () => "busy"),
    ].map((key) =>
      limiter.acquire(key).then((release) => {
        order.push(key);
        release();
      }),
    );
    first();
    await Promise.all(waiters);
    expect(order.indexOf("other")).toBe(1);
    expect(order).toHaveLength(11);
  });
});
