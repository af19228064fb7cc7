// Does a client get repomd.xml and repomd.xml.asc from the same publish? The back-to-back loop of
// issue 10 (item 13): GET repomd.xml, then GET repomd.xml.asc at once, thousands of times, while
// the repository is republished without pause (a release yanked and unyanked in turn inside the
// server process, lib/entry-server.ts: each publish a new generation with another package list).
// Every pair is checked with the project's
// key (openpgp.js; results cached per distinct pair); a pair whose signature does not verify
// its repomd.xml is BAD — what dnf reports as "Bad GPG signature".
//
// Client kinds (--pairs pairs each, the server on 127.0.0.1):
//   keepalive — both requests on one keep-alive connection (an http.Agent with one socket)
//   fresh     — a new connection per request (what dnf 4 / librepo 1.14 does)
//   fresh4    — four such clients at once, each from its own address (127.0.0.2 … 127.0.0.5)
//   fresh4nat — four such clients at once from one address (machines behind one NAT)
//
// --publish-gap <ms> pauses between publishes (0: back to back, the server always publishing;
// 1000: one a second, where today's rate of BAD pairs is the issue's).
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/yum/entry-consistency.ts [--pairs 5000] [--kinds keepalive,fresh,fresh4,fresh4nat]
//        [--publish-gap 0] [--packages 200] [--at <rev>] [--label name]
//        [--rpm-cache /tmp/packyard-bench-rpms] [--dir /tmp/packyard-bench-yum-entry]
//        [--out bench/yum/results/entry-consistency-<label>.json]
//
// --at <rev> serves from a committed tree instead of this checkout (git archive of <rev> into
// <dir>/tree, this checkout's bench/ copied over it, node_modules linked, the web build copied,
// as bench/run-at-commit.sh does): `--at HEAD~1` measures the code before a change.
import { execFileSync, fork, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { Agent, request } from "node:http";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import * as openpgp from "openpgp";
import type { SeedState } from "../lib/packyard-child.ts";
import { commitOf, logger, machineInfo } from "../lib/run-info.ts";
import { benchRpms } from "./lib/rpms.ts";

const { values: args } = parseArgs({
  options: {
    pairs: { type: "string", default: "5000" },
    kinds: { type: "string", default: "keepalive,fresh,fresh4,fresh4nat" },
    "publish-gap": { type: "string", default: "0" },
    packages: { type: "string", default: "200" },
    at: { type: "string" },
    label: { type: "string" },
    "rpm-cache": { type: "string", default: "/tmp/packyard-bench-rpms" },
    dir: { type: "string", default: "/tmp/packyard-bench-yum-entry" },
    out: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});

const here = resolve(import.meta.dirname, "../..");
const pairs = Number(args.pairs);
const packages = Number(args.packages);
if (packages < 200) throw new Error("--packages must be at least 200 (two releases of 100)");
const kinds = args.kinds.split(",") as Kind[];
const dir = resolve(args.dir);
const log = logger();
const publishGapMs = Number(args["publish-gap"]);
type Kind = "keepalive" | "fresh" | "fresh4" | "fresh4nat";

/** A tree to serve from: this checkout, or `rev` exported next to the scratch data. */
function treeFor(rev: string | undefined): string {
  if (!rev) return here;
  const tree = join(dir, "tree");
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  execFileSync("sh", ["-c", `git -C "${here}" archive "${rev}" | tar -x -C "${tree}"`]);
  rmSync(join(tree, "bench"), { recursive: true, force: true });
  cpSync(join(here, "bench"), join(tree, "bench"), { recursive: true });
  mkdirSync(join(tree, "node_modules/@packyard"), { recursive: true });
  for (const entry of readdirSync(join(here, "node_modules"))) {
    if (entry === "@packyard" || entry === ".package-lock.json") continue;
    symlinkSync(join(here, "node_modules", entry), join(tree, "node_modules", entry));
  }
  for (const pkg of readdirSync(join(here, "node_modules/@packyard")))
    symlinkSync(
      readlinkSync(join(here, "node_modules/@packyard", pkg)),
      join(tree, "node_modules/@packyard", pkg),
    );
  cpSync(join(here, "apps/web/build"), join(tree, "apps/web/build"), { recursive: true });
  return tree;
}

interface Served {
  url: string;
  /** Yanks or unyanks release 1.0.1 in the server process; resolves once that publish is live. */
  toggle(): Promise<void>;
  stop(): Promise<void>;
  kill(): void;
}

/** Seeds a data directory with `packages` rpms and serves it, both with `tree`'s server code. */
async function serveFrom(tree: string, dataDir: string): Promise<{ server: Served; state: SeedState }> {
  const child = join(tree, "bench/lib/packyard-child.ts");
  const rpms = await benchRpms(resolve(args["rpm-cache"]), packages, log);
  const list = join(dir, "files.json");
  const stateFile = join(dir, "state.json");
  writeFileSync(list, JSON.stringify(rpms.map((r) => ({ filename: r.filename, path: r.path }))));
  log(`seeding ${packages} packages`);
  const seeded = spawnSync(process.execPath, [child, "seed", dataDir, list, stateFile], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (seeded.status !== 0) throw new Error(`seeding failed (exit ${seeded.status})`);
  const serving = fork(join(tree, "bench/yum/lib/entry-server.ts"), [dataDir, stateFile], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let exited = false;
  serving.once("exit", () => {
    exited = true;
  });
  type Reply = { ok: boolean; url?: string; error?: string };
  const call = (message?: unknown) =>
    new Promise<Reply>((done, fail) => {
      const onExit = (code: number | null) => fail(new Error(`server exited (${code})`));
      serving.once("exit", onExit);
      serving.once("message", (reply: Reply) => {
        serving.off("exit", onExit);
        if (reply.ok) done(reply);
        else fail(new Error(reply.error));
      });
      if (message) serving.send(message);
    });
  const ready = await call();
  const state = JSON.parse(readFileSync(stateFile, "utf8")) as SeedState;
  return {
    state,
    server: {
      url: ready.url!,
      toggle: async () => {
        await call({ cmd: "toggle" });
      },
      stop: async () => {
        if (!exited) await call({ cmd: "stop" }).catch(() => {});
      },
      kill: () => {
        if (!exited) serving.kill();
      },
    },
  };
}

function get(url: string, agent: Agent | false, localAddress?: string): Promise<Buffer> {
  return new Promise((done, fail) => {
    const req = request(url, { agent, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        res.statusCode === 200 ? done(Buffer.concat(chunks)) : fail(new Error(`${url}: ${res.statusCode}`)),
      );
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end();
  });
}

async function main() {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tree = treeFor(args.at);
  const commit = args.at
    ? execFileSync("git", ["-C", here, "rev-parse", "--short", args.at], { encoding: "utf8" }).trim()
    : commitOf(undefined);
  const label = args.label ?? commit;
  const { server, state } = await serveFrom(tree, join(dir, "data"));
  log(`serving ${commit} at ${server.url}`);
  const results: Record<string, unknown>[] = [];
  try {
    const base = `${server.url}/dl/${state.username}/${state.slug}`;
    const keys = await openpgp.readKeys({ armoredKeys: await (await fetch(`${base}/gpg.key`)).text() });

    const verdicts = new Map<string, Promise<boolean>>();
    const verify = (repomd: Buffer, asc: Buffer): Promise<boolean> => {
      const key = `${createHash("sha256").update(repomd).digest("hex")}:${createHash("sha256").update(asc).digest("hex")}`;
      let verdict = verdicts.get(key);
      if (!verdict) {
        verdict = (async () => {
          const { signatures } = await openpgp.verify({
            message: await openpgp.createMessage({ binary: repomd }),
            signature: await openpgp.readSignature({ armoredSignature: asc.toString("utf8") }),
            verificationKeys: keys,
          });
          const results = await Promise.allSettled(signatures.map((s) => s.verified));
          return results.some((r) => r.status === "fulfilled");
        })();
        verdicts.set(key, verdict);
      }
      return verdict;
    };

    for (const kind of kinds) {
      // Publishes back to back for as long as the pairs run.
      let running = true;
      let publishes = 0;
      const publishing = (async () => {
        while (running) {
          await server.toggle();
          publishes++;
          if (publishGapMs > 0) await new Promise((done) => setTimeout(done, publishGapMs));
        }
      })();

      const clients = kind.startsWith("fresh4") ? 4 : 1;
      let bad = 0;
      const checks: Promise<void>[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          const agent = kind === "keepalive" ? new Agent({ keepAlive: true, maxSockets: 1 }) : false;
          const from = kind === "fresh4" ? `127.0.0.${2 + c}` : undefined;
          const count = Math.floor(pairs / clients) + (c < pairs % clients ? 1 : 0);
          for (let i = 0; i < count; i++) {
            const repomd = await get(`${base}/rpm/repodata/repomd.xml`, agent, from);
            const asc = await get(`${base}/rpm/repodata/repomd.xml.asc`, agent, from);
            checks.push(
              verify(repomd, asc).then((good) => {
                if (!good) bad++;
              }),
            );
          }
          if (agent) agent.destroy();
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      running = false;
      await publishing;
      await Promise.all(checks);
      const row = {
        kind,
        clients,
        publishGapMs,
        pairs,
        bad,
        publishes,
        seconds: Math.round(seconds * 10) / 10,
      };
      log(JSON.stringify(row));
      results.push(row);
    }
  } finally {
    await server.stop();
    server.kill();
  }

  const out = resolve(args.out ?? join(import.meta.dirname, "results", `entry-consistency-${label}.json`));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), commit, machine: machineInfo(), node: process.version, packages, results }, null, 2)}\n`,
  );
  console.log(`\n| client | pairs | BAD | publishes meanwhile | seconds |\n|---|---:|---:|---:|---:|`);
  for (const r of results)
    console.log(`| ${r.kind} | ${r.pairs} | ${r.bad} | ${r.publishes} | ${r.seconds} |`);
  log(`written ${out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

if (!existsSync(join(here, "apps/web/build/server/index.js"))) throw new Error('run "npm run build" first');
await main();
