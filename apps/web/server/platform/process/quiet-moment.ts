// The first quiet moment after start-up (decision 044). Housekeeping that may wait — the
// start-up pass that lists every stored blob and index file for leftovers — runs once the server
// is not busy with its first requests, not beside them: a server started by a deploy answers the
// burst that follows (a CI job's publish, the installs waiting on it) at full speed, and then
// collects. Leftovers are removed only after 15 minutes untouched, so waiting a few seconds
// changes nothing in what is removed.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

/** How often the event loop's utilization is read. */
export const QUIET_WINDOW_MS = 500;
/** Utilization over one window at and below which the server is quiet. */
export const QUIET_UTILIZATION = 0.1;
/** Waited at most this long: a server busy from its start still collects. */
export const QUIET_WAIT_MAX_MS = 30_000;

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

export interface QuietOptions {
  windowMs?: number;
  maxWaitMs?: number;
  utilization?: () => number;
  /** Aborted when the wait should end at once (the server is stopping). */
  signal?: AbortSignal;
}

/**
 * Resolves after the first window in which the event loop was quiet, after `maxWaitMs` at the
 * latest, or at once when `signal` is aborted; with whether the moment was quiet.
 */
export async function quietMoment(options: QuietOptions = {}): Promise<boolean> {
  const windowMs = options.windowMs ?? QUIET_WINDOW_MS;
  const maxWaitMs = options.maxWaitMs ?? QUIET_WAIT_MAX_MS;
  const utilization = options.utilization ?? loopUtilization();
  const { signal } = options;
  for (let waited = 0; waited < maxWaitMs; waited += windowMs) {
    if (signal?.aborted) return false;
    try {
      await sleep(windowMs, undefined, { signal });
    } catch {
      return false; // aborted
    }
    if (utilization() <= QUIET_UTILIZATION) return true;
  }
  return false;
}
