// YUM publishing benchmark: Packyard against createrepo_c (full, and --update), at 1,000,
// 10,000 and 50,000 small .rpm packages, in one run. See README.md beside this file for what
// every number means. Every comparison interleaves the systems' samples (Packyard,
// createrepo_c, Packyard, …); Packyard's (b) is shown beside its floor (bench/lib/floor.ts).
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/yum/run.ts [--sizes 1000,10000,50000] [--runs 7] [--dir /tmp/packyard-bench-yum]
//                         [--rpm-cache /tmp/packyard-bench-rpms] [--seed-cache DIR [--seed-only]]
//                         [--quiet-wait 2] [--no-profile] [--keep] [--out bench/yum/results/latest.json]
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PublishFloor } from "../lib/floor.ts";
import { makeGpgKey, stopGpgAgent } from "../lib/gpg.ts";
import {
  type InterleavedStep,
  interleave as interleave_,
  measure as measure_,
  type Row,
  row,
} from "../lib/measure.ts";
import { PackyardServer, seedPackyard } from "../lib/packyard.ts";
import type { SeedState } from "../lib/packyard-child.ts";
import { type Sample, summarize } from "../lib/proc.ts";
import { type ReportInput, renderMarkdown, renderRatios } from "../lib/report.ts";
import {
  checkPackyardPrerequisites,
  commitOf,
  logger,
  machineInfo,
  missingTools,
  toolVersion as version,
} from "../lib/run-info.ts";
import { Createrepo } from "./lib/createrepo.ts";
import { yumEntry, yumFloorInput } from "./lib/packyard.ts";
import { type BenchRpm, benchRpms, newRpms } from "./lib/rpms.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,50000" },
    runs: { type: "string", default: "7" },
    dir: { type: "string", default: "/tmp/packyard-bench-yum" },
    "rpm-cache": { type: "string", default: "/tmp/packyard-bench-rpms" },
    /** Seeded Packyard data directories kept here (yum-<N>) and copied per run. */
    "seed-cache": { type: "string" },
    /** Only fill --seed-cache for --sizes (niced, outside the benchmark lock); measure nothing. */
    "seed-only": { type: "boolean", default: false },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
    "no-profile": { type: "boolean", default: false },
    "quiet-wait": { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
  },
});

const sizes = args.sizes.split(",").map(Number);
const runs = Number(args.runs);
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
const rpmCache = resolve(args["rpm-cache"]);
const scratch = join(dir, "scratch");
const log = logger();
const measure = (count: number, step: (i: number) => Promise<Sample> | Sample) =>
  measure_(count, quietWaitMs, step);
const interleave = (count: number, systems: readonly InterleavedStep[]) =>
  interleave_(count, quietWaitMs, systems);

interface Ratio {
  what: string;
  value: number;
  target: string;
  met: boolean;
}

/**
 * A copy of a seeded data directory: stored blobs and index files are hard links (they are
 * immutable: written to a temporary file and renamed into place, never rewritten), the SQLite
 * database is copied.
 */
function copyDataDir(from: string, to: string) {
  rmSync(to, { recursive: true, force: true });
  const copied = spawnSync("cp", ["-al", from, to], { stdio: "inherit" });
  if (copied.status !== 0) throw new Error(`cp -al ${from} ${to} failed`);
  for (const name of readdirSync(to).filter((f) => f.startsWith("packyard.sqlite"))) {
    unlinkSync(join(to, name));
    copyFileSync(join(from, name), join(to, name));
  }
}

const keptState = (kept: string) => join(kept, "scratch", "packyard-state.json");

/**
 * The seeded data directory for N packages in --seed-cache (yum-<N>/seeded), seeded first when
 * missing: from the largest smaller yum-<M> kept there, extended with packages M+1 … N through
 * the same uploadFile path (the same project; the repository has one generation more), else
 * from nothing. Written under yum-<N>.partial and renamed when complete.
 */
