// APT publishing benchmark: Packyard against apt-ftparchive, reprepro and aptly, at 1,000,
// 10,000 and 50,000 packages, in one run. See README.md beside this file for what every number
// means. Every comparison interleaves the systems' samples (Packyard, peer, Packyard, peer, …)
// so the shared machine's load falls on all alike; Packyard's (b) is shown beside its floor.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/apt/run.ts [--sizes 1000,10000,50000] [--runs 7] [--dir /tmp/packyard-bench-apt]
//                         [--peers reprepro,apt-ftparchive,aptly] [--big-mib 50] [--big-size 10000]
//                         [--seed-cache DIR] [--quiet-wait 2] [--no-profile] [--keep]
//                         [--packyard-only] [--out bench/apt/results/latest.json]
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { PublishFloor } from "../lib/floor.ts";
import {
  type InterleavedStep,
  interleave as interleave_,
  measure as measure_,
  type Row,
  row,
} from "../lib/measure.ts";
import { type PackageFile, PackyardServer, seedPackyard } from "../lib/packyard.ts";
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
import { writeBenchDebs, writeBigDebs, writeNewDebs } from "./lib/debs.ts";
import { aptEntry, aptFloorInput } from "./lib/packyard.ts";
import { AptFtparchive, Aptly, makeGpgKey, Reprepro, stopGpgAgent } from "./lib/tools.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,50000" },
    /** Which peers run (all three by default); reprepro is the one the targets name. */
    peers: { type: "string", default: "reprepro,apt-ftparchive,aptly" },
    /** (b) with one package of this many MiB (0: skipped), into the repository of --big-size. */
    "big-mib": { type: "string", default: "50" },
    "big-size": { type: "string", default: "10000" },
    /** Seeded Packyard data directories kept here between runs (the layout of bench/quick.ts). */
    "seed-cache": { type: "string" },
    runs: { type: "string", default: "7" },
    dir: { type: "string", default: "/tmp/packyard-bench-apt" },
    out: { type: "string", default: join(import.meta.dirname, "results", "latest.json") },
    commit: { type: "string" },
    "no-profile": { type: "boolean", default: false },
    "quiet-wait": { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
    /** Packyard's rows only: the peers need not be installed. */
    "packyard-only": { type: "boolean", default: false },
  },
});

const sizes = args.sizes.split(",").map(Number);
const peers = new Set(args["packyard-only"] ? [] : args.peers.split(",").filter(Boolean));
const bigMiB = Number(args["big-mib"]);
const bigSize = Number(args["big-size"]);
const runs = Number(args.runs);
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
const scratch = join(dir, "scratch");
const log = logger();

function preflight() {
  if (args["packyard-only"]) return checkPackyardPrerequisites();
  const tools = ["gpg", "gpgconf", ...[...peers].filter((p) => p !== "apt-ftparchive")];
  if (peers.has("apt-ftparchive")) tools.push("apt-ftparchive");
  const missing = missingTools(tools);
  if (missing.length) {
    throw new Error(
      `missing: ${missing.join(", ")} — apt-get install -y reprepro aptly time apt-utils gnupg`,
    );
  }
  checkPackyardPrerequisites();
}

const measure = (count: number, step: (i: number) => Promise<Sample> | Sample) =>
  measure_(count, quietWaitMs, step);

function assertPackages(label: string, text: string, expected: number) {
  const count = text.match(/^Package: /gm)?.length ?? 0;
  if (count !== expected) throw new Error(`${label}: Packages lists ${count} packages, expected ${expected}`);
}

const interleave = (count: number, systems: readonly InterleavedStep[]) =>
  interleave_(count, quietWaitMs, systems);

