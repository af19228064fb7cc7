// The driver's side of Packyard (APT and YUM benchmarks): seeds a data directory in one child
// process, then serves it from a fresh child process that this process talks to over IPC (for
// in-process steps) and over HTTP (for the end-to-end publish), reading that child's memory from
// /proc. What is format-specific — which entry file to poll, how to check the new index — is an
// EntryProbe.
import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { START_NODE_FLAGS } from "../../apps/web/test/server-process.ts";
import { summarizeCpuProfile } from "./cpuprofile.ts";
import { chunkSums } from "./measure.ts";
import type { SeedState } from "./packyard-child.ts";
import { machineBusyMs, peakRssKb, processCpuMs, resetPeakRss, type Sample, summarize } from "./proc.ts";

const childScript = join(import.meta.dirname, "packyard-child.ts");

/** A package file on disk (.deb or .rpm) and the package name it holds. */
export interface PackageFile {
  name: string;
  filename: string;
  path: string;
}

/** The format-specific part of (b): what to poll, and what to check once it changed. */
export interface EntryProbe {
  /** The signed entry file, relative to /dl/<user>/<project>/: "deb/dists/stable/InRelease", … */
  entry: string;
  /** Identifies the package index the entry file names (its hash): a change means a new index. */
  fingerprint(entry: string): string;
  /** Untimed, after the clock stopped: the index named by `entry` lists `file`'s package. */
  verify(server: PackyardServer, entry: string, file: PackageFile): Promise<void>;
}

/**
 * The child's environment: this process's, without TEST_DATABASE_URL (with it the test helper
 * would put the child on a throwaway PostgreSQL database of its own, even in embedded mode),
 * plus `env`. The child passes DATABASE_URL, SECRET, PLAN_LIMITS and S3_* on to the server
 * (packyard-child.ts); without them it runs embedded (SQLite, local disk).
 */
function childEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { TEST_DATABASE_URL: _, ...inherited } = process.env;
  return { ...inherited, ...env };
}

/**
 * Seeds dataDir with the packages (see packyard-child.ts); returns the child's report. With
 * `extend`, dataDir was seeded before (its state in scratch/packyard-state.json) and the files
 * are added to the same project.
 */
