import { describe, expect, it } from "vitest";
import { nextProgress, PROGRESS_CAP, PROGRESS_START, PROGRESS_TICK_MS } from "./progress-bar.tsx";

describe("navigation progress (spec §2)", () => {
  it("starts at 10 and ticks every 300 ms", () => {
    expect(PROGRESS_START).toBe(10);
    expect(PROGRESS_TICK_MS).toBe(300);
  });

  it("adds 10 below 20, 4 below 50, 2 otherwise, and stops at 90", () => {
    const values = [PROGRESS_START];
    while (values.at(-1)! < PROGRESS_CAP) values.push(nextProgress(values.at(-1)!));
    expect(values).toEqual([
      10, 20, 24, 28, 32, 36, 40, 44, 48, 52, 54, 56, 58, 60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84,
      86, 88, 90,
    ]);
    expect(nextProgress(90)).toBe(90);
    expect(nextProgress(89)).toBe(90);
  });
});
