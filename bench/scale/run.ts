// Scale-mode benchmark (issues 15 and 44): Packyard on PostgreSQL + S3-compatible storage
// (s3rver) against the embedded mode (SQLite + local disk) — also with latency added to every S3
// request, with the S3 requests and PostgreSQL round trips of each publish counted — uploads
// through three servers until the signed index lists them all, and upload throughput of one
// server against three behind a round-robin proxy. See README.md beside this file.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   .ci/with-postgres node bench/scale/run.ts [--sizes 10000,50000] [--runs 9] [--s3-latency 20]
//        [--uploads-three 100] [--parts b,three,throughput] [--uploads 200] [--upload-mib 1]
//        [--debs 100] [--concurrency 8] [--rounds 4]
//        [--dir /tmp/packyard-bench-scale] [--quiet-wait 2] [--keep]
//        [--out bench/scale/results/latest.json]
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import pg from "pg";
import { createPostgresDatabase } from "../../apps/web/test/harness.ts";
import { RoundRobinProxy } from "../../apps/web/test/round-robin-proxy.ts";
import { loadS3rver, startS3rver, type TestS3 } from "../../apps/web/test/s3rver.ts";
import {
  PROCESS_TEST_SECRET,
  type ServerProcess,
  startServerProcess,
} from "../../apps/web/test/server-process.ts";
import { writeBenchDebs, writeNewDebs } from "../apt/lib/debs.ts";
import { aptEntry, packagesHash } from "../apt/lib/packyard.ts";
import { summarizeCpuProfile } from "../lib/cpuprofile.ts";
import { LatencyProxy, sequentialRoundTrips } from "../lib/latency-proxy.ts";
import { chunkSums, type Row, row } from "../lib/measure.ts";
import { type AddMarks, type PackageFile, PackyardServer, seedPackyard } from "../lib/packyard.ts";
import { PgCountProxy } from "../lib/pg-count-proxy.ts";
import { accounted, machineBusyMs, type Sample, type Summary, summarize, waitForQuiet } from "../lib/proc.ts";
import { checkPackyardPrerequisites, commitOf, logger, machineInfo } from "../lib/run-info.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,50000" },
    size: { type: "string" },
    runs: { type: "string", default: "9" },
    "s3-latency": { type: "string", default: "20" },
    "uploads-three": { type: "string", default: "100" },
    uploads: { type: "string", default: "200" },
    "upload-mib": { type: "string", default: "1" },
    debs: { type: "string", default: "100" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "4" },
    parts: { type: "string", default: "b,three" },
    dir: { type: "string", default: "/tmp/packyard-bench-scale" },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
    "quiet-wait": { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
  },
});