export function seedPackyard(
  dataDir: string,
  files: readonly PackageFile[],
  scratch: string,
  options: { env?: Record<string, string>; extend?: boolean } = {},
): SeedState {
  const list = join(scratch, "packyard-files.json");
  const state = join(scratch, "packyard-state.json");
  writeFileSync(list, JSON.stringify(files.map((d) => ({ filename: d.filename, path: d.path }))));
  const mode = options.extend ? "extend" : "seed";
  const result = spawnSync(process.execPath, [childScript, mode, dataDir, list, state], {
    encoding: "utf8",
    env: childEnv(options.env),
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`seeding Packyard failed (exit ${result.status})`);
  return JSON.parse(readFileSync(state, "utf8")) as SeedState;
}

/** When addOne's clock started, the PUT was answered and the new entry file was seen (performance.now()). */
export interface AddMarks {
  started?: number;
  answered?: number;
  ended?: number;
}

type Reply = { ok: boolean; error?: string; [key: string]: unknown };

export class PackyardServer {
  readonly #child: ChildProcess;
  readonly state: SeedState;
  url = "";
  pid = 0;
  idleRssKb = 0;
  #pending: ((reply: Reply) => void)[] = [];

  private constructor(child: ChildProcess, state: SeedState) {
    this.#child = child;
    this.state = state;
    child.on("message", (reply: Reply) => this.#pending.shift()?.(reply));
  }

  static async start(
    dataDir: string,
    scratch: string,
    options: { execArgv?: string[]; env?: Record<string, string> } = {},
  ) {
    const stateFile = join(scratch, "packyard-state.json");
    const state = JSON.parse(readFileSync(stateFile, "utf8")) as SeedState;
    const child = fork(childScript, ["serve", dataDir, stateFile], {
      execArgv: [...START_NODE_FLAGS, ...(options.execArgv ?? [])],
      env: childEnv(options.env),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const server = new PackyardServer(child, state);
    const ready = await server.#next();
    server.url = ready.url as string;
    server.pid = ready.pid as number;
    server.idleRssKb = ready.rssKb as number;
    return server;
  }

  /**
   * (a), cold: a fresh server process on dataDir, its first publish, then stopped — nothing the
   * builders keep in memory between builds (caches of the previous build) and no JIT warm-up.
   */
  static async coldBuild(dataDir: string, scratch: string): Promise<Sample> {
    const server = await PackyardServer.start(dataDir, scratch);
    try {
      return await server.fullBuild();
    } finally {
      await server.stop();
    }
  }

  #next(): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`Packyard child exited (${code})`));
      this.#child.once("exit", onExit);
      this.#pending.push((reply) => {
        this.#child.off("exit", onExit);
        if (reply.ok) resolve(reply);
        else reject(new Error(`Packyard child: ${reply.error}`));
      });
    });
  }

  async call(cmd: string, extra: Record<string, unknown> = {}): Promise<Reply> {
    const reply = this.#next();
    this.#child.send({ cmd, ...extra });
    return reply;
  }

  /** (a) The publisher's publish(projectId) inside the server process, timed there. */
  async fullBuild(): Promise<Sample> {
    const reply = await this.call("publish");
    return {
      ms: reply.ms as number,
      peakRssKb: reply.peakRssKb as number,
      extra: {
        "CPU ms": reply.cpuMs as number,
        "machine CPU ms": reply.machineCpuMs as number,
        "RSS before, MiB": (reply.rssBeforeKb as number) / 1024,
      },
    };
  }

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${this.state.token}` };
  }

  /** GET of a path under the project's download root, /dl/<user>/<project>/. */
  download(path: string): Promise<Response> {
    return fetch(`${this.url}/dl/${this.state.username}/${this.state.slug}/${path}`);
  }

  async #entry(probe: EntryProbe): Promise<string> {
    const res = await this.download(probe.entry);
    if (res.status !== 200) throw new Error(`${probe.entry}: ${res.status}`);
    return res.text();
  }

  /**
   * (b) One more package, end to end: the clock starts as the HTTP PUT of the package starts
   * and stops when GET of the repository's signed entry file (InRelease, repomd.xml) serves one
   * whose package index is the new one (polled, so an asynchronous publish would be measured the
   * same way). Then, untimed, the probe checks that index lists the new package.
   */
  async addOne(
    file: PackageFile,
    version: string,
    probe: EntryProbe,
    options: { settle?: boolean; marks?: AddMarks } = {},
  ): Promise<Sample> {
    const bytes = readFileSync(file.path);
    const before = probe.fingerprint(await this.#entry(probe));
    // A fresh high-water mark first (left out while CPU-profiling); no forced GC.
    const settled = options.settle === false ? { rssKb: 0 } : await this.call("settle");
    const serverCpu = processCpuMs(this.pid);
    const clientCpu = process.cpuUsage();
    const machineCpu = machineBusyMs();
    const started = performance.now();
    if (options.marks) options.marks.started = started;
    const res = await fetch(
      `${this.url}/api/v1/projects/${this.state.slug}/releases/${version}/files/${file.filename}`,
      { method: "PUT", headers: this.#headers(), body: bytes },
    );
    const body = await res.text();
    const answered = performance.now();
    if (res.status !== 201) throw new Error(`PUT ${file.filename}: ${res.status} ${body}`);
    let current = before;
    let entry = "";
    let polls = 0;
    while (current === before) {
      if (performance.now() - started > 120_000) throw new Error(`the new ${probe.entry} never appeared`);
      if (polls++ > 0) await new Promise((r) => setTimeout(r, 1));
      entry = await this.#entry(probe);
      current = probe.fingerprint(entry);
    }
    const ms = performance.now() - started;
    if (options.marks) Object.assign(options.marks, { answered, ended: started + ms });
    const machine = machineBusyMs() - machineCpu;
    const peak = peakRssKb(this.pid);
    const client = process.cpuUsage(clientCpu);
    const cpuMs = processCpuMs(this.pid) - serverCpu + (client.user + client.system) / 1000;
    await probe.verify(this, entry, file);
    return {
      ms,
      peakRssKb: peak,
      extra: {
        "CPU ms": cpuMs,
        "machine CPU ms": machine,
        "PUT answered ms": answered - started,
        [`${probe.entry.split("/").pop()} polls`]: polls,
        "RSS before, MiB": (settled.rssKb as number) / 1024,
      },
    };
  }

  /**
   * (b) again, instrumented: timers around a few server methods and a V8 CPU profile of the
   * server (written to `cpuFile`) over one upload of each file. Returns the end-to-end and
   * PUT-answered times, each timer's calls and total per upload, and the profile's summary.
   */
  async profileAdds(
    files: readonly PackageFile[],
    probe: EntryProbe,
    measure: (count: number, step: (i: number) => Promise<Sample>) => Promise<Sample[]>,
    cpuFile: string,
  ) {
    const runs = files.length;
    await this.call("instrument");
    await this.call("cpuprofile-start");
    const profiled = await measure(runs, (i) => this.addOne(files[i]!, `3.0.${i}`, probe, { settle: false }));
    await this.call("cpuprofile-stop", { file: cpuFile });
    const timings = (await this.call("timings")).timings as Record<string, number[]>;
    return {
      endToEnd: summarize(profiled.map((s) => s.ms)),
      putAnswered: summarize(profiled.map((s) => s.extra?.["PUT answered ms"] ?? 0)),
      perCall: Object.fromEntries(
        Object.entries(timings).map(([k, v]) => [
          k,
          { calls: v.length / runs, totalPerUpload: summarize(chunkSums(v, v.length / runs)) },
        ]),
      ),
      cpu: summarizeCpuProfile(JSON.parse(readFileSync(cpuFile, "utf8")), runs),
    };
  }

  /**
   * Waits for the server's start-up housekeeping (the leftover collection in its first quiet
   * moment; maintenance.ts) before the samples of a running
   * server, which would otherwise meet it at a moment the machine's timing decides. Returns the
   * ms waited. Not for the first build in a fresh process, which is measured as it comes.
   */
  async housekeeping(): Promise<number> {
    return (await this.call("housekeeping")).ms as number;
  }

  /** A warm-up request each for the upload route and the entry file, so the first sample pays no lazy loading. */
  async warmUp(probe: EntryProbe): Promise<void> {
    await this.#entry(probe);
    const res = await fetch(`${this.url}/api/v1/projects/${this.state.slug}`, { headers: this.#headers() });
    await res.text();
  }

  resetPeak(): void {
    resetPeakRss(this.pid);
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.#child.once("exit", r));
    await this.call("stop").catch(() => {});
    await exited;
  }
}
