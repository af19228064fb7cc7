// bench/serve: how fast Packyard serves what installs fetch, side by side with nginx (Debian's,
// sendfile on, with a config written here) and a bare Node.js server (bare.ts: the runtime's
// ceiling), on the same files from the same disk, with `ab` as the load (keep-alive). Samples
// interleave (Packyard, nginx, bare Node, Packyard, …) so the shared machine's load falls on all
// alike; each sample reports the CPU the rest of the machine used meanwhile ("others' CPU %").
// Nothing forces a garbage collection in Packyard. Then Packyard's memory: idle before the load,
// right after it, and a minute later.
//
// `1m-entitled` (named with --only) is the 1 MiB file at 16 clients anonymously against the same
// with an entitlement token (`ab -A TOKEN:`, as curl -u sends it), Packyard alone (issue 40).
//
//   node bench/serve/run.ts [--seconds 5] [--samples 5] [--only 1m,100m,InRelease,Packages.gz,1m-entitled]
//                           [--no-idle-wait] [--cpu-prof (Packyard's profile into bench/serve/)]
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { freePort, PROCESS_TEST_SECRET, START_NODE_FLAGS } from "../../apps/web/test/server-process.ts";
import { machineBusyMs, processCpuMs, rssKb, summarize } from "../lib/proc.ts";
import { uploadFiles } from "./files.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const seconds = Number(option("seconds", "5"));
const samples = Number(option("samples", "5"));
const only = option("only", "1m,100m,InRelease,Packages.gz").split(",");
const log = (message: string) =>
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