// --size N (the option before issue 44) is --sizes N.
const sizes = (args.size ?? args.sizes).split(",").map(Number);
const runs = Number(args.runs);
const s3LatencyMs = Number(args["s3-latency"]);
const uploadsThree = Number(args["uploads-three"]);
const uploads = Number(args.uploads);
const uploadBytes = Number(args["upload-mib"]) * 1024 * 1024;
const debCount = Number(args.debs);
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const parts = new Set(args.parts.split(","));
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sizes: ${args.sizes}`);
const log = logger();
const webDir = join(import.meta.dirname, "../../apps/web");

// ---------------------------------------------------------------------------------------------
// CPU of the other processes involved: s3rver and the PostgreSQL server, read from /proc.

const TICK_MS = 10;

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone
  }
}

/** utime + stime (+ cutime + cstime of reaped children when `children`), ms. */
function cpuMs(pid: number, children = false): number {
  const f = statFields(pid);
  if (!f) return 0;
  const own = Number(f[11]) + Number(f[12]);
  return (own + (children ? Number(f[13]) + Number(f[14]) : 0)) * TICK_MS;
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
};

/** The postmaster of the PostgreSQL server listening on `port` (started by .ci/with-postgres). */
function postmasterPid(port: string): number {
  const pid = allPids().find((p) => {
    const line = cmdline(p);
    return /\/postgres( |$)/.test(line) && line.includes(` -p ${port} `);
  });
  if (!pid) throw new Error(`no postmaster listening on port ${port} found in /proc`);
  return pid;
}

/** CPU of the whole PostgreSQL server so far: the postmaster, its reaped and its live backends. */
function postgresCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster, true);
  for (const pid of allPids()) {
    if (statFields(pid)?.[1] === String(postmaster)) total += cpuMs(pid);
  }
  return total;
}

/** The s3rver child startS3rver spawned from this process. */
function s3rverPid(): number {
  const pid = allPids().find(
    (p) => statFields(p)?.[1] === String(process.pid) && cmdline(p).includes("--openssl-legacy-provider"),
  );
  if (!pid) throw new Error("s3rver's process not found");
  return pid;
}

interface Backends {
  s3rver: number;
  postmaster: number;
}

function backendCpu(b: Backends) {
  return { s3rver: cpuMs(b.s3rver), postgres: postgresCpuMs(b.postmaster) };
}

// ---------------------------------------------------------------------------------------------
// Part 1: (b) at N packages, embedded against scale mode, interleaved.

interface Mode {
  label: string;
  server: PackyardServer;
}

/** addOne with s3rver's and PostgreSQL's CPU during the sample added to its own. */
async function addOneAccounted(
  mode: Mode,
  file: PackageFile,
  version: string,
  b: Backends,
  settle = true,
  marks?: AddMarks,
) {
  await waitForQuiet(quietWaitMs);
  return accounted(async () => {
    const before = backendCpu(b);
    const sample = await mode.server.addOne(file, version, aptEntry, { settle, marks });
    const after = backendCpu(b);
    const s3 = after.s3rver - before.s3rver;
    const pgCpu = after.postgres - before.postgres;
    const own = sample.extra?.["CPU ms"] ?? 0;
    sample.extra = {
      ...sample.extra,
      "Packyard + client CPU ms": own,
      "s3rver CPU ms": s3,
      "PostgreSQL CPU ms": pgCpu,
      "CPU ms": own + s3 + pgCpu,
    };
    return sample;
  });
}

function s3Client(s3: TestS3): S3Client {
  return new S3Client({
    endpoint: s3.settings.endpoint,
    region: s3.settings.region,
    credentials: s3.settings.credentials,
    forcePathStyle: true,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/**
 * s3rver 3.7.1 removes a key's directory when its DeleteObject leaves it empty, and a PutObject
 * into that directory at the same moment fails with ENOENT — an uncaught error that ends s3rver.
 * Packyard's stores put and delete temporary objects under <prefix>{blobs,indexes}/tmp/
 * concurrently, so seeding 10,000 packages 8 at a time meets it. One object kept in each of those
 * directories keeps them from ever being empty (maintenance removes only temporary objects older
 * than its grace period, hours).
 */
async function keepS3rverDirectories(s3: TestS3, prefix: string) {
  const client = s3Client(s3);
  for (const store of ["blobs", "indexes"]) {
    await client.send(
      new PutObjectCommand({ Bucket: s3.settings.bucket, Key: `${prefix}${store}/tmp/bench-keep`, Body: "" }),
    );
  }
  client.destroy();
}

/** s3rver's own speed: one request of each kind the stores make, from this process, and the local disk's. */
async function s3rverRoundTrips(s3: TestS3, count: number) {
  const client = s3Client(s3);
  const Bucket = s3.settings.bucket;
  const small = randomBytes(1024);
  const large = randomBytes(1024 * 1024);
  const times: Record<string, number[]> = {};
  const time = async (label: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    times[label] ??= [];
    times[label].push(performance.now() - started);
  };
  const disk = join(dir, "disk-round-trip");
  mkdirSync(disk, { recursive: true });
  const diskWrite = (name: string, bytes: Buffer) => {
    const tmp = join(disk, `${name}.tmp`);
    const fd = openSync(tmp, "w");
    writeSync(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, join(disk, name));
    const dirFd = openSync(disk, "r");
    fsyncSync(dirFd);
    closeSync(dirFd);
  };
  for (let i = 0; i < count + 2; i++) {
    const key = `round-trip/${i}`;
    await time("PutObject 1 KiB", () => client.send(new PutObjectCommand({ Bucket, Key: key, Body: small })));
    await time("HeadObject", () => client.send(new HeadObjectCommand({ Bucket, Key: key })));
    await time("HeadObject, missing key (404)", () =>
      client.send(new HeadObjectCommand({ Bucket, Key: `${key}.missing` })).catch(() => undefined),
    );
    await time("GetObject 1 KiB (body read)", async () => {
      const got = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      await got.Body!.transformToByteArray();
    });
    await time("CopyObject 1 KiB", () =>
      client.send(new CopyObjectCommand({ Bucket, Key: `${key}.copy`, CopySource: `${Bucket}/${key}` })),
    );
    await time("DeleteObject", () => client.send(new DeleteObjectCommand({ Bucket, Key: `${key}.copy` })));
    await time("PutObject 1 MiB", () =>
      client.send(new PutObjectCommand({ Bucket, Key: `${key}.large`, Body: large })),
    );
    await time("local disk: write 1 KiB + fsync + rename + dir fsync", async () => diskWrite(`s${i}`, small));
    await time("local disk: write 1 MiB + fsync + rename + dir fsync", async () => diskWrite(`l${i}`, large));
  }
  client.destroy();
  rmSync(disk, { recursive: true, force: true });
  // The first two of each are warm-up.
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, summarize(v.slice(2))]));
}

/** The three stretches of a sample a request or round trip can fall in. */
interface ByPhase {
  /** From the PUT to its answer. */
  put: number;
  /** From the answer to the new InRelease seen (the InRelease polls, a publish after the answer). */
  untilEntry: number;
  /** After it, until the proxies were idle (work the publish left for later; also the benchmark's check of Packages.gz). */
  after: number;
}

/** What one sample of a counted mode asked of S3 and PostgreSQL, from the proxies' logs. */
interface Counts {
  /** "<operation> <what for>[ · <phase>]" → requests. */
  s3: Record<string, number>;
  s3ByPhase: ByPhase;
  /** Of the requests from the PUT to the new InRelease: stretches with at least one in flight. */
  s3Sequential: number;
  /** "<statement's first 60 characters>[ · <phase>]" → round trips. */
  pg: Record<string, number>;
  pgByPhase: ByPhase;
}

const PHASE_SUFFIX: Record<keyof ByPhase, string> = {
  put: "",
  untilEntry: " · after the answer",
  after: " · after the InRelease",
};

/** Waits (up to 3 s) until neither proxy has seen traffic for 300 ms: the sample's requests are all in their logs. */
async function proxiesIdle(s3Proxy: LatencyProxy, pgProxy: PgCountProxy) {
  const deadline = performance.now() + 3000;
  while (performance.now() < deadline) {
    const last = Math.max(s3Proxy.lastActivity, pgProxy.lastActivity);
    if (performance.now() - last >= 300) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The Counts of the proxies' logs since marks.started (the sample's requests), each by what it was for and when. */
async function countSample(
  s3Proxy: LatencyProxy,
  pgProxy: PgCountProxy,
  marks: AddMarks,
  deb: PackageFile,
  prefix: string,
  db: pg.Client,
): Promise<Counts> {
  await proxiesIdle(s3Proxy, pgProxy);
  const started = marks.started!;
  const phaseOf = (at: number): keyof ByPhase =>
    at <= marks.answered! ? "put" : at <= marks.ended! ? "untilEntry" : "after";
  const s3Log = s3Proxy.take().filter((r) => r.started >= started);
  const pgLog = pgProxy.take().filter((r) => r.at >= started);
  if (process.env.SCALE_TIMELINE) {
    const events = [
      ...s3Log.map((r) => ({
        at: r.started,
        what: `S3 ${r.kind} ${r.key.slice(-30)} (${(r.ended - r.started).toFixed(1)} ms)`,
      })),
      ...pgLog.map((r) => ({ at: r.at, what: `PG ${r.statement.slice(0, 70)}` })),
      { at: marks.answered!, what: "== PUT answered" },
      { at: marks.ended!, what: "== InRelease seen" },
    ].sort((a, b) => a.at - b.at);
    console.log(events.map((e) => `${(e.at - started).toFixed(1).padStart(7)} ${e.what}`).join("\n"));
  }
  const debSha = createHash("sha256").update(readFileSync(deb.path)).digest("hex");
  const keyed = s3Log.map((r) => ({ r, key: r.key.startsWith(prefix) ? r.key.slice(prefix.length) : r.key }));
  const shas = [
    ...new Set(keyed.flatMap(({ key }) => /^indexes\/sha256\/([0-9a-f]{64})$/.exec(key)?.[1] ?? [])),
  ];
  const names = new Map<string, string>();
  if (shas.length) {
    // Named after the sample, by the rows the publish wrote (untimed; straight to PostgreSQL).
    try {
      for (const r of (await db.query("select sha256 from index_blob where sha256 = any($1)", [shas])).rows)
        names.set(r.sha256, "index block");
      for (const r of (
        await db.query("select distinct path, sha256 from repo_index_file where sha256 = any($1)", [shas])
      ).rows)
        names.set(r.sha256, `index ${r.path}`);
    } catch (error) {
      log(`naming index keys failed (left unnamed): ${(error as Error).message}`);
    }
  }
  const purpose = (key: string) => {
    const [store, ...rest] = key.split("/");
    const tail = rest.join("/");
    if (tail.startsWith("tmp/")) return `${store}/tmp/… (staging the upload)`;
    if (tail === `sha256/${debSha}`) return "the package (blobs/sha256/<the .deb>)";
    if (tail.startsWith("sha256/"))
      return names.get(tail.slice(7)) ?? `${store}/sha256/… (not the .deb, unnamed)`;
    return key === "" ? "(the bucket)" : key;
  };
  const s3: Record<string, number> = {};
  const s3ByPhase: ByPhase = { put: 0, untilEntry: 0, after: 0 };
  for (const { r, key } of keyed) {
    const phase = phaseOf(r.started);
    const label = `${r.kind} ${purpose(key)}${PHASE_SUFFIX[phase]}`;
    s3[label] = (s3[label] ?? 0) + 1;
    s3ByPhase[phase]++;
  }
  const pgCounts: Record<string, number> = {};
  const pgByPhase: ByPhase = { put: 0, untilEntry: 0, after: 0 };
  for (const r of pgLog) {
    const phase = phaseOf(r.at);
    const label = `${r.statement.slice(0, 60)}${PHASE_SUFFIX[phase]}`;
    pgCounts[label] = (pgCounts[label] ?? 0) + 1;
    pgByPhase[phase]++;
  }
  return {
    s3,
    s3ByPhase,
    s3Sequential: sequentialRoundTrips(s3Log.filter((r) => r.started <= marks.ended!)),
    pg: pgCounts,
    pgByPhase,
  };
}

/** Median per sample of each label's count (0 in a sample without it), most frequent first. */
function medianCounts(all: readonly Record<string, number>[]): [string, number][] {
  const labels = [...new Set(all.flatMap((c) => Object.keys(c)))];
  return labels
    .map((label) => [label, summarize(all.map((c) => c[label] ?? 0)).median] as [string, number])
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

interface BMode extends Mode {
  /** ms the S3 proxy adds to each request during this mode's samples; undefined: not on S3. */
  s3DelayMs?: number;
}

const B_PREFIX = "bench-b/";

async function partB(s3: TestS3, b: Backends) {
  const scratch = join(dir, "b");
  const largest = Math.max(...sizes);
  log(`(b): writing ${largest} .deb files`);
  const debs = writeBenchDebs(join(scratch, "debs"), largest);
  const database = await createPostgresDatabase();
  const seedEnv = { ...s3.env, S3_PREFIX: B_PREFIX, DATABASE_URL: database.url };
  await keepS3rverDirectories(s3, B_PREFIX);
  // The scale-mode server reaches s3rver and PostgreSQL through the counting proxies (the
  // S3 one adds --s3-latency for the third mode); seeding goes straight to them.
  const s3Proxy = new LatencyProxy(s3.endpoint);
  const target = new URL(database.url);
  const pgProxy = new PgCountProxy(target.hostname, Number(target.port));
  const serveEnv = {
    ...seedEnv,
    S3_ENDPOINT: await s3Proxy.listen(),
    DATABASE_URL: await pgProxy.listen(database.url),
  };
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const bySize: BResult[] = [];
  let seeded = 0;
  try {
    for (const [sizeIndex, size] of [...sizes].sort((x, y) => x - y).entries()) {
      bySize.push(await bAtSize(size, sizeIndex, debs.slice(seeded, size), seeded > 0));
      seeded = size;
    }
  } finally {
    await db.end();
    await s3Proxy.close();
    await pgProxy.close();
    await database.drop();
  }
  log("(b): s3rver and local disk round trips");
  const roundTrips = await s3rverRoundTrips(s3, 30);
  return { sizes: bySize, s3LatencyMs, roundTrips };

  async function bAtSize(size: number, sizeIndex: number, more: PackageFile[], extend: boolean) {
    const labels = ["embedded", "scale", ...(s3LatencyMs > 0 ? [`scale + ${s3LatencyMs} ms S3`] : [])];
    const news = writeNewDebs(join(scratch, `new-${size}`), labels.length * runs + 2 * runs + 2, `s${size}`);
    let nextNew = 0;
    const setupSeconds: Record<string, number> = {};
    const modes: BMode[] = [];
    try {
      for (const [label, env] of [
        ["embedded", {}],
        ["scale", seedEnv],
      ] as const) {
        const modeScratch = join(scratch, label);
        mkdirSync(modeScratch, { recursive: true });
        log(
          `(b) ${label}: seeding ${extend ? `${more.length} more, to ` : ""}${size} packages through uploadFile`,
        );
        const seededState = seedPackyard(join(scratch, `data-${label}`), more, modeScratch, { env, extend });
        setupSeconds[`${label}: seed (uploadFile × N, 8 at a time)`] = seededState.seedMs / 1000;
        setupSeconds[`${label}: first publish`] = seededState.firstPublishMs / 1000;
        const server = await PackyardServer.start(join(scratch, `data-${label}`), modeScratch, {
          env: label === "scale" ? serveEnv : {},
        });
        if (label === "embedded") modes.push({ label, server });
        else {
          modes.push({ label, server, s3DelayMs: 0 });
          if (s3LatencyMs > 0) modes.push({ label: labels[2]!, server, s3DelayMs: s3LatencyMs });
        }
      }
      const version = (mode: number, i: number) => `${sizeIndex + 2}.${mode}.${i}`;
      for (const mode of modes.slice(0, 2)) {
        await mode.server.warmUp(aptEntry);
        // One unrecorded upload first, so the route's code is warm like a running server's.
        await mode.server.addOne(news[nextNew++]!, version(9, nextNew), aptEntry);
      }
      log(`(b) N = ${size}: ${runs} samples per mode (${labels.join(", ")}), interleaved`);
      const samples: Record<string, Sample[]> = Object.fromEntries(labels.map((l) => [l, []]));
      const counts: Record<string, Counts[]> = Object.fromEntries(labels.slice(1).map((l) => [l, []]));
      for (let i = 0; i < runs; i++) {
        // Each mode first, last and in between in turn.
        const order = modes.map((_, m) => modes[(m + i) % modes.length]!);
        if (i % 2) order.reverse();
        for (const mode of order) {
          const m = modes.indexOf(mode);
          const deb = news[nextNew++]!;
          const marks: AddMarks = {};
          if (mode.s3DelayMs !== undefined) s3Proxy.delayMs = mode.s3DelayMs;
          const sample = await addOneAccounted(mode, deb, version(m, i), b, true, marks);
          samples[mode.label]!.push(sample);
          if (mode.s3DelayMs === undefined) continue;
          const c = await countSample(s3Proxy, pgProxy, marks, deb, B_PREFIX, db);
          counts[mode.label]!.push(c);
          sample.extra = {
            ...sample.extra,
            "S3 requests": c.s3ByPhase.put + c.s3ByPhase.untilEntry,
            "S3 sequential round trips": c.s3Sequential,
            "S3 requests after the InRelease": c.s3ByPhase.after,
            "PostgreSQL round trips": c.pgByPhase.put + c.pgByPhase.untilEntry,
            "PostgreSQL round trips after the InRelease": c.pgByPhase.after,
          };
          log(
            `  ${mode.label} #${i + 1}: ${sample.ms.toFixed(1)} ms; S3 requests ${c.s3ByPhase.put} in the PUT + ${c.s3ByPhase.untilEntry} until the InRelease (${c.s3Sequential} sequential) + ${c.s3ByPhase.after} after; PostgreSQL round trips ${c.pgByPhase.put} + ${c.pgByPhase.untilEntry} + ${c.pgByPhase.after}`,
          );
        }
      }
      s3Proxy.delayMs = 0;
      const rows: Row[] = modes.map((mode) =>
        row(
          "b",
          mode.label,
          `${mode.s3DelayMs === undefined ? "SQLite + local disk" : "PostgreSQL + s3rver"}: HTTP PUT of the .deb → new InRelease served`,
          samples[mode.label]!,
        ),
      );
      const countSummary = Object.fromEntries(
        Object.entries(counts).map(([label, list]) => [
          label,
          {
            s3: medianCounts(list.map((c) => c.s3)),
            pg: medianCounts(list.map((c) => c.pg)),
            perSample: list,
          },
        ]),
      );

      log(`(b) N = ${size}: ${runs} more per mode with timers around the stores' calls`);
      const timedModes = modes.slice(0, 2);
      for (const mode of timedModes) {
        await mode.server.call("instrument");
        await mode.server.call("cpuprofile-start");
      }
      const timed: Record<string, Sample[]> = { embedded: [], scale: [] };
      for (let i = 0; i < runs; i++) {
        const order = i % 2 ? [...timedModes].reverse() : timedModes;
        for (const mode of order) {
          const m = modes.indexOf(mode) + 5;
          timed[mode.label]!.push(await addOneAccounted(mode, news[nextNew++]!, version(m, i), b, false));
        }
      }
      s3Proxy.take();
      pgProxy.take();
      const timers: Record<string, Timers> = {};
      for (const mode of timedModes) {
        const timings = (await mode.server.call("timings")).timings as Record<string, number[]>;
        const cpuFile = join(dir, `scale-b-${mode.label}-${size}.cpuprofile`);
        await mode.server.call("cpuprofile-stop", { file: cpuFile });
        timers[mode.label] = {
          cpu: summarizeCpuProfile(JSON.parse(readFileSync(cpuFile, "utf8")), runs),
          endToEnd: summarize(timed[mode.label]!.map((s) => s.ms)),
          perCall: Object.fromEntries(
            Object.entries(timings).map(([k, v]) => [
              k,
              { calls: v.length / runs, totalPerUpload: summarize(chunkSums(v, v.length / runs)) },
            ]),
          ),
        };
      }
      return { size, rows, setupSeconds, timers, counts: countSummary };
    } finally {
      for (const mode of modes.slice(0, 2)) await mode.server.stop();
    }
  }
}

