// Start-up benchmark (issue 16, target 4): how long from spawning the production server
// (`node apps/web/server/main.ts`, embedded defaults) to its first 200 from /ok, and how much
// memory it holds once idle — side by side with Debian's nginx starting to serve a file.
//
//   export PATH=$PWD/node_modules/.bin:$PATH && npm run build
//   node bench/start/run.ts [--runs 7] [--idle-seconds 5] [--packages 200] [--quiet-wait 2]
//                           [--dir /tmp/packyard-bench-start] [--out bench/start/results/latest.json]
//
// One round measures, in this order: Packyard on a fresh data directory, nginx, Packyard on an
// existing data directory (a published project of --packages .deb files), nginx, Packyard on a
// fresh data directory with an empty compile cache (the first start after an install or an
// upgrade), nginx — so the shared machine's load falls on every system alike. Every sample
// starts a new process and stops it afterwards; nothing forces a garbage collection.
//
// Per sample: milliseconds from spawn to the first 200 from /ok (a new connection every 2 ms
// until one is answered), for Packyard also to the first 200 from /readyz (polled after /ok),
// the RSS of the process (nginx: master + workers) --idle-seconds after the first /ok with no
// request in between, its CPU time until the first /ok, and the CPU the rest of the machine used
// meanwhile, as a share of all cores ("others' CPU %"). Then, for Packyard, what the lazy start
// costs later: the first API request (GET /api/openapi.json loads the app), the first page
// (GET / loads the React Router build) and the RSS after it.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { START_NODE_FLAGS } from "../../apps/web/test/server-process.ts";
import { writeBenchDebs } from "../apt/lib/debs.ts";
import { seedPackyard } from "../lib/packyard.ts";
import { machineBusyMs, processCpuMs, rssKb, type Summary, summarize, waitForQuiet } from "../lib/proc.ts";
import { commitOf, logger, machineInfo, missingTools, toolVersion } from "../lib/run-info.ts";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    "idle-seconds": { type: "string", default: "5" },
    packages: { type: "string", default: "200" },
    "quiet-wait": { type: "string", default: "2" },
    dir: { type: "string", default: "/tmp/packyard-bench-start" },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
  },
});

const runs = Number(args.runs);
const idleMs = Number(args["idle-seconds"]) * 1000;
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
const log = logger();
const repo = resolve(import.meta.dirname, "../..");
const mainTs = join(repo, "apps/web/server/main.ts");
const cores = cpus().length;
/** What bench/lib/packyard-child.ts's live server encrypts the seeded signing keys with. */
const SEED_SECRET = "live-server-secret-live-server-secret-00";

interface StartSample {
  /** Spawn → first 200 from /ok. */
  okMs: number;
  /** Spawn → first 200 from /readyz (Packyard only). */
  readyMs?: number;
  /** RSS (MiB) idle-seconds after the first /ok. */
  idleRssMiB: number;
  /** Packyard: the first API request after the idle wait (it loads the app), then the first page (it loads the build). */
  firstApiMs?: number;
  firstPageMs?: number;
  /** RSS (MiB) after that first page. */
  pageRssMiB?: number;
  /** CPU time of the process (nginx: master + workers) until the first /ok. */
  cpuMs: number;
  /** CPU the rest of the machine used from spawn to the first /ok, as a share of all cores. */
  othersCpuPct: number;
}

interface Started {
  child: ChildProcess;
  /** Every pid whose memory and CPU count (nginx: the master and its workers). */
  pids(): number[];
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.once("error", fail);
  });
}

/** One GET on a new connection: its status, or 0 when nothing answers yet. */
function get(port: number, path: string): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
    });
    req.on("error", () => done(0));
    req.end();
  });
}

/** Milliseconds for one GET that must answer 200. */
async function timed(port: number, path: string): Promise<number> {
  const started = performance.now();
  const status = await get(port, path);
  if (status !== 200) throw new Error(`${path}: ${status}`);
  return performance.now() - started;
}

