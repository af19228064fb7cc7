// What request logging and metrics cost on the download path: the same 1 MiB /dl file served by
// Packyard at two commits (before and after a change), loaded with autocannon in alternating
// rounds in one run, so both meet the same machine. Each commit's tree is a `git archive` with
// this checkout's node_modules linked and web build copied (as bench/run-at-commit.sh does); each
// server is a separate process (bench/downloads/serve.ts) whose log lines go to a file.
//
//   node bench/downloads/run.ts --before <rev> [--after HEAD] [--connections 10]
//        [--duration 10] [--rounds 3] [--size 1048576] [--quiet-after]
//
// --quiet-after adds a third server: the after commit with LOG_LEVEL=warn (metrics, no request
// lines). Reported per server, median of the rounds: requests/s, MiB/s, latency p50 and p99
// (ms), and the server process's CPU time per request (µs, from /proc/<pid>/stat), which the
// other work on a shared machine disturbs least.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string", default: "HEAD" },
    connections: { type: "string", default: "10" },
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    size: { type: "string", default: String(1024 * 1024) },
    "quiet-after": { type: "boolean", default: false },
  },
});
if (!args.before) throw new Error("usage: node bench/downloads/run.ts --before <rev> [--after <rev>]");
const here = resolve(import.meta.dirname, "..", "..");
const log = (message: string) => process.stderr.write(`${message}\n`);
const git = (...a: string[]) => spawnSync("git", ["-C", here, ...a], { encoding: "utf8" }).stdout.trim();

/** A runnable tree of `rev` under /tmp (see the header). */
function tree(rev: string): string {
  const commit = git("rev-parse", "--short", rev);
  const dir = `/tmp/packyard-dl-bench-${commit}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("sh", ["-c", `git -C "${here}" archive "${rev}" | tar -x -C "${dir}"`]);
  if (archive.status !== 0) throw new Error(`git archive ${rev} failed`);
  rmSync(join(dir, "bench"), { recursive: true, force: true });
  spawnSync("cp", ["-r", join(here, "bench"), join(dir, "bench")]);
  mkdirSync(join(dir, "node_modules", "@packyard"), { recursive: true });
  for (const entry of readdirSync(join(here, "node_modules"))) {
    if (entry === "@packyard" || entry === ".package-lock.json") continue;
    symlinkSync(join(here, "node_modules", entry), join(dir, "node_modules", entry));
  }
  for (const pkg of readdirSync(join(here, "node_modules", "@packyard"))) {
    symlinkSync(
      readlinkSync(join(here, "node_modules", "@packyard", pkg)),
      join(dir, "node_modules", "@packyard", pkg),
    );
  }
  if (!existsSync(join(here, "apps/web/build"))) throw new Error("run 'npm run build' first");
  spawnSync("cp", ["-r", join(here, "apps/web/build"), join(dir, "apps/web/build")]);
  return dir;
}

interface Server {
  label: string;
  commit: string;
  logLevel: string;
  child: ChildProcess;
  file: string;
  pid: number;
  logFile: string;
}

async function start(label: string, rev: string, dir: string, logLevel: string): Promise<Server> {
  const logFile = join(dir, `server-${label}.log`);
  const child = spawn(process.execPath, ["bench/downloads/serve.ts", args.size!], {
    cwd: dir,
    env: { ...process.env, LOG_LEVEL: logLevel },
    stdio: ["pipe", "pipe", openSync(logFile, "w")],
  });
  const line = await new Promise<string>((resolveLine, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolveLine);
    child.once("exit", (code) => reject(new Error(`${label} server exited (${code}); see ${logFile}`)));
  });
  const { file, pid } = JSON.parse(line) as { file: string; pid: number };
  return { label, commit: git("rev-parse", "--short", rev), logLevel, child, file, pid, logFile };
}

/** User + system CPU time of a process so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks * 1000) / 100; // CLK_TCK is 100 on Linux
}

/** Busy and total CPU time of the whole machine so far (all cores), in ticks. */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3]! + cpu[4]!; // idle, iowait
  return { busy: total - idle, total };
}

interface Round {
  rps: number;
  mibps: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  /** The machine's CPU use during the round, all cores, %: the load generator, the server and others' work. */
  machineBusy: number;
  errors: number;
}

/** The parts of autocannon's JSON result read here. */
interface AutocannonResult {
  requests: { total: number; average: number };
  throughput: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
  timeouts: number;
}

function autocannon(url: string, seconds: string): { requests: number; result: AutocannonResult } {
  const run = spawnSync(
    "npx",
    ["-y", "autocannon@9.0.0", "-c", args.connections!, "-d", seconds, "-j", url],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`autocannon failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as AutocannonResult;
  return { requests: result.requests.total, result };
}

