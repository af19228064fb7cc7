// Upload benchmark (issue 16, target 3): a 1 GiB file PUT with `curl -T` to a release's file
// endpoint of a real Packyard (local disk storage, SQLite, plan limits on) over loopback,
// against `openssl dgst -sha256` of the same file (the target: at least 0.5 of its speed),
// `sha256sum` (for reference), `dd … conv=fsync` (writing the same bytes durably to the same
// disk: the floor an upload that is stored before it is acknowledged cannot beat) and a bare
// Node.js server (bare-upload.ts: the same PUT received, hashed, written and fsynced with no
// framework, database or checks — what the runtime gives the straightforward way). Samples are
// interleaved (Packyard, bare Node, openssl, sha256sum, dd, Packyard, …) so the shared machine's
// load falls on all alike; each waits for a quiet machine first and records the others' CPU.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/upload/run.ts [--runs 5] [--size-mib 1024] [--dir /tmp/packyard-bench-upload]
//                            [--quiet-wait 2] [--out bench/upload/results/latest.json]
//
// Packyard runs as a child process (server-child.ts); its RSS is read from /proc before the
// first sample, after every sample, and its peak (VmHWM, never reset) at the end. No garbage
// collection is forced. After each Packyard sample (not timed) the run waits for the digests
// the upload left for later (sha512, sha1, md5: decision 036) and reports that time too, then
// deletes the file so the next sample stores it anew.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { randomFillSync } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  accounted,
  peakRssKb,
  processCpuMs,
  rssKb,
  type Sample,
  type Summary,
  summarize,
  timeCommand,
  waitForQuiet,
} from "../lib/proc.ts";
import { commitOf, logger, machineInfo, missingTools, toolVersion } from "../lib/run-info.ts";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    "size-mib": { type: "string", default: "1024" },
    dir: { type: "string", default: "/tmp/packyard-bench-upload" },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
    "quiet-wait": { type: "string", default: "2" },
  },
});
const runs = Number(args.runs);
const bytes = Number(args["size-mib"]) * 1024 * 1024;
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
const scratch = join(dir, "scratch");
const log = logger();

const missing = missingTools(["curl", "openssl", "sha256sum", "dd"]);
if (missing.length) throw new Error(`missing: ${missing.join(", ")}`);
mkdirSync(scratch, { recursive: true });

/** The file: random bytes, made once and kept in `dir` for later runs. */
function testFile(): string {
  const path = join(dir, `random-${bytes}.bin`);
  if (existsSync(path) && statSync(path).size === bytes) return path;
  log(`writing ${bytes} random bytes to ${path}`);
  const fd = openSync(`${path}.part`, "w");
  const block = Buffer.alloc(8 * 1024 * 1024);
  for (let written = 0; written < bytes; written += block.length) {
    randomFillSync(block);
    writeSync(fd, block, 0, Math.min(block.length, bytes - written));
  }
  closeSync(fd);
  rmSync(path, { force: true });
  renameSync(`${path}.part`, path);
  return path;
}

interface Child {
  process: ChildProcess;
  url: string;
  token: string;
  slug: string;
}

function startChild(dataDir: string): Promise<Child> {
  const child = fork(join(import.meta.dirname, "server-child.ts"), [dataDir], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { url: string; token: string; slug: string }) =>
      resolve({ process: child, ...m }),
    );
    child.once("exit", (code) => reject(new Error(`server child exited ${code}`)));
  });
}

function ask(child: Child, cmd: string): Promise<{ ms: number }> {
  return new Promise((resolve) => {
    child.process.once("message", (m: { ms: number }) => resolve(m));
    child.process.send({ cmd });
  });
}

const mbPerS = (ms: number) => bytes / 1e6 / (ms / 1000);

/** bare-upload.ts on a free port, writing under `dir`. */
function startBare(dir: string): Promise<{ process: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "bare-upload.ts"), dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", (data: Buffer) =>
      resolve({ process: child, url: `http://127.0.0.1:${data.toString().trim()}/upload` }),
    );
    child.once("exit", (code) => reject(new Error(`bare upload server exited ${code}`)));
  });
}

