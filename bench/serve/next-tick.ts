// bench/serve/next-tick: what a forced full collection does to Node's `process.nextTick`, with
// and without the tick object that serving/idle-collect.ts holds (decision 053). Each run is a
// process of its own: ticks until they are optimized, a burst timed, the collection Packyard
// forces (V8's last-resort flavour) with no tick in flight, then the same burst timed again.
// "held" loads idle-collect.ts, as the server does, and collects through it; "not held" makes
// the same collection without the module. Runs interleave (held, not held, held, …).
//
//   node bench/serve/next-tick.ts [--runs 5] [--ticks 2000000]
import { execFileSync } from "node:child_process";
import { summarize } from "../lib/proc.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const ticks = Number(option("ticks", "2000000"));

/** Nanoseconds per tick over `n` ticks, each scheduled from the one before. */
function burst(n: number): Promise<number> {
  return new Promise((resolve) => {
    let left = n;
    const started = process.hrtime.bigint();
    const step = () => {
      if (--left === 0) resolve(Number(process.hrtime.bigint() - started) / n);
      else process.nextTick(step);
    };
    process.nextTick(step);
  });
}

const child = option("child", "");
if (child) {
  let collect: () => void;
  if (child === "held") {
    const { fullCollection } = await import("../../apps/web/server/serving/idle-collect.ts");
    collect = fullCollection()!;
  } else {
    const { setFlagsFromString } = await import("node:v8");
    const { runInNewContext } = await import("node:vm");
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as (options: object) => void;
    collect = () => gc({ type: "major", execution: "sync", flavor: "last-resort" });
  }
  for (let i = 0; i < 5; i++) await burst(ticks / 2);
  const before = await burst(ticks);
  // From a timer: no tick object is alive while the collection runs.
  await new Promise((resolve) => setTimeout(resolve, 10));
  collect();
  for (let i = 0; i < 5; i++) await burst(ticks / 2);
  const after = await burst(ticks);
  process.stdout.write(JSON.stringify({ before, after }));
  process.exit(0);
}

const runs = Number(option("runs", "5"));
const results: Record<string, { before: number[]; after: number[] }> = {
  held: { before: [], after: [] },
  "not held": { before: [], after: [] },
};
for (let run = 0; run < runs; run++) {
  for (const mode of run % 2 ? ["not held", "held"] : ["held", "not held"]) {
    const out = execFileSync(
      process.execPath,
      [import.meta.filename, "--child", mode === "held" ? "held" : "bare", "--ticks", String(ticks)],
      { encoding: "utf8" },
    );
    const { before, after } = JSON.parse(out) as { before: number; after: number };
    results[mode]!.before.push(before);
    results[mode]!.after.push(after);
  }
}
const fmt = (values: number[]) => {
  const s = summarize(values);
  return `${s.median.toFixed(1)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
};
console.log(
  `| ns per process.nextTick, median (min–max) of ${runs} processes | before the collection | after it |`,
);
console.log("|---|---:|---:|");
for (const [mode, r] of Object.entries(results))
  console.log(`| ${mode} | ${fmt(r.before)} | ${fmt(r.after)} |`);