const root = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "bench-serve-"));
const children: ChildProcess[] = [];
process.on("exit", () => {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
});

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => resolve(line));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before it was ready`)));
  });
}

// Packyard as in production: its own process (server/main.ts with npm start's V8 flags, embedded
// defaults: SQLite and blobs under its data directory, request log at info), the files uploaded
// through its API.
log("starting Packyard and uploading the files");
const dataDir = join(work, "data");
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
/** Packyard on the data directory, once it is ready (/readyz). */
async function startPackyard(profile: boolean): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      ...START_NODE_FLAGS,
      ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${join(root, "bench/serve")}`] : []),
      "server/main.ts",
    ],
    {
      cwd: join(root, "apps/web"),
      env: {
        ...process.env,
        NODE_ENV: "production",
        HOST: "127.0.0.1",
        PORT: String(port),
        BASE_URL: url,
        DATA_DIR: dataDir,
        SECRET: PROCESS_TEST_SECRET,
        AUTH_RATE_LIMIT: "false",
        PLAN_LIMITS: "off",
        LOG_LEVEL: "info",
        // As npm start and the systemd unit set it (docs/self-hosting.md, decision 039).
        GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? "glibc.malloc.mmap_threshold=131072",
      },
      stdio: ["ignore", "ignore", "ignore"],
    },
  );
  children.push(child);
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.ok) break;
    if (i > 600 || child.exitCode !== null) throw new Error("Packyard did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

// Set up by one server, served by a fresh one: its memory is a server's that only serves.
const setup = await startPackyard(false);
const { files, entitlementToken } = await uploadFiles(url, dataDir, join(work, "files"));
await stop(setup);
const packyard = await startPackyard(args.includes("--cpu-prof"));
// Idle as a serving server is: every URL asked once (the app loaded, the cache filled), then 5 s.
for (const file of Object.values(files)) await (await fetch(`${url}${file.url}`)).arrayBuffer();
await new Promise((r) => setTimeout(r, 5000));
const state = { url, pid: packyard.pid!, files };
// nginx: the same URLs, hard links to the same files.
const www = join(work, "www");
for (const file of Object.values(state.files)) {
  const target = join(www, file.url);
  mkdirSync(dirname(target), { recursive: true });
  linkSync(file.path, target);
}
const nginxPort = await freePort();
const nginxConf = join(work, "nginx.conf");
writeFileSync(
  nginxConf,
  `user root root;
worker_processes auto;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log ${work}/nginx-access.log;
  client_body_temp_path ${work}/nginx-body;
  proxy_temp_path ${work}/nginx-proxy;
  fastcgi_temp_path ${work}/nginx-fastcgi;
  uwsgi_temp_path ${work}/nginx-uwsgi;
  scgi_temp_path ${work}/nginx-scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${nginxPort};
    root ${www};
  }
}
`,
);
const nginx = spawn("nginx", ["-c", nginxConf, "-g", "daemon off;"], { stdio: "ignore" });
children.push(nginx);

// The bare Node.js server.
const filesJson = join(work, "files.json");
writeFileSync(filesJson, JSON.stringify(state.files));
const barePort = await freePort();
const bare = spawn(process.execPath, [join(root, "bench/serve/bare.ts"), filesJson, String(barePort)], {
  stdio: ["ignore", "pipe", "inherit"],
});
children.push(bare);
await firstLine(bare);
await new Promise((r) => setTimeout(r, 300));

/** The pids whose CPU a sample of this system is: nginx's master and its workers. */
function pidsOf(child: ChildProcess): number[] {
  const pids = [child.pid!];
  try {
    pids.push(
      ...execFileSync("pgrep", ["-P", String(child.pid)], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map(Number),
    );
  } catch {}
  return pids;
}

interface System {
  name: string;
  base: string;
  pids: () => number[];
  /** ab's -A: HTTP Basic credentials. */
  auth?: string;
}
const systems: System[] = [
  { name: "Packyard", base: state.url, pids: () => [state.pid] },
  { name: "nginx", base: `http://127.0.0.1:${nginxPort}`, pids: () => pidsOf(nginx) },
  { name: "bare Node", base: `http://127.0.0.1:${barePort}`, pids: () => [bare.pid!] },
];
const entitledSystems: System[] = [
  { name: "Packyard", base: state.url, pids: () => [state.pid] },
  {
    name: "Packyard, entitlement token",
    base: state.url,
    pids: () => [state.pid],
    auth: `${entitlementToken}:`,
  },
];

interface Result {
  rps: number;
  mbps: number;
  others: number;
  serverCpu: number;
}

/** One `ab` run; its own CPU from the shell's `times` after it. */
function load(url: string, clients: number, size: number, auth?: string): Result & { abCpuMs: number } {
  const credentials = auth ? `-A '${auth}' ` : "";
  const out = execFileSync(
    "sh",
    ["-c", `ab -k -q -c ${clients} -t ${seconds} -n 100000000 -s 60 ${credentials}'${url}' 2>&1; times`],
    { encoding: "utf8", maxBuffer: 1 << 24 },
  );
  const rps = Number(/Requests per second:\s+([\d.]+)/.exec(out)?.[1]);
  const failed = Number(/Failed requests:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (!rps || failed || non2xx) throw new Error(`ab: ${url}\n${out}`);
  // `times`: the shell's own line, then its children's "0m1.234s 0m0.567s".
  const childTimes = out.trim().split("\n").at(-1)!.split(/\s+/);
  const cpu = childTimes.reduce((sum, t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return sum + (m ? Number(m[1]) * 60_000 + Number(m[2]) * 1000 : 0);
  }, 0);
  return { rps, mbps: (rps * size) / 1e6, others: 0, serverCpu: 0, abCpuMs: cpu };
}

const scenarios = [
  { key: "1m", file: "payload-1m.bin", clients: 16, what: "1 MiB release file, 16 clients" },
  { key: "100m", file: "payload-100m.bin", clients: 4, what: "100 MiB release file, 4 clients" },
  { key: "InRelease", file: "InRelease", clients: 32, what: "InRelease, 32 clients" },
  { key: "Packages.gz", file: "Packages.gz", clients: 32, what: "Packages.gz, 32 clients" },
  {
    key: "1m-entitled",
    file: "payload-1m.bin",
    clients: 16,
    what: "1 MiB release file, 16 clients, anonymous / entitlement token",
  },
].filter((s) => only.includes(s.key));

const memory: Record<string, number> = { idle: rssKb(state.pid) / 1024 };
log(`Packyard idle RSS ${memory.idle!.toFixed(0)} MiB`);
const table: string[] = [];
const cpuLines: string[] = [];
const entitledLines: string[] = [];
for (const scenario of scenarios) {
  const file = state.files[scenario.file]!;
  const results: Record<string, Result[]> = {};
  const entitled = scenario.key === "1m-entitled";
  const those = entitled ? entitledSystems : systems;
  // One warm-up each (page cache, JIT), not counted.
  for (const system of those) load(`${system.base}${file.url}`, scenario.clients, file.size, system.auth);
  for (let i = 0; i < samples; i++) {
    for (const system of those) {
      const pids = system.pids();
      const cpuBefore = pids.reduce((s, p) => s + processCpuMs(p), 0);
      const busy = machineBusyMs();
      const started = performance.now();
      const result = load(`${system.base}${file.url}`, scenario.clients, file.size, system.auth);
      const elapsed = performance.now() - started;
      const serverCpu = pids.reduce((s, p) => s + processCpuMs(p), 0) - cpuBefore;
      const machine = machineBusyMs() - busy;
      const cores = 2;
      result.others = Math.max(0, ((machine - serverCpu - result.abCpuMs) / (elapsed * cores)) * 100);
      result.serverCpu = serverCpu / (result.rps * (elapsed / 1000));
      results[system.name] ??= [];
      results[system.name]!.push(result);
      log(
        `${scenario.what} ${system.name}: ${result.rps.toFixed(0)} req/s, ${(result.serverCpu * 1000).toFixed(0)} µs CPU/request, others ${result.others.toFixed(0)} %`,
      );
    }
  }
  const median = (name: string) => summarize(results[name]!.map((r) => r.rps));
  const fmt = (name: string) => {
    const s = median(name);
    const others = summarize(results[name]!.map((r) => r.others));
    return `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)}), others ${others.median.toFixed(0)} %`;
  };
  const cpu = (name: string) => (summarize(results[name]!.map((r) => r.serverCpu)).median * 1000).toFixed(0);
  if (entitled) {
    const token = "Packyard, entitlement token";
    entitledLines.push(
      `| ${scenario.what} | ${fmt("Packyard")} | ${fmt(token)} | ${(median(token).median / median("Packyard").median).toFixed(2)} | ${cpu("Packyard")} | ${cpu(token)} |`,
    );
    continue;
  }
  cpuLines.push(`| ${scenario.what} | ${cpu("Packyard")} | ${cpu("nginx")} | ${cpu("bare Node")} |`);
  const p = median("Packyard").median;
  table.push(
    `| ${scenario.what} | ${fmt("Packyard")} | ${fmt("nginx")} | ${fmt("bare Node")} | ${(p / median("nginx").median).toFixed(2)} | ${(p / median("bare Node").median).toFixed(2)} |`,
  );
}
memory.afterLoad = rssKb(state.pid) / 1024;
log(`Packyard RSS after the load ${memory.afterLoad.toFixed(0)} MiB; waiting a minute`);
if (!args.includes("--no-idle-wait")) {
  await new Promise((r) => setTimeout(r, 60_000));
  memory.minuteLater = rssKb(state.pid) / 1024;
}

console.log(
  `\n| what (req/s: median (min–max) of ${samples} samples of ${seconds} s) | Packyard | nginx | bare Node | Packyard / nginx | Packyard / bare Node |`,
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const line of table) console.log(line);
if (entitledLines.length > 0) {
  console.log(
    `\n| what (req/s: median (min–max) of ${samples} samples of ${seconds} s) | anonymous | entitlement token | token / anonymous | CPU µs/request anonymous | with token |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const line of entitledLines) console.log(line);
}
console.log("\n| server CPU per request, µs (median) | Packyard | nginx (all workers) | bare Node |");
console.log("|---|---:|---:|---:|");
for (const line of cpuLines) console.log(line);
console.log(
  `\nPackyard RSS: idle ${memory.idle!.toFixed(0)} MiB, after the load ${memory.afterLoad.toFixed(0)} MiB${
    memory.minuteLater !== undefined ? `, a minute later ${memory.minuteLater.toFixed(0)} MiB` : ""
  }`,
);
await stop(packyard);
process.exit(0);