async function firstOk(port: number, path: string, child: ChildProcess, deadlineMs = 60_000): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${path} answered`);
    if ((await get(port, path)) === 200) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`${path} did not answer 200 within ${deadlineMs} ms`);
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A reading summed over processes; one that has just gone counts 0. */
function sumOver(pids: number[], read: (pid: number) => number): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += read(pid);
    } catch {
      // exited between the listing and the reading
    }
  }
  return sum;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()));

/** Packyard's production entry point, as `npm start` runs it (compile cache in `compileCache`). */
function startPackyard(
  dataDir: string,
  port: number,
  compileCache: string,
  env: Record<string, string> = {},
) {
  const errors = join(dataDir, "..", "packyard-stderr.log");
  const child = spawn(process.execPath, [...START_NODE_FLAGS, mainTs], {
    cwd: join(repo, "apps/web"),
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
      NODE_COMPILE_CACHE: compileCache,
      ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  child.once("exit", () => writeFileSync(errors, stderr));
  return {
    child,
    pids: () => [child.pid!],
    async stop() {
      child.kill("SIGTERM");
      await exited(child);
    },
  } satisfies Started;
}

/** Debian's nginx serving one small file at /ok, with a configuration written here. */
function startNginx(root: string, port: number): Started {
  const prefix = mkdtempSync(join(root, "run-"));
  // The workers run as nobody: they must be able to read the file.
  chmodSync(prefix, 0o755);
  mkdirSync(join(prefix, "www"));
  writeFileSync(join(prefix, "www", "ok"), '{"ok":true}', { mode: 0o644 });
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    `daemon off;
master_process on;
worker_processes auto;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${prefix}/www;
    location = /ok { default_type application/json; }
  }
}
`,
  );
  const child = spawn("nginx", ["-p", prefix, "-c", conf], { stdio: "ignore" });
  return {
    child,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
    async stop() {
      child.kill("SIGQUIT");
      await exited(child);
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** Servers that something else on this shared machine stopped mid-sample (the sample was taken again). */
let interrupted = 0;

/**
 * A sample, taken again (up to twice) when the server was stopped from outside while idle — a
 * signal it did not get from here: other sessions' clean-ups on this machine.
 */
async function sample(start: (port: number) => Started, readiness: boolean): Promise<StartSample> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await sampleOnce(start, readiness);
    } catch (error) {
      if (!(error instanceof StoppedFromOutside) || attempt === 2) throw error;
      interrupted++;
      log(`  ${error.message}: taking the sample again`);
    }
  }
}

class StoppedFromOutside extends Error {}

/** Spawn → first /ok (→ first /readyz), then idle: RSS after idleMs; then stops the process. */
async function sampleOnce(start: (port: number) => Started, readiness: boolean): Promise<StartSample> {
  await waitForQuiet(quietWaitMs);
  const port = await freePort();
  const machine = machineBusyMs();
  const mine = process.cpuUsage();
  const started = performance.now();
  const server = start(port);
  try {
    await firstOk(port, "/ok", server.child);
    const okMs = performance.now() - started;
    const cpuMs = sumOver(server.pids(), processCpuMs);
    const driver = process.cpuUsage(mine);
    const others = Math.max(0, machineBusyMs() - machine - cpuMs - (driver.user + driver.system) / 1000);
    const okAt = performance.now();
    let readyMs: number | undefined;
    if (readiness) {
      await firstOk(port, "/readyz", server.child);
      readyMs = performance.now() - started;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, idleMs - (performance.now() - okAt))));
    const rss = () => {
      if (server.child.exitCode !== null || server.child.signalCode !== null)
        throw new StoppedFromOutside(
          `the server exited (${server.child.exitCode ?? server.child.signalCode}) while idle`,
        );
      return sumOver(server.pids(), rssKb) / 1024;
    };
    const idleRssMiB = rss();
    const result: StartSample = {
      okMs,
      readyMs,
      idleRssMiB,
      cpuMs,
      othersCpuPct: (100 * others) / (okMs * cores),
    };
    if (readiness) {
      result.firstApiMs = await timed(port, "/api/openapi.json");
      result.firstPageMs = await timed(port, "/");
      result.pageRssMiB = rss();
    }
    return result;
  } finally {
    await server.stop();
  }
}

interface Row {
  system: string;
  what: string;
  okMs: Summary;
  readyMs?: Summary;
  idleRssMiB: Summary;
  firstApiMs?: Summary;
  firstPageMs?: Summary;
  pageRssMiB?: Summary;
  cpuMs: Summary;
  othersCpuPct: Summary;
  samples: StartSample[];
}

function row(system: string, what: string, samples: StartSample[]): Row {
  const optional = (key: "readyMs" | "firstApiMs" | "firstPageMs" | "pageRssMiB") => {
    const values = samples.flatMap((s) => (s[key] === undefined ? [] : [s[key]]));
    return values.length ? { [key]: summarize(values) } : {};
  };
  return {
    system,
    what,
    okMs: summarize(samples.map((s) => s.okMs)),
    ...optional("readyMs"),
    ...optional("firstApiMs"),
    ...optional("firstPageMs"),
    ...optional("pageRssMiB"),
    idleRssMiB: summarize(samples.map((s) => s.idleRssMiB)),
    cpuMs: summarize(samples.map((s) => s.cpuMs)),
    othersCpuPct: summarize(samples.map((s) => s.othersCpuPct)),
    samples,
  };
}

const cell = (s: Summary | undefined, digits = 0) =>
  s ? `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})` : "–";

function markdown(results: {
  date: string;
  commit: string;
  runs: number;
  packages: number;
  idleSeconds: number;
  machine: ReturnType<typeof machineInfo>;
  versions: Record<string, string>;
  interrupted: number;
  rows: Row[];
}): string {
  const lines = [
    `Run ${results.date} at commit ${results.commit}; ${results.machine.cpus} × ${results.machine.cpuModel}, Debian ${results.machine.os}; Node ${results.versions.node}, nginx ${results.versions.nginx}; ${results.runs} samples per row, interleaved; median (min–max); ${results.interrupted} sample(s) taken again after something else stopped the server.`,
    "",
    `| system | start | spawn → first /ok, ms | spawn → first /readyz, ms | idle RSS ${results.idleSeconds} s after /ok, MiB | CPU until /ok, ms | others' CPU % | then: first API request, ms | first page, ms | RSS after it, MiB |`,
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.rows.map(
      (r) =>
        `| ${r.system} | ${r.what} | ${cell(r.okMs)} | ${cell(r.readyMs)} | ${cell(r.idleRssMiB)} | ${cell(r.cpuMs)} | ${cell(r.othersCpuPct, 1)} | ${cell(r.firstApiMs)} | ${cell(r.firstPageMs)} | ${cell(r.pageRssMiB)} |`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

async function main() {
  const missing = missingTools(["nginx"]);
  if (missing.length) throw new Error(`missing: ${missing.join(", ")} — apt-get install -y nginx`);
  const build = join(repo, "apps/web/build/server/index.js");
  try {
    readFileSync(build);
  } catch {
    throw new Error(`${build} is missing: run "npm run build" first`);
  }
  rmSync(dir, { recursive: true, force: true });
  const scratch = join(dir, "scratch");
  mkdirSync(scratch, { recursive: true });
  const warmCache = join(dir, "compile-cache");

  const packages = Number(args.packages);
  log(`seeding an existing data directory: one public project, ${packages} .deb files, published`);
  const existing = join(dir, "existing");
  seedPackyard(existing, writeBenchDebs(join(dir, "debs"), packages), scratch);

  // One unrecorded start fills the compile cache the warm rows use (as the first start would).
  log("filling the compile cache (one unrecorded start)");
  const fresh = () => mkdtempSync(join(dir, "fresh-"));
  await sample((port) => startPackyard(fresh(), port, warmCache), true);

  const samples: Record<string, StartSample[]> = {
    fresh: [],
    existing: [],
    cold: [],
    nginx: [],
  };
  for (let i = 0; i < runs; i++) {
    log(`round ${i + 1}/${runs}`);
    const freshDir = fresh();
    samples.fresh!.push(await sample((port) => startPackyard(freshDir, port, warmCache), true));
    rmSync(freshDir, { recursive: true, force: true });
    samples.nginx!.push(await sample((port) => startNginx(dir, port), false));
    samples.existing!.push(
      await sample((port) => startPackyard(existing, port, warmCache, { SECRET: SEED_SECRET }), true),
    );
    samples.nginx!.push(await sample((port) => startNginx(dir, port), false));
    const coldDir = fresh();
    const coldCache = mkdtempSync(join(dir, "cold-cache-"));
    samples.cold!.push(await sample((port) => startPackyard(coldDir, port, coldCache), true));
    rmSync(coldDir, { recursive: true, force: true });
    rmSync(coldCache, { recursive: true, force: true });
    samples.nginx!.push(await sample((port) => startNginx(dir, port), false));
    const last = (name: string) => samples[name]!.at(-1)!;
    log(
      `  fresh ${last("fresh").okMs.toFixed(0)} ms / ${last("fresh").idleRssMiB.toFixed(0)} MiB; existing ${last("existing").okMs.toFixed(0)} ms / ${last("existing").idleRssMiB.toFixed(0)} MiB; cold cache ${last("cold").okMs.toFixed(0)} ms; nginx ${last("nginx").okMs.toFixed(0)} ms`,
    );
  }

  const results = {
    date: new Date().toISOString(),
    commit: commitOf(args.commit),
    runs,
    packages,
    idleSeconds: idleMs / 1000,
    machine: machineInfo(),
    versions: { node: process.version, nginx: toolVersion(["nginx", "-v"], /nginx\/(\S+)/) },
    interrupted,
    rows: [
      row("Packyard", "fresh data directory, warm compile cache", samples.fresh!),
      row(
        "Packyard",
        `existing data directory (${packages} packages published), warm compile cache`,
        samples.existing!,
      ),
      row(
        "Packyard",
        "fresh data directory, empty compile cache (first start after install/upgrade)",
        samples.cold!,
      ),
      row("nginx", "serving one file (3 samples per round)", samples.nginx!),
    ],
  };
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const md = markdown(results);
  writeFileSync(args.out.replace(/\.json$/, ".md"), md);
  process.stdout.write(md);
  rmSync(dir, { recursive: true, force: true });
}

await main();
