// Memory back soon after a load (issue 16, target 4; decision 043). Under a download load the
// JavaScript heap grows, and the serving caches hold files and index bytes; once the load ends,
// V8 collects that garbage only when something allocates again, so an idle server kept what the
// load took. The caches' sweep (every 10 s, db/database.ts) asks this collector: when the event
// loop has stayed idle for IDLE_SWEEPS sweeps in a row after being busy, or the sweep let go of
// cached bytes at such a time, one full garbage collection runs — at most one per sweep, never
// while the server is busy, and not in a pause of a few seconds between bursts (decision 051: a
// full collection cost the next load about a tenth of its rate, until decision 053 found why).
import { executionAsyncResource } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Event-loop utilization over a sweep interval at and above which the server was busy. */
export const BUSY_UTILIZATION = 0.05;
/** … and at and below which it is idle. */
export const IDLE_UTILIZATION = 0.01;
/** Sweeps in a row the loop must stay idle before a collection: 30 s at the 10 s sweep. */
export const IDLE_SWEEPS = 3;

let exposed: (() => void) | null | undefined;

/**
 * One of Node's own `process.nextTick` objects, held for the life of the process (decision 053).
 * A tick object is a literal with computed keys, built through a chain of hidden classes ("maps")
 * that V8 holds only weakly, and the feedback of the literal's `DefineKeyedOwnPropertyInLiteral`
 * records the map it saw. A forced collection while no tick object is alive frees those maps;
 * the next tick then finds the recorded map gone, the feedback turns megamorphic, and from then
 * on every tick object — three per answer — is built in V8's runtime instead of optimized code
 * (46 → 326 ns per tick, bench/serve/next-tick.ts). Holding one tick object holds its map and,
 * through the maps' back pointers, the whole chain. Taken inside a tick, where the tick is the
 * executing resource: no async hook is installed (one would switch on V8's promise hooks).
 */
let heldTick: object | undefined;
process.nextTick(() => {
  heldTick ??= executionAsyncResource();
});

/** The tick object held by this module (for its test). */
export const heldTickObject = (): object | undefined => heldTick;

/** What V8's gc extension takes (its `gc(options)`). */
type GcFunction = (options?: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/**
 * V8's full garbage collection, in its "last resort" flavour: the whole heap collected and the
 * young generation shrunk to its smallest (a plain full collection keeps the young generation's
 * pages — 64 MiB on this machine once a start or a load has grown it; this gives them back).
 * Node exposes `gc` only with --expose-gc; it is made reachable the way jest-leak-detector does
 * (the flag set, then `gc` read from a new context), so it works however the server was
 * started. Null if the runtime refuses.
 */
export function fullCollection(): (() => void) | null {
  if (exposed !== undefined) return exposed;
  let gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== "function") {
    try {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc");
    } catch {
      gc = undefined;
    }
  }
  exposed =
    typeof gc === "function"
      ? () => (gc as GcFunction)({ type: "major", execution: "sync", flavor: "last-resort" })
      : null;
  return exposed;
}

/** The event loop's utilization since the previous call (0 to 1). */
export function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

export class IdleCollector {
  #wasBusy = false;
  /** Sweeps in a row the loop was idle. */
  #idleSweeps = 0;
  /** Bytes the caches let go of since the last collection. */
  #released = 0;
  readonly #utilization: () => number;
  /** Found when first needed (fullCollection makes a V8 context): nothing added to start-up. */
  readonly #collect: () => (() => void) | null;

  constructor(utilization: () => number = loopUtilization(), collect?: () => void) {
    this.#utilization = utilization;
    this.#collect = collect ? () => collect : fullCollection;
  }

  /**
   * Called once per sweep with the bytes the caches let go of in it. Collects when the loop has
   * been idle for IDLE_SWEEPS sweeps and either was busy before (a load ended) or cached bytes
   * were let go; returns whether it did.
   */
  tick(releasedBytes: number): boolean {
    const utilization = this.#utilization();
    if (utilization >= BUSY_UTILIZATION) {
      this.#wasBusy = true;
      this.#idleSweeps = 0;
      return false;
    }
    if (utilization > IDLE_UTILIZATION) {
      this.#idleSweeps = 0;
      return false;
    }
    this.#released += releasedBytes;
    this.#idleSweeps++;
    if (this.#idleSweeps < IDLE_SWEEPS) return false;
    if (!this.#wasBusy && this.#released === 0) return false;
    const collect = this.#collect();
    if (!collect) return false;
    this.#wasBusy = false;
    this.#released = 0;
    collect();
    return true;
  }
}
