// The Packyard side of the APT and YUM benchmarks, in its own process so its memory can be read
// from /proc/<pid>/status without the benchmark driver's own allocations in it.
//
//   node bench/lib/packyard-child.ts seed  <dataDir> <fileList.json> <state.json>
//   node bench/lib/packyard-child.ts extend <dataDir> <fileList.json> <state.json>
//   node bench/lib/packyard-child.ts serve <dataDir> <state.json>      (forked, IPC)
//
// seed: starts the real server (startLiveServer) on <dataDir>, makes a publisher and a public
// project through the real API, then stores every package file (.deb or .rpm) through the
// domain's uploadFile — the same function the PUT route calls: real blob store with fsync, real
// .deb parsing / .rpm reading and signing with the project's key, real rows — with the
// project-event listener switched off, so seeding N packages does not also run N index builds.
// One publish at the end makes generation 1. The server is then stopped.
//
// DATABASE_URL, SECRET, PLAN_LIMITS and S3_* in this process's environment are passed on to the
// server (bench/scale); without them it runs embedded: SQLite and blobs under <dataDir>.
//
// serve: starts the server on the seeded <dataDir> and answers the driver over IPC:
//   {cmd:"publish"}  → runs the repository publisher's publish(projectId) — a full build from the
//                      stored package rows — and reports its time and this process's peak RSS
//   {cmd:"settle"}   → resets VmHWM so the next step's peak is its own (no forced GC: a
//                      running server's samples carry the garbage they make, issue 16)
//   {cmd:"housekeeping"} → waits for the server's start-up housekeeping (lagging publishes, the
//                      leftover collection in the first quiet moment, maintenance.ts) and
//                      reports how long it waited: samples then meet a server in its steady
//                      state, not its first seconds
//   {cmd:"instrument"} → wraps a few service methods with timers (profile runs only)
//   {cmd:"timings"}  → returns and clears what the wrappers recorded
//   {cmd:"cpuprofile-start"} / {cmd:"cpuprofile-stop", file} → V8 CPU profile of this process
//   {cmd:"stop"}
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { onProjectEvent } from "../../apps/web/server/platform/core/changes.ts";
import type { StagedBlob } from "../../apps/web/server/platform/storage/blob-store.ts";
import { uploadFile } from "../../apps/web/server/releases/files.ts";
import { type LiveServer, publisher, startLiveServer } from "../../apps/web/test/live-server.ts";
import { machineBusyMs, peakRssKb, resetPeakRss, rssKb } from "./proc.ts";

export interface SeedState {
  url?: string;
  username: string;
  slug: string;
  projectId: string;
  token: string;
  seedMs: number;
  firstPublishMs: number;
  packages: number;
}

const [mode, dataDir, ...rest] = process.argv.slice(2);

/** What the benchmark needs of the service that publishes a project's repositories. */
interface Publisher {
  publish(projectId: string): Promise<void>;
  readonly store: LiveServer["services"]["blobs"];
}

/** `services.repos` (RepositoryPublisher); `services.apt` (AptRepositoryService) before its generalisation. */
function publisherOf(server: LiveServer): Publisher {
  const services = server.services as unknown as { apt?: Publisher; repos?: Publisher };
  const found = services.repos ?? services.apt;
  if (!found)
    throw new Error("no repository publisher in services (expected services.apt or services.repos)");
  return found;
}

/** What the driver may set for the server (bench/scale: PostgreSQL and S3); unset, it runs embedded. */
const passedOn = (name: string) =>
  name === "DATABASE_URL" || name === "SECRET" || name === "PLAN_LIMITS" || name.startsWith("S3_");

/** Same settings in both modes: the server's own defaults, quiet logs. */
function start(): Promise<LiveServer> {
  const given = Object.entries(process.env).filter(
    (entry): entry is [string, string] => passedOn(entry[0]) && entry[1] !== undefined,
  );
  return startLiveServer({ DATA_DIR: dataDir!, LOG_LEVEL: "warn", ...Object.fromEntries(given) });
}

