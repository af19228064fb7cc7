// What the benchmark drivers share: a table row made of samples, a step measured `count` times on
// a quiet machine, per-call timings folded into per-publish totals.
import { accounted, type Sample, type Summary, summarize, waitForQuiet } from "./proc.ts";

export interface Row {
  /** "a" full index build, "b" one more package. */
  benchmark: "a" | "b";
  system: string;
  what: string;
  time: Summary;
  peakRssMiB: Summary;
  extra: Record<string, Summary>;
  samples: Sample[];
}

export function row(benchmark: "a" | "b", system: string, what: string, samples: Sample[]): Row {
  const keys = [...new Set(samples.flatMap((s) => Object.keys(s.extra ?? {})))];
  return {
    benchmark,
    system,
    what,
    time: summarize(samples.map((s) => s.ms)),
    peakRssMiB: summarize(samples.map((s) => s.peakRssKb / 1024)),
    extra: Object.fromEntries(keys.map((k) => [k, summarize(samples.map((s) => s.extra?.[k] ?? 0))])),
    samples,
  };
}

/** Runs a step `count` times, each after waiting (up to quietWaitMs) for a quiet machine, with CPU accounting. */
export async function measure(
  count: number,
  quietWaitMs: number,
  step: (i: number) => Promise<Sample> | Sample,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < count; i++) {
    await waitForQuiet(quietWaitMs);
    samples.push(await accounted(() => step(i)));
  }
  return samples;
}

/** Sums consecutive groups of `size` values (per-call timings → per-publish totals). */
export function chunkSums(values: readonly number[], size: number): number[] {
  const sums: number[] = [];
  const step = Math.max(1, Math.round(size));
  for (let i = 0; i < values.length; i += step)
    sums.push(values.slice(i, i + step).reduce((a, b) => a + b, 0));
  return sums;
}

/** A system's step in an interleaved comparison; `after` runs untimed after each of its samples. */
export interface InterleavedStep {
  step: (i: number) => Promise<Sample> | Sample;
  after?: (i: number) => Promise<void>;
}

/**
 * Interleaved samples (issue 16): sample i of every system, then sample i + 1 of every system
 * (A, B, A, B, …), so the shared machine's load falls on all alike; each after waiting (up to
 * quietWaitMs) for a quiet machine, with the others' CPU accounted.
 */
export async function interleave(
  count: number,
  quietWaitMs: number,
  systems: readonly InterleavedStep[],
): Promise<Sample[][]> {
  const samples: Sample[][] = systems.map(() => []);
  for (let i = 0; i < count; i++) {
    for (const [s, system] of systems.entries()) {
      await waitForQuiet(quietWaitMs);
      samples[s]!.push(await accounted(() => system.step(i)));
      await system.after?.(i);
    }
  }
  return samples;
}
