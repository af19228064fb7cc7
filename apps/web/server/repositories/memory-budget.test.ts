import { describe, expect, it } from "vitest";
import { MemoryBudget } from "./memory-budget.ts";

describe("MemoryBudget", () => {
  it("forgets the least recently used entries once the bytes exceed the budget", () => {
    const budget = new MemoryBudget(100);
    budget.set("a", "A", 40);
    budget.set("b", "B", 40);
    expect(budget.get("a")).toBe("A"); // a is now the most recently used
    budget.set("c", "C", 40);
    expect(budget.get("b")).toBeUndefined();
    expect(budget.get("a")).toBe("A");
    expect(budget.get("c")).toBe("C");
    expect(budget.usedBytes).toBe(80);
  });

  it("replaces an entry's value and weight", () => {
    const budget = new MemoryBudget(100);
    budget.set("a", 1, 30);
    budget.set("a", 2, 70);
    expect(budget.get("a")).toBe(2);
    expect(budget.usedBytes).toBe(70);
    budget.delete("a");
    expect(budget.usedBytes).toBe(0);
  });

  it("keeps nothing larger than the whole budget, and nothing at all with a budget of 0", () => {
    const budget = new MemoryBudget(100);
    budget.set("small", "s", 10);
    budget.set("huge", "h", 101);
    expect(budget.get("huge")).toBeUndefined();
    expect(budget.get("small")).toBe("s");
    const none = new MemoryBudget(0);
    none.set("a", "A", 1);
    expect(none.get("a")).toBeUndefined();
    expect(none.usedBytes).toBe(0);
  });
});