/** The publisher and project a seed makes, or those of the seed it extends. */
async function seedProject(server: LiveServer, previous: SeedState | undefined) {
  const db = server.services.database.db;
  if (previous) {
    const project = await db
      .selectFrom("project")
      .selectAll()
      .where("id", "=", previous.projectId)
      .executeTakeFirstOrThrow();
    return { project, username: previous.username, token: previous.token };
  }
  const pub = await publisher(server, "bench");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "fleet", name: "fleet", visibility: "public" }),
  });
  if (created.status !== 201) throw new Error(`project: ${created.status} ${await created.text()}`);
  const project = await db
    .selectFrom("project")
    .selectAll()
    .where("slug", "=", "fleet")
    .where("owner_id", "=", pub.userId)
    .executeTakeFirstOrThrow();
  return { project, username: pub.username, token: pub.token };
}

/**
 * seed: a fresh data directory. extend: one seeded before (its state file is read and
 * rewritten), with more packages uploaded the same way into the same project and one more
 * publish — a repository that grew (bench/yum --seed-cache seeds 50,000 from 10,000).
 */
async function seed(fileListFile: string, stateFile: string, extend: boolean) {
  const files = JSON.parse(readFileSync(fileListFile, "utf8")) as { filename: string; path: string }[];
  const previous = extend ? (JSON.parse(readFileSync(stateFile, "utf8")) as SeedState) : undefined;
  const server = await start();
  try {
    const { project, username, token } = await seedProject(server, previous);
    const db = server.services.database.db;
    // Seeding only: no index build per stored package (publishing is measured separately).
    onProjectEvent(db, async () => {});
    const started = performance.now();
    const perRelease = 100;
    const before = previous?.packages ?? 0;
    for (let first = 0; first < files.length; first += perRelease) {
      const group = files.slice(first, first + perRelease);
      // Releases 1.0.0, 1.0.1, … continue across an extension.
      const version = `1.0.${Math.floor((before + first) / perRelease)}`;
      const store = async (file: { filename: string; path: string }) => {
        const bytes = readFileSync(file.path);
        await uploadFile(db, server.services.blobs, {
          project,
          version,
          filename: file.filename,
          body: (async function* () {
            yield bytes;
          })(),
          declaredSize: bytes.length,
          maxBytes: server.services.config.maxUploadBytes,
          createRelease: true,
          // What the PUT route passes: .rpm files are signed with the project's key on upload.
          rpmSigningKey: () => server.services.keys.newest(project),
          // And whether plan limits apply: the server's configuration (PLAN_LIMITS).
          limits: server.services.config,
        });
      };
      // The first upload creates the release; the rest go in 8 at a time.
      await store(group[0]!);
      for (let i = 1; i < group.length; i += 8) await Promise.all(group.slice(i, i + 8).map(store));
    }
    const seedMs = performance.now() - started;
    const publishStarted = performance.now();
    await publisherOf(server).publish(project.id);
    const firstPublishMs = performance.now() - publishStarted;
    const state: SeedState = {
      username,
      slug: "fleet",
      projectId: project.id,
      token,
      seedMs: (previous?.seedMs ?? 0) + seedMs,
      firstPublishMs,
      packages: before + files.length,
    };
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
  } finally {
    await server.close();
  }
}

type Timings = Record<string, number[]>;