interface BResult {
  size: number;
  rows: Row[];
  setupSeconds: Record<string, number>;
  timers: Record<string, Timers>;
  counts: Record<
    string,
    {
      s3: [string, number][];
      pg: [string, number][];
      perSample: Counts[];
    }
  >;
}

// ---------------------------------------------------------------------------------------------
// Part 2: upload throughput, one server against three behind a round-robin proxy.

interface Cluster {
  count: number;
  servers: ServerProcess[];
  proxy: RoundRobinProxy;
  url: string;
  token: string;
  drop: () => Promise<void>;
}

const USERNAME = "bench-owner";
const SLUG = "fleet";

async function startCluster(count: number, s3: TestS3, prefix = `throughput-${count}/`): Promise<Cluster> {
  const database = await createPostgresDatabase();
  const proxy = new RoundRobinProxy();
  const url = await proxy.listen();
  await keepS3rverDirectories(s3, prefix);
  const env = {
    ...s3.env,
    S3_PREFIX: prefix,
    DATABASE_URL: database.url,
    BASE_URL: url,
    LOG_LEVEL: "error",
    PLAN_LIMITS: "off",
  };
  // Started together: they take turns at the migrations.
  const servers = await Promise.all(Array.from({ length: count }, () => startServerProcess(env)));
  proxy.backends = servers.map((s) => s.url);
  const password = "a long bench password";
  execFileSync(
    process.execPath,
    [
      "server/cli.ts",
      "users",
      "create",
      "--email",
      `${USERNAME}@example.com`,
      "--username",
      USERNAME,
      "--password",
      password,
    ],
    {
      cwd: webDir,
      env: {
        ...process.env,
        ...env,
        SECRET: PROCESS_TEST_SECRET,
        DATA_DIR: servers[0]!.dataDir,
        LOG_LEVEL: "silent",
      },
    },
  );
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: `${USERNAME}@example.com`, password }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const key = await fetch(`${url}/api/v1/keys`, {
    method: "POST",
    headers: { cookie, origin: url, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", access: "publish", projects: "*", expiresInDays: null }),
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);
  const token = ((await key.json()) as { key: { key: string } }).key.key;
  const project = await fetch(`${url}/api/v1/projects`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ slug: SLUG, name: "Fleet", visibility: "public" }),
  });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${await project.text()}`);
  return {
    count,
    servers,
    proxy,
    url,
    token,
    async drop() {
      for (const server of servers) await server.stop();
      await proxy.close();
      await database.drop();
    },
  };
}

/** Pauses (SIGSTOP) or resumes (SIGCONT) a cluster's servers: the one not measured stays out of the way. */
function pause(cluster: Cluster, paused: boolean) {
  for (const server of cluster.servers) server.child.kill(paused ? "SIGSTOP" : "SIGCONT");
}

async function createReleases(cluster: Cluster, versions: string[]) {
  for (const version of versions) {
    const res = await fetch(`${cluster.url}/api/v1/projects/${SLUG}/releases`, {
      method: "POST",
      headers: { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" },
      body: JSON.stringify({ version }),
    });
    if (res.status !== 201) throw new Error(`release ${version}: ${res.status} ${await res.text()}`);
  }
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

interface UploadFile {
  filename: string;
  bytes: Buffer<ArrayBuffer>;
  version: string;
}

interface Phase {
  cluster: number;
  kind: string;
  round: number;
  uploads: number;
  bytes: number;
  seconds: number;
  uploadsPerSecond: number;
  mibPerSecond: number;
  latencyMs: Summary & { p95: number };
  /** CPU ms per upload: each server, all servers, s3rver, PostgreSQL, this process (proxy + clients), the rest of the machine. */
  cpuMsPerUpload: {
    perServer: number[];
    servers: number;
    s3rver: number;
    postgres: number;
    driver: number;
    others: number;
    machine: number;
  };
  machineBusyPercent: number;
}

async function uploadPhase(cluster: Cluster, kind: string, round: number, files: UploadFile[], b: Backends) {
  await waitForQuiet(quietWaitMs);
  const pids = cluster.servers.map((s) => s.child.pid!);
  const serverBefore = pids.map((p) => cpuMs(p));
  const backendBefore = backendCpu(b);
  const driverBefore = process.cpuUsage();
  const machineBefore = machineBusyMs();
  const latencies: number[] = [];
  const started = performance.now();
  await inParallel(files, concurrency, async (file) => {
    const t0 = performance.now();
    const res = await fetch(
      `${cluster.url}/api/v1/projects/${SLUG}/releases/${file.version}/files/${file.filename}`,
      {
        method: "PUT",
        headers: { authorization: `Bearer ${cluster.token}`, "content-type": "application/octet-stream" },
        body: file.bytes,
      },
    );
    const body = await res.text();
    if (res.status !== 201) throw new Error(`PUT ${file.filename}: ${res.status} ${body.slice(0, 300)}`);
    latencies.push(performance.now() - t0);
  });
  const seconds = (performance.now() - started) / 1000;
  const machine = machineBusyMs() - machineBefore;
  const driverUsage = process.cpuUsage(driverBefore);
  const driver = (driverUsage.user + driverUsage.system) / 1000;
  const perServer = pids.map((p, i) => cpuMs(p) - serverBefore[i]!);
  const backendAfter = backendCpu(b);
  const servers = perServer.reduce((a, v) => a + v, 0);
  const s3 = backendAfter.s3rver - backendBefore.s3rver;
  const pgCpu = backendAfter.postgres - backendBefore.postgres;
  const n = files.length;
  const bytes = files.reduce((a, f) => a + f.bytes.length, 0);
  const sorted = [...latencies].sort((x, y) => x - y);
  const phase: Phase = {
    cluster: cluster.count,
    kind,
    round,
    uploads: n,
    bytes,
    seconds,
    uploadsPerSecond: n / seconds,
    mibPerSecond: bytes / 2 ** 20 / seconds,
    latencyMs: { ...summarize(latencies), p95: sorted[Math.ceil(0.95 * n) - 1]! },
    cpuMsPerUpload: {
      perServer: perServer.map((v) => v / n),
      servers: servers / n,
      s3rver: s3 / n,
      postgres: pgCpu / n,
      driver: driver / n,
      others: Math.max(0, machine - servers - s3 - pgCpu - driver) / n,
      machine: machine / n,
    },
    machineBusyPercent: (100 * machine) / (seconds * 1000 * cpuCount()),
  };
  log(
    `  ${cluster.count} server(s), ${kind}, round ${round}: ${phase.uploadsPerSecond.toFixed(1)} uploads/s, ${phase.mibPerSecond.toFixed(1)} MiB/s, CPU/upload: servers ${phase.cpuMsPerUpload.servers.toFixed(0)} ms, s3rver ${phase.cpuMsPerUpload.s3rver.toFixed(0)}, PostgreSQL ${phase.cpuMsPerUpload.postgres.toFixed(0)}, driver ${phase.cpuMsPerUpload.driver.toFixed(0)}, others ${phase.cpuMsPerUpload.others.toFixed(0)}`,
  );
  return phase;
}

const cpuCount = () => machineInfo().cpus;

function binaries(round: number, tag: string): UploadFile[] {
  return Array.from({ length: uploads }, (_, i) => ({
    filename: `blob-${tag}-${String(i).padStart(4, "0")}.bin`,
    bytes: randomBytes(uploadBytes) as Buffer<ArrayBuffer>,
    version: `${round + 1}.0.${i % 10}`,
  }));
}

function debFiles(round: number, tag: string, scratch: string): UploadFile[] {
  return writeNewDebs(join(scratch, `debs-${tag}-${round}`), debCount, `${tag}r${round}`).map((d, i) => ({
    filename: d.filename,
    bytes: readFileSync(d.path),
    version: `${round + 1}.1.${i % 5}`,
  }));
}

async function partThroughput(s3: TestS3, b: Backends) {
  const scratch = join(dir, "throughput");
  mkdirSync(scratch, { recursive: true });
  log("throughput: starting one server and three servers (PostgreSQL + s3rver), each behind a proxy");
  const clusters: Cluster[] = [];
  const phases: Phase[] = [];
  try {
    clusters.push(await startCluster(1, s3));
    clusters.push(await startCluster(3, s3));
    for (const cluster of clusters) {
      // Warm-up, unrecorded: a few of each kind through every server.
      await createReleases(cluster, ["0.0.1"]);
      const warm = [
        ...binaries(0, "warm").slice(0, 6),
        ...debFiles(0, `w${cluster.count}`, scratch).slice(0, 6),
      ].map((f) => ({ ...f, version: "0.0.1" }));
      await inParallel(warm, 3, async (f) => {
        const res = await fetch(`${cluster.url}/api/v1/projects/${SLUG}/releases/0.0.1/files/${f.filename}`, {
          method: "PUT",
          headers: { authorization: `Bearer ${cluster.token}` },
          body: f.bytes,
        });
        await res.text();
        if (res.status !== 201) throw new Error(`warm-up PUT: ${res.status}`);
      });
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...clusters].reverse() : clusters;
      for (const cluster of clusters) {
        await createReleases(cluster, [
          ...Array.from({ length: 10 }, (_, i) => `${round + 1}.0.${i}`),
          ...Array.from({ length: 5 }, (_, i) => `${round + 1}.1.${i}`),
        ]);
      }
      for (const kind of ["binary", "deb"] as const) {
        for (const cluster of order) {
          const files =
            kind === "binary"
              ? binaries(round, `c${cluster.count}`)
              : debFiles(round, `c${cluster.count}`, scratch);
          for (const other of clusters) if (other !== cluster) pause(other, true);
          try {
            phases.push(await uploadPhase(cluster, kind, round, files, b));
          } finally {
            for (const other of clusters) if (other !== cluster) pause(other, false);
          }
        }
      }
    }
  } finally {
    for (const cluster of clusters) await cluster.drop();
  }
  const summary: Record<string, unknown> = {};
  for (const kind of ["binary", "deb"]) {
    const of = (count: number) => phases.filter((p) => p.kind === kind && p.cluster === count);
    const med = (count: number, f: (p: Phase) => number) => summarize(of(count).map(f));
    summary[kind] = {
      one: {
        uploadsPerSecond: med(1, (p) => p.uploadsPerSecond),
        mibPerSecond: med(1, (p) => p.mibPerSecond),
      },
      three: {
        uploadsPerSecond: med(3, (p) => p.uploadsPerSecond),
        mibPerSecond: med(3, (p) => p.mibPerSecond),
      },
      ratioThreeOverOne: med(3, (p) => p.uploadsPerSecond).median / med(1, (p) => p.uploadsPerSecond).median,
    };
  }
  return { uploads, uploadBytes, debs: debCount, concurrency, rounds, phases, summary };
}

// ---------------------------------------------------------------------------------------------
// Part 3: --uploads-three concurrent .deb uploads through three servers (one PostgreSQL, one
// bucket) behind the round-robin proxy, until the signed index served through the proxy lists
// every one of them.

/** The package names the APT index lists, as any server behind `url` serves it now (InRelease → Packages.gz by hash). */
async function listedPackages(url: string): Promise<{ fingerprint: string; names: Set<string> }> {
  const base = `${url}/dl/${USERNAME}/${SLUG}/deb/dists/stable`;
  const entry = await fetch(`${base}/InRelease`);
  const inRelease = await entry.text();
  if (entry.status === 404) return { fingerprint: "", names: new Set() };
  if (entry.status !== 200) throw new Error(`InRelease: ${entry.status}`);
  const fingerprint = packagesHash(inRelease);
  const gz = /^ ([0-9a-f]{64}) +\d+ main\/binary-amd64\/Packages\.gz$/m.exec(
    inRelease.slice(inRelease.indexOf("\nSHA256:")),
  )?.[1];
  if (!gz) throw new Error("InRelease lists no main/binary-amd64/Packages.gz");
  const res = await fetch(`${base}/main/binary-amd64/by-hash/SHA256/${gz}`);
  if (res.status !== 200) throw new Error(`Packages.gz by hash: ${res.status}`);
  const packages = gunzipSync(Buffer.from(await res.arrayBuffer()));
  if (createHash("sha256").update(packages).digest("hex") !== fingerprint)
    throw new Error("the inflated Packages.gz is not the Packages InRelease lists");
  const names = new Set([...packages.toString("utf8").matchAll(/^Package: (.+)$/gm)].map((m) => m[1]!));
  return { fingerprint, names };
}

async function partThree(s3: TestS3, b: Backends) {
  const scratch = join(dir, "three");
  mkdirSync(scratch, { recursive: true });
  log(`three servers: starting them (PostgreSQL + s3rver) behind a round-robin proxy`);
  const cluster = await startCluster(3, s3, "three/");
  try {
    const versions = Array.from({ length: 10 }, (_, i) => `1.0.${i}`);
    await createReleases(cluster, ["0.0.1", ...versions]);
    const put = (file: UploadFile) =>
      fetch(`${cluster.url}/api/v1/projects/${SLUG}/releases/${file.version}/files/${file.filename}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${cluster.token}`, "content-type": "application/octet-stream" },
        body: file.bytes,
      });
    // Warm-up, unrecorded: two .deb files through every server.
    const warm = writeNewDebs(join(scratch, "warm"), 6, "tw");
    await inParallel(warm, 3, async (d) => {
      const res = await put({ filename: d.filename, bytes: readFileSync(d.path), version: "0.0.1" });
      await res.text();
      if (res.status !== 201) throw new Error(`warm-up PUT: ${res.status}`);
    });
    const debs = writeNewDebs(join(scratch, "debs"), uploadsThree, "t");
    const files = debs.map((d, i) => ({
      name: d.name,
      filename: d.filename,
      bytes: readFileSync(d.path),
      version: versions[i % versions.length]!,
    }));
    await waitForQuiet(quietWaitMs);
    const cpuBefore = backendCpu(b);
    const serversBefore = cluster.servers.map((s) => cpuMs(s.child.pid!));
    log(`three servers: ${files.length} concurrent .deb uploads`);
    const started = performance.now();
    const answers = await Promise.all(
      files.map(async (file) => {
        const res = await put(file);
        const body = await res.text();
        return { name: file.name, status: res.status, at: performance.now(), body: body.slice(0, 200) };
      }),
    );
    const lastAnswer = Math.max(...answers.map((a) => a.at));
    const stored = answers.filter((a) => a.status === 201);
    for (const failed of answers.filter((a) => a.status !== 201))
      log(`  PUT ${failed.name}: ${failed.status} ${failed.body}`);
    // Then the signed index, through the proxy (any server), until it lists every stored one.
    let listedAt: number | undefined;
    let names = new Set<string>();
    let polls = 0;
    const deadline = lastAnswer + 60_000;
    while (performance.now() < deadline) {
      polls++;
      names = (await listedPackages(cluster.url)).names;
      if (stored.every((a) => names.has(a.name))) {
        listedAt = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const serverCpuMs = cluster.servers.map((s, i) => cpuMs(s.child.pid!) - serversBefore[i]!);
    const cpuAfter = backendCpu(b);
    const lost = stored.filter((a) => !names.has(a.name)).map((a) => a.name);
    const result = {
      uploads: files.length,
      failed: files.length - stored.length,
      lost: lost.length,
      lostNames: lost,
      firstRequestToLastAnswerMs: lastAnswer - started,
      firstRequestToAllListedMs: listedAt === undefined ? undefined : listedAt - started,
      lastAnswerToAllListedMs: listedAt === undefined ? undefined : listedAt - lastAnswer,
      polls,
      answerMs: summarize(answers.map((a) => a.at - started)),
      cpuMs: {
        servers: serverCpuMs,
        s3rver: cpuAfter.s3rver - cpuBefore.s3rver,
        postgres: cpuAfter.postgres - cpuBefore.postgres,
      },
    };
    log(
      `  first request → last answer ${result.firstRequestToLastAnswerMs.toFixed(0)} ms, → all listed ${listedAt === undefined ? "never (60 s)" : `${result.firstRequestToAllListedMs!.toFixed(0)} ms`}; failed ${result.failed}, lost ${result.lost}`,
    );
    return result;
  } finally {
    await cluster.drop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const f = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const cell = (s: Summary) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;

function markdown(results: Results): string {
  const out: string[] = [
    `Run ${results.date} at commit ${results.commit}; ${results.machine.cpus} × ${results.machine.cpuModel}, ${results.machine.memoryGiB} GiB; Node ${results.versions.node}, PostgreSQL ${results.versions.postgres}, s3rver ${results.versions.s3rver}; load average before ${results.loadAverage.before}, after ${results.loadAverage.after}.`,
    "",
    ...issue44Lines(results),
  ];
  if (results.b) {
    const { roundTrips } = results.b;
    for (const at of results.b.sizes) {
      const { rows, setupSeconds, timers, counts } = at;
      const [emb, scale, slow] = rows;
      out.push(
        `## (b) One more .deb into a ${at.size.toLocaleString("en-US")}-package repository, ${emb!.samples.length} samples per mode, interleaved`,
        "",
        "| mode | ms, median (min–max) | PUT answered ms | S3 requests (sequential) + after | PostgreSQL round trips + after | Packyard + client CPU ms | s3rver CPU ms | PostgreSQL CPU ms | others' CPU % |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
      );
      for (const r of rows) {
        const e = (k: string) => (r.extra[k] ? f(r.extra[k].median) : "–");
        const n = (k: string) => (r.extra[k] ? String(r.extra[k].median) : "–");
        out.push(
          `| ${r.system} | ${cell(r.time)} | ${e("PUT answered ms")} | ${n("S3 requests")} (${n("S3 sequential round trips")}) + ${n("S3 requests after the InRelease")} | ${n("PostgreSQL round trips")} + ${n("PostgreSQL round trips after the InRelease")} | ${e("Packyard + client CPU ms")} | ${e("s3rver CPU ms")} | ${e("PostgreSQL CPU ms")} | ${e("others' CPU %")} |`,
        );
      }
      out.push(
        "",
        `Ratio scale / embedded (medians): **${(scale!.time.median / emb!.time.median).toFixed(2)}** (target ≤ 1.2)`,
      );
      if (slow)
        out.push(
          `${slow.system} − embedded (medians): **${signed(slow.time.median - emb!.time.median)} ms** (target ≤ +60 ms)`,
        );
      out.push("");
      for (const [mode, c] of Object.entries(counts)) {
        out.push(
          `What each publish asked, ${mode} (median count per sample; unmarked: during the PUT; "after the answer": until the new InRelease was seen, its polls included; "after the InRelease": until the proxies were idle, the benchmark's fetch of Packages.gz included):`,
          "",
          `- S3: ${c.s3.map(([k, v]) => `${k} ×${v}`).join("; ") || "none"}`,
          `- PostgreSQL: ${c.pg.map(([k, v]) => `\`${k}\` ×${v}`).join("; ") || "none"}`,
          "",
        );
      }
      out.push("Timers around the stores' calls, per upload (median of the sum per upload):", "");
      for (const [mode, t] of Object.entries(timers)) {
        out.push(`- ${mode} (end to end ${cell(t.endToEnd)}):`);
        for (const [k, v] of Object.entries(t.perCall))
          out.push(`  - ${k}: ${v.calls.toFixed(1)} calls, ${cell(v.totalPerUpload)} ms`);
        out.push(
          `  - main thread busy ${t.cpu.busyMsPerUpload} ms per upload (CPU profile): ${t.cpu.categories
            .filter((c) => !c.name.startsWith("(idle") && !c.name.startsWith("(benchmark"))
            .slice(0, 8)
            .map((c) => `${c.name} ${c.ms}`)
            .join("; ")}`,
        );
      }
      out.push(
        "",
        `Set-up: ${Object.entries(setupSeconds)
          .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
          .join("; ")}`,
        "",
      );
    }
    out.push("Round trips from the driver straight to s3rver, ms, median (min–max) of 30:", "");
    for (const [k, v] of Object.entries(roundTrips)) out.push(`- ${k}: ${cell(v)}`);
    out.push("");
  }
  if (results.three) {
    const t = results.three;
    const ms = (v: number | undefined) => (v === undefined ? "never (60 s)" : `${v.toFixed(0)} ms`);
    out.push(
      `## ${t.uploads} concurrent .deb uploads through three servers (one PostgreSQL, one bucket, round-robin proxy)`,
      "",
      `First request → last answer ${ms(t.firstRequestToLastAnswerMs)}; → the signed index (through the proxy) lists all ${t.uploads - t.failed}: ${ms(t.firstRequestToAllListedMs)}, **${ms(t.lastAnswerToAllListedMs)} after the last answer** (target ≤ 1 s); failed uploads ${t.failed}; **lost ${t.lost}**${t.lost ? ` (${t.lostNames.join(", ")})` : ""}.`,
      "",
    );
  }
  if (results.throughput) {
    const t = results.throughput;
    out.push(
      `## Upload throughput: ${t.concurrency} clients, one server against three behind a round-robin proxy (PostgreSQL + s3rver)`,
      "",
      "| servers | uploads | round | s | uploads/s | MiB/s | latency ms p50 / p95 | CPU ms per upload: servers (each) | s3rver | PostgreSQL | proxy + clients | others | machine busy % |",
      "|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    );
    for (const p of [...t.phases].sort(
      (a, b) => a.kind.localeCompare(b.kind) || a.cluster - b.cluster || a.round - b.round,
    )) {
      const c = p.cpuMsPerUpload;
      out.push(
        `| ${p.cluster} | ${p.uploads} × ${p.kind === "binary" ? `${t.uploadBytes / 2 ** 20} MiB binary` : ".deb"} | ${p.round + 1} | ${p.seconds.toFixed(1)} | ${p.uploadsPerSecond.toFixed(1)} | ${p.mibPerSecond.toFixed(2)} | ${f(p.latencyMs.median)} / ${f(p.latencyMs.p95)} | ${f(c.servers)} (${c.perServer.map(f).join(", ")}) | ${f(c.s3rver)} | ${f(c.postgres)} | ${f(c.driver)} | ${f(c.others)} | ${p.machineBusyPercent.toFixed(0)} |`,
      );
    }
    out.push("");
    for (const [kind, s] of Object.entries(t.summary) as [string, ThroughputSummary][]) {
      out.push(
        `- ${kind}: one server ${cell(s.one.uploadsPerSecond)} uploads/s (${cell(s.one.mibPerSecond)} MiB/s), three ${cell(s.three.uploadsPerSecond)} uploads/s (${cell(s.three.mibPerSecond)} MiB/s): ratio three / one **${s.ratioThreeOverOne.toFixed(2)}**`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

const signed = (v: number) => `${v >= 0 ? "+" : "−"}${f(Math.abs(v))}`;

/** Issue 44's four lines (a line per size), medians. */
function issue44Lines(results: Results): string[] {
  const one: string[] = [];
  const two: string[] = [];
  const three: string[] = [];
  const x = (r: Row, k: string) => r.extra[k]?.median ?? 0;
  for (const at of results.b?.sizes ?? []) {
    const [emb, scale, slow] = at.rows;
    const n = `N = ${at.size.toLocaleString("en-US")}`;
    one.push(
      `- (1) (b) ${n}: embedded ${f(emb!.time.median)} ms, scale ${f(scale!.time.median)} ms: **${(scale!.time.median / emb!.time.median).toFixed(2)}×** (target ≤ 1.2×)`,
    );
    if (slow)
      two.push(
        `- (2) (b) ${n}, ${slow.system}: ${f(slow.time.median)} ms, **${signed(slow.time.median - emb!.time.median)} ms** over embedded (target ≤ +60 ms)`,
      );
    for (const r of [scale, slow].filter((r): r is Row => r !== undefined))
      three.push(
        `- (3) per publish, ${n}, ${r.system}: ${x(r, "S3 requests")} S3 requests (${x(r, "S3 sequential round trips")} sequential) + ${x(r, "S3 requests after the InRelease")} after, ${x(r, "PostgreSQL round trips")} PostgreSQL round trips + ${x(r, "PostgreSQL round trips after the InRelease")} after (what for: below)`,
      );
  }
  const lines = [...one, ...two, ...three];
  const t = results.three;
  if (t)
    lines.push(
      `- (4) three servers, ${t.uploads} concurrent uploads: last answer ${f(t.firstRequestToLastAnswerMs)} ms, all listed ${t.firstRequestToAllListedMs === undefined ? "never" : `${f(t.firstRequestToAllListedMs)} ms`} after the first request (${t.lastAnswerToAllListedMs === undefined ? "not within 60 s" : `**${signed(t.lastAnswerToAllListedMs)} ms**`} after the last answer; target ≤ 1 s), failed ${t.failed}, **lost ${t.lost}**`,
    );
  return lines.length ? ["Issue 44:", "", ...lines, ""] : [];
}

interface Timers {
  cpu: ReturnType<typeof summarizeCpuProfile>;
  endToEnd: Summary;
  perCall: Record<string, { calls: number; totalPerUpload: Summary }>;
}
interface ThroughputSummary {
  one: { uploadsPerSecond: Summary; mibPerSecond: Summary };
  three: { uploadsPerSecond: Summary; mibPerSecond: Summary };
  ratioThreeOverOne: number;
}
interface Results {
  date: string;
  commit: string;
  machine: ReturnType<typeof machineInfo>;
  versions: Record<string, string>;
  args: typeof args;
  b?: Awaited<ReturnType<typeof partB>>;
  three?: Awaited<ReturnType<typeof partThree>>;
  throughput?: Awaited<ReturnType<typeof partThroughput>>;
  loadAverage: { before: string; after?: string };
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>("show server_version")).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

async function main() {
  checkPackyardPrerequisites();
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set: run under .ci/with-postgres");
  const s3rverModule = await loadS3rver();
  if (!s3rverModule) throw new Error("s3rver is not installed (npm ci installs it: a dev dependency)");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const results: Results = {
    date: new Date().toISOString(),
    commit: commitOf(args.commit),
    machine: machineInfo(),
    versions: {
      node: process.version,
      postgres: await postgresVersion(adminUrl),
      s3rver: JSON.parse(readFileSync(join(dirname(s3rverModule), "..", "package.json"), "utf8")).version,
    },
    args,
    loadAverage: { before: readFileSync("/proc/loadavg", "utf8").trim() },
  };
  const s3 = await startS3rver(s3rverModule, "packyard-bench");
  try {
    const backends: Backends = { s3rver: s3rverPid(), postmaster: postmasterPid(new URL(adminUrl).port) };
    if (parts.has("b")) results.b = await partB(s3, backends);
    if (parts.has("three")) results.three = await partThree(s3, backends);
    if (parts.has("throughput")) results.throughput = await partThroughput(s3, backends);
  } finally {
    await s3.stop();
  }
  results.loadAverage.after = readFileSync("/proc/loadavg", "utf8").trim();
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const md = markdown(results);
  writeFileSync(args.out.replace(/\.json$/, ".md"), md);
  process.stdout.write(md);
  log(`done; results in ${args.out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
