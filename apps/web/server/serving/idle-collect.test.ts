import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { fullCollection, IDLE_SWEEPS, IdleCollector } from "./idle-collect.ts";

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
  it("collects once when a busy server has stayed idle for IDLE_SWEEPS sweeps, never while it is busy", () => {
    const idleRun = Array(IDLE_SWEEPS).fill(0.002);
    const { idle, collections } = collector([0.9, 0.4, ...idleRun, 0.002, 0.002]);
    expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(false);
    for (let i = 1; i < IDLE_SWEEPS; i++) expect(idle.tick(0)).toBe(false);
    expect(collections()).toBe(0);
    expect(idle.tick(0)).toBe(true);
    // Still idle, nothing let go: nothing more to give back.
    expect(idle.tick(0)).toBe(false);
    expect(collections()).toBe(1);
    // The caches let go of bytes while idle: collected again.
    expect(idle.tick(1024 * 1024)).toBe(true);
    expect(collections()).toBe(2);
  });

  it("does not collect in a pause between bursts shorter than IDLE_SWEEPS sweeps", () => {
    const pause = Array(IDLE_SWEEPS - 1).fill(0.002);
    const { idle, collections } = collector([0.9, ...pause, 0.8, ...pause, 0.03, ...pause, 0.7]);
    for (let i = 0; i < 3 + 3 * pause.length; i++) expect(idle.tick(4096)).toBe(false);
    expect(collections()).toBe(0);
  });

  it("leaves an idle server that never got busy alone, and waits while the loop is between idle and busy", () => {
    const idleRun = Array(IDLE_SWEEPS).fill(0.005);
    const { idle, collections } = collector([0.001, 0.001, 0.001, 0.001, 0.5, 0.03, 0.03, ...idleRun]);
    for (let i = 0; i < 4; i++) expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(false); // busy
    expect(idle.tick(4096)).toBe(false); // not idle yet
    expect(idle.tick(0)).toBe(false);
    for (let i = 1; i < IDLE_SWEEPS; i++) expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(true);
    expect(collections()).toBe(1);
  });

  it("remembers bytes let go of early in an idle run, and collects for them when the run is long enough", () => {
    const { idle, collections } = collector(Array(IDLE_SWEEPS + 1).fill(0.001));
    expect(idle.tick(8192)).toBe(false);
    for (let i = 2; i < IDLE_SWEEPS; i++) expect(idle.tick(0)).toBe(false);
    expect(idle.tick(0)).toBe(true);
    expect(idle.tick(0)).toBe(false);
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

  it("holds one of Node's tick objects, so a forced collection leaves tick objects on the shape it had (decision 053)", () => {
    // In a process of its own, as the server is: the module loaded, ticks run, the forced
    // collection, then a new tick. V8's %HaveSameMap tells whether the new tick object was built
    // on the held one's hidden class, i.e. whether the chain of maps survived the collection
    // (without the held object it does not, and the literal's feedback turns megamorphic).
    const dir = mkdtempSync(join(tmpdir(), "packyard-held-tick-"));
    try {
      const script = join(dir, "held-tick.ts");
      writeFileSync(
        script,
        `import { executionAsyncResource } from "node:async_hooks";
import { fullCollection, heldTickObject } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "idle-collect.ts")).href)};
const tick = () => new Promise<object>((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
for (let i = 0; i < 1000; i++) await tick();
fullCollection()!();
const fresh = await tick();
const held = heldTickObject();
const keys = held ? Object.getOwnPropertySymbols(held).map((s) => s.description) : [];
process.stdout.write(JSON.stringify({ keys, sameMap: held ? eval("%HaveSameMap(held, fresh)") : false }));
`,
      );
      const out = execFileSync(process.execPath, ["--allow-natives-syntax", script], { encoding: "utf8" });
      const { keys, sameMap } = JSON.parse(out) as { keys: string[]; sameMap: boolean };
      expect(keys).toEqual(expect.arrayContaining(["async_id_symbol", "trigger_async_id_symbol"]));
      expect(sameMap).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