async function main() {
  const file = testFile();
  const dataDir = join(dir, "packyard-data");
  rmSync(dataDir, { recursive: true, force: true });
  const child = await startChild(dataDir);
  const pid = child.process.pid!;
  const rssStartKb = rssKb(pid);
  log(`Packyard at ${child.url} (pid ${pid}), RSS ${Math.round(rssStartKb / 1024)} MiB`);

  const bare = await startBare(scratch);
  const barePid = bare.process.pid!;
  const samples: Record<string, Sample[]> = { packyard: [], bare: [], openssl: [], sha256sum: [], dd: [] };
  const laterDigestsMs: number[] = [];
  const rssAfterMiB: number[] = [];

  /** `curl -T` of the file to `url`, with the receiving server's CPU (process `server`) and RSS. */
  const upload = (url: string, server: number, headers: string[] = []): Sample => {
    const cpuBefore = processCpuMs(server);
    const curl = timeCommand(["curl", "-sS", "-f", "-o", "/dev/null", "-T", file, ...headers, url], {
      scratch,
    });
    const serverCpuMs = processCpuMs(server) - cpuBefore;
    return {
      ms: curl.ms,
      peakRssKb: peakRssKb(server),
      extra: {
        "CPU ms": (curl.extra?.["CPU ms"] ?? 0) + serverCpuMs,
        "server CPU ms": serverCpuMs,
        "curl CPU ms": curl.extra?.["CPU ms"] ?? 0,
        "server RSS after MiB": rssKb(server) / 1024,
      },
    };
  };
  const packyardSample = async (i: number): Promise<Sample> =>
    upload(`${child.url}/api/v1/projects/${child.slug}/releases/1.0.${i}/files/big.bin`, pid, [
      "-H",
      `authorization: Bearer ${child.token}`,
    ]);
  const afterPackyard = async (i: number) => {
    laterDigestsMs.push((await ask(child, "digests")).ms);
    rssAfterMiB.push(rssKb(pid) / 1024);
    const url = `${child.url}/api/v1/projects/${child.slug}/releases/1.0.${i}/files/big.bin`;
    const res = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${child.token}` } });
    if (res.status !== 204) throw new Error(`delete: ${res.status} ${await res.text()}`);
  };

  for (let i = 0; i < runs; i++) {
    await waitForQuiet(quietWaitMs);
    samples.packyard!.push(await accounted(() => packyardSample(i)));
    await afterPackyard(i);
    await waitForQuiet(quietWaitMs);
    samples.bare!.push(await accounted(async () => upload(bare.url, barePid)));
    await waitForQuiet(quietWaitMs);
    samples.openssl!.push(
      await accounted(() => timeCommand(["openssl", "dgst", "-sha256", file], { scratch })),
    );
    await waitForQuiet(quietWaitMs);
    samples.sha256sum!.push(await accounted(() => timeCommand(["sha256sum", file], { scratch })));
    await waitForQuiet(quietWaitMs);
    const copy = join(scratch, "dd.bin");
    samples.dd!.push(
      await accounted(() =>
        timeCommand(["dd", `if=${file}`, `of=${copy}`, "bs=4M", "conv=fsync", "status=none"], { scratch }),
      ),
    );
    rmSync(copy, { force: true });
    const p = samples.packyard!.at(-1)!;
    log(
      `round ${i + 1}/${runs}: Packyard ${mbPerS(p.ms).toFixed(0)} MB/s (others ${p.extra?.["others' CPU %"]?.toFixed(0)}%), ` +
        `bare Node ${mbPerS(samples.bare!.at(-1)!.ms).toFixed(0)}, ` +
        `openssl ${mbPerS(samples.openssl!.at(-1)!.ms).toFixed(0)}, sha256sum ${mbPerS(samples.sha256sum!.at(-1)!.ms).toFixed(0)}, ` +
        `dd ${mbPerS(samples.dd!.at(-1)!.ms).toFixed(0)} MB/s; later digests ${laterDigestsMs.at(-1)!.toFixed(0)} ms`,
    );
  }
  const peakKb = peakRssKb(pid);
  await new Promise<void>((r) => {
    bare.process.once("exit", () => r());
    bare.process.kill("SIGTERM");
  });
  await new Promise<void>((r) => {
    child.process.once("exit", () => r());
    child.process.send({ cmd: "stop" });
  });
  rmSync(dataDir, { recursive: true, force: true });

  const speed = (s: Sample[]) => summarize(s.map((x) => mbPerS(x.ms)));
  const extra = (s: Sample[], key: string) => summarize(s.map((x) => x.extra?.[key] ?? 0));
  const systems = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [
      name,
      {
        mbPerS: speed(s),
        ms: summarize(s.map((x) => x.ms)),
        cpuMs: extra(s, "CPU ms"),
        othersCpuPercent: extra(s, "others' CPU %"),
        samples: s,
      },
    ]),
  );
  const packyard = systems.packyard!.mbPerS;
  const openssl = systems.openssl!.mbPerS;
  const result = {
    date: new Date().toISOString(),
    commit: commitOf(args.commit),
    machine: machineInfo(),
    tools: {
      node: process.version,
      curl: toolVersion(["curl", "--version"], /curl (\S+)/),
      openssl: toolVersion(["openssl", "version"], /OpenSSL (\S+)/),
    },
    bytes,
    runs,
    systems,
    ratio: {
      medianToMedian: packyard.median / openssl.median,
      /** Each Packyard sample against the openssl sample taken right after it. */
      paired: summarize(
        systems.packyard!.samples.map((p, i) => mbPerS(p.ms) / mbPerS(systems.openssl!.samples[i]!.ms)),
      ),
      slowestToMedian: packyard.min / openssl.median,
      target: 0.5,
      /** Packyard against the bare Node server, medians and round by round. */
      toBare: packyard.median / systems.bare!.mbPerS.median,
      toBarePaired: summarize(
        systems.packyard!.samples.map((p, i) => mbPerS(p.ms) / mbPerS(systems.bare!.samples[i]!.ms)),
      ),
      /** The bare Node server against openssl: what the runtime reaches of the target's reference. */
      bareToOpenssl: systems.bare!.mbPerS.median / openssl.median,
    },
    server: {
      rssStartMiB: rssStartKb / 1024,
      rssAfterEachMiB: rssAfterMiB,
      peakRssMiB: peakKb / 1024,
      laterDigestsMs: summarize(laterDigestsMs),
    },
  };
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  const md = renderMarkdown(result);
  writeFileSync(args.out.replace(/\.json$/, ".md"), md);
  process.stdout.write(md);
}

const fmt = (s: Summary, digits = 0) =>
  `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

function renderMarkdown(r: {
  date: string;
  commit: string;
  bytes: number;
  runs: number;
  systems: Record<string, { mbPerS: Summary; ms: Summary; cpuMs: Summary; othersCpuPercent: Summary }>;
  ratio: {
    medianToMedian: number;
    paired: Summary;
    slowestToMedian: number;
    target: number;
    toBare: number;
    toBarePaired: Summary;
    bareToOpenssl: number;
  };
  server: { rssStartMiB: number; rssAfterEachMiB: number[]; peakRssMiB: number; laterDigestsMs: Summary };
}): string {
  const names: Record<string, string> = {
    packyard: "Packyard: `curl -T` → PUT …/files/big.bin (stored, fsynced, recorded)",
    bare: "bare Node.js server: `curl -T` → PUT, SHA-256, 2 MiB writes, fsync (no framework, no database)",
    openssl: "`openssl dgst -sha256` of the file",
    sha256sum: "`sha256sum` of the file",
    dd: "`dd bs=4M conv=fsync` of the file to the same disk (write floor, no hash)",
  };
  const lines = [
    `Upload of ${(r.bytes / 2 ** 20).toFixed(0)} MiB, ${r.runs} interleaved samples each, ${r.date}, commit ${r.commit}.`,
    "",
    "| What | MB/s median (min–max) | wall ms median (min–max) | CPU ms median | others' CPU % median (max) |",
    "|---|---|---|---|---|",
    ...Object.entries(r.systems).map(
      ([name, s]) =>
        `| ${names[name] ?? name} | ${fmt(s.mbPerS)} | ${fmt(s.ms)} | ${s.cpuMs.median.toFixed(0)} | ${s.othersCpuPercent.median.toFixed(0)} (${s.othersCpuPercent.max.toFixed(0)}) |`,
    ),
    "",
    `Ratio Packyard / openssl (medians): **${r.ratio.medianToMedian.toFixed(2)}** (target ≥ ${r.ratio.target}); round by round (each Packyard sample / the openssl sample after it): ${fmt(r.ratio.paired, 2)}; slowest Packyard sample / openssl median: ${r.ratio.slowestToMedian.toFixed(2)}.`,
    `Packyard / the bare Node server (medians): **${r.ratio.toBare.toFixed(2)}**; round by round: ${fmt(r.ratio.toBarePaired, 2)}. The bare server / openssl: ${r.ratio.bareToOpenssl.toFixed(2)}.`,
    "",
    `Server RSS: ${r.server.rssStartMiB.toFixed(0)} MiB before the first upload, ${r.server.rssAfterEachMiB.map((x) => x.toFixed(0)).join(", ")} MiB after each, peak ${r.server.peakRssMiB.toFixed(0)} MiB.`,
    `sha512, sha1 and md5 filled in after each upload (off the request path): ${fmt(r.server.laterDigestsMs)} ms.`,
    "",
  ];
  return lines.join("\n");
}

await main();