function round(server: Server): Round {
  const cpuBefore = cpuMs(server.pid);
  const machineBefore = machineTicks();
  const { requests, result } = autocannon(server.file, args.duration!);
  const cpu = cpuMs(server.pid) - cpuBefore;
  const machineAfter = machineTicks();
  return {
    rps: result.requests.average,
    mibps: result.throughput.average / 1024 / 1024,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUsPerRequest: (cpu * 1000) / requests,
    machineBusy:
      (100 * (machineAfter.busy - machineBefore.busy)) / (machineAfter.total - machineBefore.total),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const beforeDir = tree(args.before);
const afterDir = tree(args.after!);
const servers: Server[] = [];
try {
  servers.push(await start("before", args.before, beforeDir, "info"));
  servers.push(await start("after", args.after!, afterDir, "info"));
  if (args["quiet-after"]) servers.push(await start("after-quiet", args.after!, afterDir, "warn"));
  for (const s of servers) {
    log(`warming up ${s.label} (${s.commit}, LOG_LEVEL=${s.logLevel})`);
    autocannon(s.file, "3");
  }
  const results = new Map<string, Round[]>(servers.map((s) => [s.label, []]));
  for (let r = 0; r < Number(args.rounds); r++) {
    // Alternate the order each round, so neither always runs first.
    const order = r % 2 ? [...servers].reverse() : servers;
    for (const s of order) {
      const result = round(s);
      results.get(s.label)!.push(result);
      log(`round ${r + 1} ${s.label}: ${JSON.stringify(result)}`);
    }
  }
  const rows = servers.map((s) => {
    const rounds = results.get(s.label)!;
    const m = (k: keyof Round) => median(rounds.map((x) => x[k]));
    const range = (k: keyof Round) =>
      `${Math.min(...rounds.map((x) => x[k])).toFixed(0)}–${Math.max(...rounds.map((x) => x[k])).toFixed(0)}`;
    return `| ${s.label} (\`${s.commit}\`, LOG_LEVEL=${s.logLevel}) | ${m("rps").toFixed(0)} (${range("rps")}) | ${m("mibps").toFixed(0)} | ${m("p50").toFixed(0)} | ${m("p99").toFixed(0)} | ${m("cpuUsPerRequest").toFixed(0)} (${range("cpuUsPerRequest")}) | ${m("machineBusy").toFixed(0)} | ${rounds.reduce((a, x) => a + x.errors, 0)} |`;
  });
  const lines = readFileSync(servers[1]!.logFile, "utf8")
    .split("\n")
    .filter((l) => l.includes('"msg":"request"'));
  process.stdout.write(
    [
      `${args.rounds} rounds of ${args.duration} s, ${args.connections} connections, GET of a ${args.size}-byte /dl file; median (min–max)`,
      "",
      "| server | requests/s | MiB/s | p50 ms | p99 ms | server CPU µs / request | machine CPU % | errors |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rows,
      "",
      `request lines logged by "after": ${lines.length}; the last: ${lines.at(-1) ?? "none"}`,
      "",
    ].join("\n"),
  );
} finally {
  for (const s of servers) s.child.stdin?.end();
  await new Promise((r) => setTimeout(r, 500));
  for (const s of servers) s.child.kill();
  log(`trees kept for inspection: ${basename(beforeDir)}, ${basename(afterDir)} under /tmp`);
}