function keptSeed(cache: string, rpms: readonly BenchRpm[], size: number): string {
  const kept = join(cache, `yum-${size}`);
  if (existsSync(keptState(kept))) return kept;
  const partial = `${kept}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(join(partial, "scratch"), { recursive: true });
  const base = (existsSync(cache) ? readdirSync(cache) : [])
    .map((name) => /^yum-(\d+)$/.exec(name)?.[1])
    .map(Number)
    .filter((m) => m > 0 && m < size && existsSync(keptState(join(cache, `yum-${m}`))))
    .sort((a, b) => a - b)
    .at(-1);
  if (base) {
    const from = join(cache, `yum-${base}`);
    const state = JSON.parse(readFileSync(keptState(from), "utf8")) as SeedState;
    if (state.packages !== base) throw new Error(`${from}: ${state.packages} packages, expected ${base}`);
    log(`[${size}] Packyard: seeding from the ${base} kept in ${from}, + ${size - base} through uploadFile`);
    copyDataDir(join(from, "seeded"), join(partial, "seeded"));
    cpSync(keptState(from), keptState(partial));
    seedPackyard(join(partial, "seeded"), rpms.slice(base, size), join(partial, "scratch"), {
      extend: true,
    });
  } else {
    log(`[${size}] Packyard: seeding ${size} packages through uploadFile into ${partial}`);
    seedPackyard(join(partial, "seeded"), rpms.slice(0, size), join(partial, "scratch"));
  }
  renameSync(partial, kept);
  return kept;
}

/** Seeds Packyard's data directory, or copies the one kept in --seed-cache (seeding it there first). */
function seeded(dataDir: string, rpms: readonly BenchRpm[], size: number): SeedState & { cached: boolean } {
  const cache = args["seed-cache"];
  if (!cache) return { ...seedPackyard(dataDir, rpms.slice(0, size), scratch), cached: false };
  const kept = keptSeed(resolve(cache), rpms, size);
  copyDataDir(join(kept, "seeded"), dataDir);
  cpSync(keptState(kept), join(scratch, "packyard-state.json"));
  return { ...(JSON.parse(readFileSync(keptState(kept), "utf8")) as SeedState), cached: true };
}

function preflight() {
  const missing = missingTools(["createrepo_c", "rpmbuild", "rpmsign", "gpg", "gpgconf"]);
  if (missing.length) {
    throw new Error(`missing: ${missing.join(", ")} — apt-get install -y createrepo-c rpm time gnupg`);
  }
  checkPackyardPrerequisites();
}

async function main() {
  preflight();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const results: ReportInput & {
    sizes: Record<number, { rows: Row[]; setupSeconds: Record<string, number>; ratios: Ratio[] }>;
  } = {
    date: new Date().toISOString(),
    commit: commitOf(args.commit),
    machine: machineInfo(),
    versions: {
      node: process.version,
      createrepo: version(["createrepo_c", "--version"], /Version: (\S+)/),
      rpm: version(["rpm", "--version"], /RPM version (\S+)/),
      gpg: version(["gpg", "--version"], /gpg \(GnuPG\) (\S+)/),
    },
    runs,
    sizes: {},
    profile: undefined,
  };

  /** The results so far (JSON, and the tables beside it): written after each size, so a run cut short keeps the sizes it finished. */
  const writeResults = () => {
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
    const markdown = `${renderMarkdown(results, {
      node: "Node",
      createrepo: "createrepo_c",
      rpm: "rpm",
      gpg: "gpg",
    })}${renderRatios(results.sizes)}`;
    writeFileSync(args.out.replace(/\.json$/, ".md"), markdown);
    return markdown;
  };
  const largest = Math.max(...sizes);
  const profiling = !args["no-profile"];
  const allRpms = await benchRpms(rpmCache, largest, log);
  if (args["seed-only"]) {
    if (!args["seed-cache"]) throw new Error("--seed-only needs --seed-cache DIR");
    for (const size of [...sizes].sort((a, b) => a - b)) {
      const started = performance.now();
      keptSeed(resolve(args["seed-cache"]), allRpms, size);
      log(`[${size}] kept in ${args["seed-cache"]} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  // New packages for (b): Packyard uses [0, runs] (a warm-up first) and, while profiling, the
  // next `runs`; createrepo_c uses [0, runs) without and [runs, 2·runs) with rpmsign. Each
  // repository is its own, so the same new names can go into every one.
  const fresh = await newRpms(rpmCache, 2 * runs + 1, log);
  log("gpg: making an RSA-3072 signing key for createrepo_c's repomd.xml.asc and rpmsign");
  const gpg = makeGpgKey(dir);

  const floor = await PublishFloor.create();
  try {
    for (const size of sizes) {
      const rpms = allRpms.slice(0, size);
      const rows: Row[] = [];
      const setupSeconds: Record<string, number> = {};
      const ratios: Ratio[] = [];
      results.sizes[size] = { rows, setupSeconds, ratios };
      const median = (samples: readonly Sample[]) => summarize(samples.map((x) => x.ms)).median;

      // ---- set-up, not compared ----
      const dataDir = join(dir, `packyard-${size}`);
      log(`[${size}] Packyard: seeding ${size} packages through uploadFile (each .rpm signed)`);
      const seed = seeded(dataDir, allRpms, size);
      const earlier = seed.cached ? ", earlier, kept in --seed-cache" : "";
      setupSeconds[`Packyard seed (uploadFile × N, .rpm signed${earlier})`] = seed.seedMs / 1000;
      setupSeconds[`Packyard first publish${earlier}`] = seed.firstPublishMs / 1000;
      log(`[${size}] createrepo_c: set-up (hard links, first build)`);
      const cr = new Createrepo(join(dir, `createrepo-${size}`), gpg, scratch);
      setupSeconds["createrepo_c first build (hard links + createrepo_c + gpg)"] = cr.setup(rpms) / 1000;
      cr.check("createrepo_c set-up", size);

      const server = await PackyardServer.start(dataDir, scratch);
      try {
        log(
          `[${size}] (a) full build × ${runs}, interleaved; Packyard idle RSS ${(server.idleRssKb / 1024).toFixed(0)} MiB`,
        );
        const first = await server.fullBuild();
        setupSeconds["Packyard first build in the serving process (not in the table)"] = first.ms / 1000;
        setupSeconds["Packyard start-up housekeeping, waited for (not in the table)"] =
          (await server.housekeeping()) / 1000;
        const [builds, full, update] = await interleave(runs, [
          { step: () => server.fullBuild() },
          { step: () => cr.full() },
          { step: () => cr.update() },
        ]);
        cr.check("createrepo_c (a)", size);
        rows.push(
          row(
            "a",
            "Packyard",
            "publish(projectId), repeated in the running server: stored yum_package rows → signed repodata",
            builds!,
          ),
          row("a", "createrepo_c", "full run over the N .rpm files + gpg --detach-sign repomd.xml", full!),
          row("a", "createrepo_c", "--update, nothing new + gpg --detach-sign repomd.xml", update!),
        );

        log(`[${size}] (b) one more package × ${runs}, interleaved`);
        await server.warmUp(yumEntry);
        // One unrecorded upload first, so the route's code is warm like a running server's.
        await server.addOne(fresh[runs]!, "2.0.warmup", yumEntry);
        const floors: Sample[] = [];
        const [adds, crAdds, crSignedAdds] = await interleave(runs, [
          {
            step: (i) => server.addOne(fresh[i]!, `2.0.${i}`, yumEntry),
            // Untimed: the floor of the publish just measured, on the files it served.
            after: async () => {
              floors.push(await floor.measure(await yumFloorInput(server)));
            },
          },
          { step: (i) => cr.addOne(fresh[i]!, { signRpm: false }) },
          { step: (i) => cr.addOne(fresh[runs + i]!, { signRpm: true }) },
        ]);
        cr.check(
          "createrepo_c (b)",
          size + 2 * runs,
          fresh.slice(0, 2 * runs).map((r) => r.name),
        );
        rows.push(
          row("b", "Packyard", "HTTP PUT of the .rpm (signed on upload) → new repomd.xml served", adds!),
          row(
            "b",
            "floor",
            "hash (SHA256) the three new .xml.gz and their XML, and repomd.xml; sign repomd.xml.asc",
            floors,
          ),
          row(
            "b",
            "createrepo_c",
            "cp of the .rpm + createrepo_c --update + gpg --detach-sign repomd.xml",
            crAdds!,
          ),
          row(
            "b",
            "createrepo_c",
            "the same + rpmsign --addsign of the .rpm (what Packyard's upload does)",
            crSignedAdds!,
          ),
        );
        ratios.push(
          {
            what: "(b) Packyard ÷ its floor",
            value: median(adds!) / median(floors),
            target: "≤ 1.5",
            met: median(adds!) / median(floors) <= 1.5,
          },
          {
            what: "(b) createrepo_c --update ÷ Packyard",
            value: median(crAdds!) / median(adds!),
            target: "(none; APT's is ≥ 5)",
            met: true,
          },
          {
            what: "(b) createrepo_c --update (+ rpmsign) ÷ Packyard",
            value: median(crSignedAdds!) / median(adds!),
            target: "(none; APT's is ≥ 5)",
            met: true,
          },
        );

        if (profiling && size === largest) {
          log(`[${size}] Packyard: profiling (b) × ${runs} (instrumented, CPU profile)`);
          results.profile = {
            size,
            ...(await server.profileAdds(
              fresh.slice(runs + 1, 2 * runs + 1),
              yumEntry,
              measure,
              join(dir, "packyard-yum-b.cpuprofile"),
            )),
          };
        }
      } finally {
        await server.stop();
      }
      log(
        `[${size}] (a) first build in a fresh server process × ${runs}, interleaved with createrepo_c --update`,
      );
      const [cold, coldPeer] = await interleave(runs, [
        { step: () => PackyardServer.coldBuild(dataDir, scratch) },
        { step: () => cr.update() },
      ]);
      rows.push(
        row(
          "a",
          "Packyard",
          "publish(projectId), the first in a fresh server process (no in-memory caches, cold JIT)",
          cold!,
        ),
        row("a", "createrepo_c", "--update, nothing new + gpg, beside the fresh-process build", coldPeer!),
      );
      ratios.push({
        what: "(a) first build in a fresh process ÷ createrepo_c --update",
        value: median(cold!) / median(coldPeer!),
        target: "(none)",
        met: true,
      });

      writeResults();
      if (!args.keep) {
        for (const name of [`packyard-${size}`, `createrepo-${size}`])
          rmSync(join(dir, name), { recursive: true, force: true });
      }
    }
  } finally {
    stopGpgAgent(gpg);
  }

  const markdown = writeResults();
  process.stdout.write(markdown);
  log(`done; results in ${args.out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