function instrument(server: LiveServer, timings: Timings) {
  const record = (name: string, started: number) => {
    timings[name] ??= [];
    timings[name].push(performance.now() - started);
  };
  const { keys, blobs } = server.services;
  const apt = publisherOf(server);
  const publish = apt.publish.bind(apt);
  apt.publish = (projectId: string) => {
    const started = performance.now();
    const done = publish(projectId);
    done.finally(() => record("publish (whole build, inside the PUT)", started)).catch(() => {});
    return done;
  };
  const newest = keys.newest.bind(keys);
  keys.newest = async (...args: Parameters<typeof newest>) => {
    const started = performance.now();
    try {
      return await newest(...args);
    } finally {
      record("signing key for the .rpm (keys.newest)", started);
    }
  };
  const active = keys.active.bind(keys);
  keys.active = async (...args: Parameters<typeof active>) => {
    const started = performance.now();
    try {
      return await active(...args);
    } finally {
      record("signing keys lookup (keys.active)", started);
    }
  };
  const wrapStore = (store: typeof blobs, label: string) => {
    const stage = store.stage.bind(store);
    store.stage = async (...args: Parameters<typeof stage>) => {
      const started = performance.now();
      const staged: StagedBlob = await stage(...args);
      record(`${label}: stage (write + 4 hashes + fsync)`, started);
      const commit = staged.commit.bind(staged);
      staged.commit = async () => {
        const committed = performance.now();
        try {
          await commit();
        } finally {
          record(`${label}: commit (rename + dir fsync)`, committed);
        }
      };
      return staged;
    };
    // Since 3e674a0 the publisher stores index files with exists + putBytes (hashed by the caller).
    const timed = <K extends "putBytes" | "exists" | "delete">(method: K, what: string) => {
      const original = (store[method] as ((...a: unknown[]) => Promise<unknown>) | undefined)?.bind(store);
      if (!original) return;
      (store as unknown as Record<K, (...a: unknown[]) => Promise<unknown>>)[method] = async (
        ...args: unknown[]
      ) => {
        const started = performance.now();
        try {
          return await original(...args);
        } finally {
          record(`${label}: ${method} (${what})`, started);
        }
      };
    };
    timed("putBytes", "write + fsync + rename; concurrent calls overlap");
    timed("exists", "stat");
    timed("delete", "unlink");
  };
  wrapStore(apt.store, "index files");
  wrapStore(blobs, "uploaded package");
}

async function serve(stateFile: string) {
  const state = JSON.parse(readFileSync(stateFile, "utf8")) as SeedState;
  const server = await start();
  const timings: Timings = {};
  let session: Session | undefined;
  const send = (message: unknown) => process.send!(message);
  process.on("message", async (message: { cmd: string; file?: string }) => {
    try {
      switch (message.cmd) {
        case "housekeeping": {
          const started = performance.now();
          await server.maintenance.started;
          send({ ok: true, ms: performance.now() - started });
          break;
        }
        case "settle": {
          resetPeakRss("self");
          send({ ok: true, rssKb: rssKb("self") });
          break;
        }
        case "publish": {
          resetPeakRss("self");
          const before = rssKb("self");
          const cpu = process.cpuUsage();
          const machine = machineBusyMs();
          const started = performance.now();
          await publisherOf(server).publish(state.projectId);
          const ms = performance.now() - started;
          const machineCpuMs = machineBusyMs() - machine;
          const used = process.cpuUsage(cpu);
          send({
            ok: true,
            ms,
            cpuMs: (used.user + used.system) / 1000,
            machineCpuMs,
            rssBeforeKb: before,
            peakRssKb: peakRssKb("self"),
          });
          break;
        }
        case "instrument":
          instrument(server, timings);
          send({ ok: true });
          break;
        case "timings":
          send({ ok: true, timings: { ...timings } });
          for (const key of Object.keys(timings)) delete timings[key];
          break;
        case "cpuprofile-start":
          session = new Session();
          session.connect();
          await session.post("Profiler.setSamplingInterval", { interval: 100 });
          await session.post("Profiler.enable");
          await session.post("Profiler.start");
          send({ ok: true });
          break;
        case "cpuprofile-stop": {
          const { profile } = await session!.post("Profiler.stop");
          writeFileSync(message.file!, JSON.stringify(profile));
          session!.disconnect();
          send({ ok: true });
          break;
        }
        case "stop":
          await server.close();
          send({ ok: true });
          process.exit(0);
      }
    } catch (error) {
      send({ ok: false, error: String((error as Error).stack ?? error) });
    }
  });
  send({ ok: true, ready: true, url: server.url, pid: process.pid, rssKb: rssKb("self") });
}

if (mode === "seed" || mode === "extend") await seed(rest[0]!, rest[1]!, mode === "extend");
else if (mode === "serve") await serve(rest[0]!);
else throw new Error("usage: packyard-child.ts seed|serve …");
