// Running the peers under /usr/bin/time, reading a process's memory from /proc, and summarising
// repeated samples.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Sample {
  /** Wall-clock milliseconds. */
  ms: number;
  /** Peak resident set size in KiB (the step's own high-water mark). */
  peakRssKb: number;
  /** Extra per-step numbers (phases inside the step, RSS before it, …). */
  extra?: Record<string, number>;
}

export interface Summary {
  runs: number;
  median: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { runs: n, median, min: sorted[0]!, max: sorted[n - 1]! };
}

/**
 * Runs a command under `/usr/bin/time`: wall time measured here around the whole process
 * (fork/exec included); peak RSS (%M) as GNU time reports it — the largest of the process and
 * the children it waited for, so a script reports its biggest command; CPU time (%U + %S) of
 * the process and its children.
 */
export function timeCommand(
  command: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; scratch: string },
): Sample {
  const out = join(options.scratch, `time-${process.pid}.txt`);
  rmSync(out, { force: true });
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%M %U %S", "-o", out, ...command], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(
      `${command.join(" ")} exited ${result.status}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-4000)}`,
    );
  }
  const [rss, user, system] = readFileSync(out, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
  return { ms, peakRssKb: rss!, extra: { "CPU ms": (user! + system!) * 1000 } };
}

/** Runs a set-up command (not measured); throws with its output when it fails. */
export function run(
  command: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): string {
  const result = spawnSync(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: options.env ?? process.env,
    input: options.input,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command.slice(0, 6).join(" ")} exited ${result.status}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-4000)}`,
    );
  }
  return result.stdout;
}

function statusField(pid: number | "self", field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (!match) throw new Error(`${field} not in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Current resident set size in KiB. */
export const rssKb = (pid: number | "self") => statusField(pid, "VmRSS");
/** Resident set high-water mark in KiB, since the process started or since resetPeakRss. */
export const peakRssKb = (pid: number | "self") => statusField(pid, "VmHWM");

/** Sets VmHWM back to the current RSS (Linux >= 4.0: writing 5 to clear_refs). */
export function resetPeakRss(pid: number | "self"): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

const TICK_MS = 10; // CLK_TCK is 100 on Linux

/** CPU time every process on the machine has used so far, in ms (from /proc/stat). */
export function machineBusyMs(): number {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * TICK_MS;
}

/** CPU time (user + system) a process has used so far, in ms (from /proc/<pid>/stat). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const cores = Number(readFileSync("/proc/cpuinfo", "utf8").match(/^processor\s*:/gm)?.length ?? 1);

/**
 * This machine is shared: other sessions' tests may run during a sample. Waits (up to maxWaitMs)
 * until the rest of the machine uses less than a quarter of one core over a 300 ms window.
 */
export async function waitForQuiet(maxWaitMs: number): Promise<void> {
  const deadline = performance.now() + maxWaitMs;
  while (performance.now() < deadline) {
    const busy = machineBusyMs();
    const mine = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 300));
    const others =
      machineBusyMs() - busy - (process.cpuUsage(mine).user + process.cpuUsage(mine).system) / 1000;
    if (others < 0.25 * 300) return;
  }
}

/**
 * Adds to a sample how much CPU the rest of the machine used meanwhile, as a share of all
 * cores: "others' CPU %" (a sample taken while other work ran is slower than it should be).
 * The sample must carry its own CPU time in extra["CPU ms"].
 */
export async function accounted(work: () => Promise<Sample> | Sample): Promise<Sample> {
  const busy = machineBusyMs();
  const sample = await work();
  // A step that measured the machine over its own window (excluding its set-up) says so.
  const machine = sample.extra?.["machine CPU ms"] ?? machineBusyMs() - busy;
  const others = Math.max(0, machine - (sample.extra?.["CPU ms"] ?? 0));
  const { "machine CPU ms": _, ...extra } = sample.extra ?? {};
  sample.extra = { ...extra, "others' CPU %": (100 * others) / (sample.ms * cores) };
  return sample;
}
