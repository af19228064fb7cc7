// Scale-mode benchmark (issue 15, "Speed"): Packyard on PostgreSQL + S3-compatible storage
// (s3rver) against the embedded mode (SQLite + local disk), and upload throughput of one server
// against three behind a round-robin proxy. See README.md beside this file.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   .ci/with-postgres node bench/scale/run.ts [--size 10000] [--runs 9] [--uploads 200]
//        [--debs 100] [--concurrency 8] [--rounds 4] [--parts b,throughput]
//        [--dir /tmp/packyard-bench-scale] [--quiet-wait 2] [--keep]
//        [--out bench/scale/results/latest.json]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
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
import { aptEntry } from "../apt/lib/packyard.ts";
import { chunkSums, type Row, row } from "../lib/measure.ts";
import { type PackageFile, PackyardServer, seedPackyard } from "../lib/packyard.ts";
import { accounted, machineBusyMs, type Sample, type Summary, summarize, waitForQuiet } from "../lib/proc.ts";
import { checkPackyardPrerequisites, commitOf, logger, machineInfo } from "../lib/run-info.ts";

const { values: args } = parseArgs({
  options: {
    size: { type: "string", default: "10000" },
    runs: { type: "string", default: "9" },
    uploads: { type: "string", default: "200" },
    "upload-mib": { type: "string", default: "1" },
    debs: { type: "string", default: "100" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "4" },
    parts: { type: "string", default: "b,throughput" },
    dir: { type: "string", default: "/tmp/packyard-bench-scale" },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
    "quiet-wait": { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
  },
});

const size = Number(args.size);
const runs = Number(args.runs);
const uploads = Number(args.uploads);
const uploadBytes = Number(args["upload-mib"]) * 1024 * 1024;
const debCount = Number(args.debs);
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);
const parts = new Set(args.parts.split(","));
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
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
async function addOneAccounted(mode: Mode, file: PackageFile, version: string, b: Backends, settle = true) {
  await waitForQuiet(quietWaitMs);
  return accounted(async () => {
    const before = backendCpu(b);
    const sample = await mode.server.addOne(file, version, aptEntry, { settle });
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

async function partB(s3: TestS3, b: Backends) {
  const scratch = join(dir, "b");
  log(`(b): writing ${size} + ${2 * runs + 1} .deb files`);
  const debs = writeBenchDebs(join(scratch, "debs"), size);
  const news = writeNewDebs(join(scratch, "new"), 2 * runs + 1, "s");
  const database = await createPostgresDatabase();
  const scaleEnv = { ...s3.env, S3_PREFIX: "bench-b/", DATABASE_URL: database.url };
  await keepS3rverDirectories(s3, scaleEnv.S3_PREFIX);
  const setupSeconds: Record<string, number> = {};
  const modes: Mode[] = [];
  try {
    for (const [label, env] of [
      ["embedded", {}],
      ["scale", scaleEnv],
    ] as const) {
      const modeScratch = join(scratch, label);
      mkdirSync(modeScratch, { recursive: true });
      log(`(b) ${label}: seeding ${size} packages through uploadFile`);
      const seeded = seedPackyard(join(scratch, `data-${label}`), debs, modeScratch, { env });
      setupSeconds[`${label}: seed (uploadFile × N, 8 at a time)`] = seeded.seedMs / 1000;
      setupSeconds[`${label}: first publish`] = seeded.firstPublishMs / 1000;
      const server = await PackyardServer.start(join(scratch, `data-${label}`), modeScratch, { env });
      modes.push({ label, server });
    }
    for (const mode of modes) {
      await mode.server.warmUp(aptEntry);
      // One unrecorded upload first, so the route's code is warm like a running server's.
      await mode.server.addOne(news[2 * runs]!, "2.0.warmup", aptEntry);
    }
    log(`(b): ${runs} samples per mode, interleaved`);
    const samples: Record<string, Sample[]> = { embedded: [], scale: [] };
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? [...modes].reverse() : modes;
      for (const mode of order) {
        samples[mode.label]!.push(await addOneAccounted(mode, news[i]!, `2.0.${i}`, b));
      }
    }
    const rows: Row[] = [
      row(
        "b",
        "Packyard embedded",
        "SQLite + local disk: HTTP PUT of the .deb → new InRelease served",
        samples.embedded!,
      ),
      row(
        "b",
        "Packyard scale mode",
        "PostgreSQL + s3rver: HTTP PUT of the .deb → new InRelease served",
        samples.scale!,
      ),
    ];

    log(`(b): ${runs} more per mode with timers around the stores' calls`);
    for (const mode of modes) await mode.server.call("instrument");
    const timed: Record<string, Sample[]> = { embedded: [], scale: [] };
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? [...modes].reverse() : modes;
      for (const mode of order) {
        timed[mode.label]!.push(await addOneAccounted(mode, news[runs + i]!, `3.0.${i}`, b, false));
      }
    }
    const timers: Record<string, unknown> = {};
    for (const mode of modes) {
      const timings = (await mode.server.call("timings")).timings as Record<string, number[]>;
      timers[mode.label] = {
        endToEnd: summarize(timed[mode.label]!.map((s) => s.ms)),
        perCall: Object.fromEntries(
          Object.entries(timings).map(([k, v]) => [
            k,
            { calls: v.length / runs, totalPerUpload: summarize(chunkSums(v, v.length / runs)) },
          ]),
        ),
      };
    }
    log("(b): s3rver and local disk round trips");
    const roundTrips = await s3rverRoundTrips(s3, 30);
    return { size, rows, setupSeconds, timers, roundTrips };
  } finally {
    for (const mode of modes) await mode.server.stop();
    await database.drop();
  }
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

async function startCluster(count: number, s3: TestS3): Promise<Cluster> {
  const database = await createPostgresDatabase();
  const proxy = new RoundRobinProxy();
  const url = await proxy.listen();
  await keepS3rverDirectories(s3, `throughput-${count}/`);
  const env = {
    ...s3.env,
    S3_PREFIX: `throughput-${count}/`,
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
// Report

const f = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const cell = (s: Summary) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;

function markdown(results: Results): string {
  const out: string[] = [
    `Run ${results.date} at commit ${results.commit}; ${results.machine.cpus} × ${results.machine.cpuModel}, ${results.machine.memoryGiB} GiB; Node ${results.versions.node}, PostgreSQL ${results.versions.postgres}, s3rver ${results.versions.s3rver}; load average before ${results.loadAverage.before}, after ${results.loadAverage.after}.`,
    "",
  ];
  if (results.b) {
    const { rows, roundTrips, setupSeconds, timers } = results.b;
    const [emb, scale] = rows;
    out.push(
      `## (b) One more .deb into a ${results.b.size.toLocaleString("en-US")}-package repository, ${emb!.samples.length} samples per mode, interleaved`,
      "",
      "| mode | ms, median (min–max) | PUT answered ms | Packyard + client CPU ms | s3rver CPU ms | PostgreSQL CPU ms | others' CPU % |",
      "|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const r of rows) {
      const e = (k: string) => (r.extra[k] ? f(r.extra[k].median) : "–");
      out.push(
        `| ${r.system} | ${cell(r.time)} | ${e("PUT answered ms")} | ${e("Packyard + client CPU ms")} | ${e("s3rver CPU ms")} | ${e("PostgreSQL CPU ms")} | ${e("others' CPU %")} |`,
      );
    }
    out.push(
      "",
      `Ratio scale / embedded (medians): **${(scale!.time.median / emb!.time.median).toFixed(2)}**`,
      "",
    );
    out.push("Timers around the stores' calls, per upload (median of the sum per upload):", "");
    for (const [mode, t] of Object.entries(timers) as [string, Timers][]) {
      out.push(`- ${mode} (end to end ${cell(t.endToEnd)}):`);
      for (const [k, v] of Object.entries(t.perCall))
        out.push(`  - ${k}: ${v.calls.toFixed(1)} calls, ${cell(v.totalPerUpload)} ms`);
    }
    out.push("", "Round trips from the driver, ms, median (min–max) of 30:", "");
    for (const [k, v] of Object.entries(roundTrips)) out.push(`- ${k}: ${cell(v)}`);
    out.push(
      "",
      `Set-up: ${Object.entries(setupSeconds)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join("; ")}`,
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

interface Timers {
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