/** Seeds Packyard's data directory, or copies the one kept in --seed-cache (seeding it there first). */
function seeded(
  dataDir: string,
  debs: readonly PackageFile[],
  size: number,
): { seedMs: number; firstPublishMs: number } {
  const cache = args["seed-cache"];
  if (!cache) return seedPackyard(dataDir, debs, scratch);
  const kept = join(resolve(cache), `apt-${size}`);
  const state = join(kept, "scratch", "packyard-state.json");
  if (!existsSync(state) || !existsSync(join(kept, "seeded"))) {
    mkdirSync(join(kept, "scratch"), { recursive: true });
    seedPackyard(join(kept, "seeded"), debs, join(kept, "scratch"));
  }
  cpSync(join(kept, "seeded"), dataDir, { recursive: true });
  cpSync(state, join(scratch, "packyard-state.json"));
  return { seedMs: 0, firstPublishMs: 0 };
}

interface Ratio {
  what: string;
  value: number;
  target: string;
  met: boolean;
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
      ...(peers.has("apt-ftparchive")
        ? { aptFtparchive: version(["apt-ftparchive", "--version"], /apt ([\d.]+)/) }
        : {}),
      ...(peers.has("reprepro") ? { reprepro: version(["reprepro", "--version"], /version ([\d.]+)/) } : {}),
      ...(peers.has("aptly") ? { aptly: version(["aptly", "version"], /aptly version: (\S+)/) } : {}),
      gpg: version(["gpg", "--version"], /gpg \(GnuPG\) (\S+)/),
    },
    runs,
    sizes: {},
    profile: undefined,
  };

  log("gpg: making an RSA-3072 signing key for the tools");
  const gpg = makeGpgKey(dir);
  const floor = await PublishFloor.create();
  const largest = Math.max(...sizes);
  log(`writing ${largest} .deb files`);
  const allDebs = writeBenchDebs(join(dir, "debs"), largest);

  try {
    for (const size of sizes) {
      const debs = allDebs.slice(0, size);
      const rows: Row[] = [];
      const setupSeconds: Record<string, number> = {};
      const ratios: Ratio[] = [];
      results.sizes[size] = { rows, setupSeconds, ratios };

      // ---- set-up, not compared ----
      const dataDir = join(dir, `packyard-${size}`);
      log(`[${size}] Packyard: seeding ${size} packages through uploadFile`);
      const seed = seeded(dataDir, debs, size);
      setupSeconds["Packyard seed (uploadFile × N)"] = seed.seedMs / 1000;
      setupSeconds["Packyard first publish"] = seed.firstPublishMs / 1000;
      const ftp = peers.has("apt-ftparchive")
        ? new AptFtparchive(join(dir, `ftparchive-${size}`), gpg, scratch)
        : undefined;
      if (ftp) {
        log(`[${size}] apt-ftparchive: set-up`);
        ftp.setup(debs);
        ftp.cold();
      }
      const rr = peers.has("reprepro")
        ? new Reprepro(join(dir, `reprepro-${size}`), gpg, scratch)
        : undefined;
      if (rr) {
        log(`[${size}] reprepro: set-up (includedeb of ${size} packages)`);
        setupSeconds["reprepro includedeb × N + export"] = rr.setup(debs) / 1000;
        assertPackages("reprepro", rr.packagesFile(), size);
      }
      const aptly = peers.has("aptly") ? new Aptly(join(dir, `aptly-${size}`), gpg, scratch) : undefined;
      if (aptly) {
        log(`[${size}] aptly: set-up (repo add of ${size} packages, publish repo)`);
        setupSeconds["aptly repo add N + publish repo"] = aptly.setup(debs) / 1000;
        assertPackages("aptly", aptly.packagesFile(), size);
      }

      const profiling = !args["no-profile"] && size === largest;
      const server = await PackyardServer.start(dataDir, scratch);
      try {
        // ---- (a) repeated full build, interleaved ----
        log(
          `[${size}] (a) full build × ${runs}, interleaved; Packyard idle RSS ${(server.idleRssKb / 1024).toFixed(0)} MiB`,
        );
        const first = await server.fullBuild();
        setupSeconds["Packyard first build in the serving process (not in the table)"] = first.ms / 1000;
        setupSeconds["Packyard start-up housekeeping, waited for (not in the table)"] =
          (await server.housekeeping()) / 1000;
        const aSystems: { name: string; what: string; step: (i: number) => Promise<Sample> | Sample }[] = [
          {
            name: "Packyard",
            what: "publish(projectId), repeated in the running server: stored rows → signed indexes",
            step: () => server.fullBuild(),
          },
        ];
        if (rr)
          aSystems.push({
            name: "reprepro",
            what: "export (all indexes from its DB, signed)",
            step: () => rr.exportAll(),
          });
        if (ftp) {
          aSystems.push({
            name: "apt-ftparchive",
            what: "generate + release + 2 gpg signatures, cold (no cache DB)",
            step: () => ftp.cold(),
          });
          aSystems.push({
            name: "apt-ftparchive",
            what: "generate + release + 2 gpg signatures, warm (cache DB)",
            step: () => ftp.warm(),
          });
        }
        if (aptly)
          aSystems.push({
            name: "aptly",
            what: "publish update, nothing new (indexes regenerated, signed)",
            step: () => aptly.republish(),
          });
        const aSamples = await interleave(runs, aSystems);
        aSystems.forEach((system, i) => {
          rows.push(row("a", system.name, system.what, aSamples[i]!));
        });
        if (ftp) assertPackages("apt-ftparchive", ftp.packagesFile(), size);

        // ---- (b) one more package, interleaved; Packyard's floor after each of its samples ----
        log(`[${size}] (b) one more package × ${runs}, interleaved`);
        const newDebs = writeNewDebs(join(dir, `new-${size}`), runs + 1, `n${size}`);
        await server.warmUp(aptEntry);
        // One unrecorded upload first, so the route's code is warm like a running server's.
        await server.addOne(newDebs[runs]!, "2.0.warmup", aptEntry);
        const floors: Sample[] = [];
        const bSystems: {
          name: string;
          what: string;
          step: (i: number) => Promise<Sample> | Sample;
          after?: (i: number) => Promise<void>;
        }[] = [
          {
            name: "Packyard",
            what: "HTTP PUT of the .deb → new InRelease served",
            step: (i) => server.addOne(newDebs[i]!, `2.0.${i}`, aptEntry),
            // Untimed: the floor of the publish just measured, on the files it served.
            after: async () => {
              floors.push(await floor.measure(await aptFloorInput(server)));
            },
          },
        ];
        if (rr) {
          const rrNew = writeNewDebs(join(dir, `new-rr-${size}`), runs, `r${size}`);
          bSystems.push({
            name: "reprepro",
            what: "includedeb of one .deb (copy, DB, export, sign)",
            step: (i) => rr.addOne(rrNew[i]!),
          });
        }
        if (aptly) {
          const aptlyNew = writeNewDebs(join(dir, `new-aptly-${size}`), runs, `a${size}`);
          bSystems.push({
            name: "aptly",
            what: "repo add + publish update (gpg-signed)",
            step: (i) => aptly.addOne(aptlyNew[i]!),
          });
        }
        const bSamples = await interleave(runs, bSystems);
        bSystems.forEach((system, i) => {
          rows.push(row("b", system.name, system.what, bSamples[i]!));
          if (i === 0)
            rows.push(
              row(
                "b",
                "floor",
                "hash (SHA256 + SHA512) the new Packages, .gz, .xz and Release, sign InRelease + Release.gpg",
                floors,
              ),
            );
        });
        if (rr) assertPackages("reprepro after (b)", rr.packagesFile(), size + runs);
        if (aptly) assertPackages("aptly after (b)", aptly.packagesFile(), size + runs);
        const packyardB = summarize(bSamples[0]!.map((s) => s.ms)).median;
        const floorB = summarize(floors.map((s) => s.ms)).median;
        ratios.push({
          what: "(b) Packyard ÷ its floor",
          value: packyardB / floorB,
          target: "≤ 1.5",
          met: packyardB / floorB <= 1.5,
        });
        if (rr) {
          const rrB = summarize(bSamples[1]!.map((s) => s.ms)).median;
          ratios.push({
            what: "(b) reprepro includedeb ÷ Packyard",
            value: rrB / packyardB,
            target: "≥ 5",
            met: rrB / packyardB >= 5,
          });
        }

        // ---- (b) with one large package ----
        if (bigMiB > 0 && size === bigSize) {
          log(`[${size}] (b) one ${bigMiB} MiB package × ${runs}, interleaved`);
          const big = writeBigDebs(join(dir, `big-${size}`), runs, bigMiB);
          const bigSystems: { name: string; what: string; step: (i: number) => Promise<Sample> | Sample }[] =
            [
              {
                name: "Packyard",
                what: `HTTP PUT of a ${bigMiB} MiB .deb → new InRelease served`,
                step: (i) => server.addOne(big[i]!, `4.0.${i}`, aptEntry),
              },
            ];
          if (rr)
            bigSystems.push({
              name: "reprepro",
              what: `includedeb of the ${bigMiB} MiB .deb (copy, DB, export, sign)`,
              step: (i) => rr.addOne(big[i]!),
            });
          const bigSamples = await interleave(runs, bigSystems);
          bigSystems.forEach((system, i) => {
            rows.push(row("b", system.name, system.what, bigSamples[i]!));
          });
          if (rr) {
            const p = summarize(bigSamples[0]!.map((s) => s.ms)).median;
            const r = summarize(bigSamples[1]!.map((s) => s.ms)).median;
            ratios.push({
              what: `(b) ${bigMiB} MiB: reprepro ÷ Packyard`,
              value: r / p,
              target: "(none)",
              met: true,
            });
          }
          rmSync(join(dir, `big-${size}`), { recursive: true, force: true });
        }

        if (profiling) {
          log(`[${size}] Packyard: profiling (b) × ${runs} (instrumented, CPU profile)`);
          const extra = writeNewDebs(join(dir, `profile-${size}`), runs, `p${size}`);
          results.profile = {
            size,
            ...(await server.profileAdds(extra, aptEntry, measure, join(dir, "packyard-b.cpuprofile"))),
          };
        }
      } finally {
        await server.stop();
      }

      // ---- (a) the first build in a fresh server process, interleaved with reprepro export ----
      log(`[${size}] (a) first build in a fresh server process × ${runs}, interleaved`);
      const coldSystems: { name: string; what: string; step: (i: number) => Promise<Sample> | Sample }[] = [
        {
          name: "Packyard",
          what: "publish(projectId), the first in a fresh server process (no in-memory caches, cold JIT)",
          step: () => PackyardServer.coldBuild(dataDir, scratch),
        },
      ];
      if (rr)
        coldSystems.push({
          name: "reprepro",
          what: "export (all indexes from its DB, signed), beside the fresh-process build",
          step: () => rr.exportAll(),
        });
      const coldSamples = await interleave(runs, coldSystems);
      coldSystems.forEach((system, i) => {
        rows.push(row("a", system.name, system.what, coldSamples[i]!));
      });
      if (rr) {
        const p = summarize(coldSamples[0]!.map((s) => s.ms)).median;
        const r = summarize(coldSamples[1]!.map((s) => s.ms)).median;
        ratios.push({
          what: "(a) first build in a fresh process ÷ reprepro export",
          value: p / r,
          target: "≤ 1",
          met: p / r <= 1,
        });
      }

      // The packages of this size are no longer needed: keep the scratch directory small.
      if (!args.keep) {
        for (const name of [`packyard-${size}`, `ftparchive-${size}`, `reprepro-${size}`, `aptly-${size}`]) {
          rmSync(join(dir, name), { recursive: true, force: true });
        }
      }
    }
  } finally {
    stopGpgAgent(gpg);
  }

  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const markdown = `${renderMarkdown(results, {
    node: "Node",
    aptFtparchive: "apt-ftparchive",
    reprepro: "reprepro",
    aptly: "aptly",
    gpg: "gpg",
  })}${renderRatios(results.sizes)}`;
  writeFileSync(args.out.replace(/\.json$/, ".md"), markdown);
  process.stdout.write(markdown);
  log(`done; results in ${args.out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
