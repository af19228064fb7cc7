// APT publishing benchmark: Packyard against apt-ftparchive, reprepro and aptly, at 1,000 and
// 10,000 packages, in one run. See README.md beside this file for what every number means.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/apt/run.ts [--sizes 1000,10000] [--runs 7] [--dir /tmp/packyard-bench-apt]
//                         [--quiet-wait 2] [--no-profile] [--keep] [--packyard-only]
//                         [--out bench/apt/results/latest.json]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { measure as measure_, type Row, row } from "../lib/measure.ts";
import { PackyardServer, seedPackyard } from "../lib/packyard.ts";
import { accounted, type Sample, waitForQuiet } from "../lib/proc.ts";
import { type ReportInput, renderMarkdown } from "../lib/report.ts";
import {
  checkPackyardPrerequisites,
  commitOf,
  logger,
  machineInfo,
  missingTools,
  toolVersion as version,
} from "../lib/run-info.ts";
import { writeBenchDebs, writeNewDebs } from "./lib/debs.ts";
import { aptEntry } from "./lib/packyard.ts";
import { AptFtparchive, Aptly, makeGpgKey, Reprepro, stopGpgAgent } from "./lib/tools.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
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
const runs = Number(args.runs);
const quietWaitMs = Number(args["quiet-wait"]) * 1000;
const dir = resolve(args.dir);
const scratch = join(dir, "scratch");
const log = logger();

function preflight() {
  if (args["packyard-only"]) return checkPackyardPrerequisites();
  const missing = missingTools(["apt-ftparchive", "reprepro", "aptly", "gpg", "gpgconf"]);
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

async function main() {
  preflight();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const results: ReportInput & {
    sizes: Record<number, { rows: Row[]; setupSeconds: Record<string, number> }>;
  } = {
    date: new Date().toISOString(),
    commit: commitOf(args.commit),
    machine: machineInfo(),
    versions: {
      node: process.version,
      aptFtparchive: version(["apt-ftparchive", "--version"], /apt ([\d.]+)/),
      reprepro: version(["reprepro", "--version"], /version ([\d.]+)/),
      aptly: version(["aptly", "version"], /aptly version: (\S+)/),
      gpg: version(["gpg", "--version"], /gpg \(GnuPG\) (\S+)/),
    },
    runs,
    sizes: {},
    profile: undefined,
  };

  log("gpg: making an RSA-3072 signing key for the tools");
  const gpg = makeGpgKey(dir);
  const largest = Math.max(...sizes);
  log(`writing ${largest} .deb files`);
  const allDebs = writeBenchDebs(join(dir, "debs"), largest);

  try {
    for (const size of sizes) {
      const debs = allDebs.slice(0, size);
      const rows: Row[] = [];
      const setupSeconds: Record<string, number> = {};
      results.sizes[size] = { rows, setupSeconds };

      // ---- Packyard ----
      const dataDir = join(dir, `packyard-${size}`);
      log(`[${size}] Packyard: seeding ${size} packages through uploadFile`);
      const seeded = seedPackyard(dataDir, debs, scratch);
      setupSeconds["Packyard seed (uploadFile × N)"] = seeded.seedMs / 1000;
      setupSeconds["Packyard first publish"] = seeded.firstPublishMs / 1000;
      const newDebs = writeNewDebs(join(dir, `new-${size}`), runs + 1, `n${size}`);
      const profiling = !args["no-profile"] && size === largest;
      const server = await PackyardServer.start(dataDir, scratch);
      try {
        log(
          `[${size}] Packyard: (a) full build × ${runs}, idle RSS ${(server.idleRssKb / 1024).toFixed(0)} MiB`,
        );
        const first = await server.fullBuild();
        const builds = await measure(runs, () => server.fullBuild());
        rows.push(
          row(
            "a",
            "Packyard",
            "publish(projectId), repeated in the running server: stored rows → signed indexes",
            builds,
          ),
        );
        setupSeconds["Packyard first build in the serving process (not in the table)"] = first.ms / 1000;

        log(`[${size}] Packyard: (b) PUT → new InRelease × ${runs}`);
        await server.warmUp(aptEntry);
        // One unrecorded upload first, so the route's code is warm like a running server's.
        await server.addOne(newDebs[runs]!, "2.0.warmup", aptEntry);
        const adds = await measure(runs, (i) => server.addOne(newDebs[i]!, `2.0.${i}`, aptEntry));
        rows.push(row("b", "Packyard", "HTTP PUT of the .deb → new InRelease served", adds));

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
      log(`[${size}] Packyard: (a) first build in a fresh server process × ${runs}`);
      rows.push(
        row(
          "a",
          "Packyard",
          "publish(projectId), the first in a fresh server process (no in-memory caches, cold JIT)",
          await measure(runs, () => PackyardServer.coldBuild(dataDir, scratch)),
        ),
      );

      if (!args["packyard-only"]) {
        // ---- apt-ftparchive ----
        log(`[${size}] apt-ftparchive: (a) cold/warm × ${runs}`);
        const ftp = new AptFtparchive(join(dir, `ftparchive-${size}`), gpg, scratch);
        ftp.setup(debs);
        const cold: Sample[] = [];
        const warm: Sample[] = [];
        for (let i = 0; i < runs; i++) {
          await waitForQuiet(quietWaitMs);
          cold.push(await accounted(() => ftp.cold()));
          await waitForQuiet(quietWaitMs);
          warm.push(await accounted(() => ftp.warm()));
        }
        assertPackages("apt-ftparchive", ftp.packagesFile(), size);
        rows.push(
          row("a", "apt-ftparchive", "generate + release + 2 gpg signatures, cold (no cache DB)", cold),
        );
        rows.push(row("a", "apt-ftparchive", "generate + release + 2 gpg signatures, warm (cache DB)", warm));

        // ---- reprepro ----
        log(`[${size}] reprepro: set-up (includedeb of ${size} packages)`);
        const rr = new Reprepro(join(dir, `reprepro-${size}`), gpg, scratch);
        setupSeconds["reprepro includedeb × N + export"] = rr.setup(debs) / 1000;
        assertPackages("reprepro", rr.packagesFile(), size);
        log(`[${size}] reprepro: (a) export × ${runs}, (b) includedeb × ${runs}`);
        rows.push(
          row(
            "a",
            "reprepro",
            "export (all indexes from its DB, signed)",
            await measure(runs, () => rr.exportAll()),
          ),
        );
        const rrNew = writeNewDebs(join(dir, `new-rr-${size}`), runs, `r${size}`);
        rows.push(
          row(
            "b",
            "reprepro",
            "includedeb of one .deb (copy, DB, export, sign)",
            await measure(runs, (i) => rr.addOne(rrNew[i]!)),
          ),
        );
        assertPackages("reprepro after (b)", rr.packagesFile(), size + runs);

        // ---- aptly ----
        log(`[${size}] aptly: set-up (repo add of ${size} packages, publish repo)`);
        const aptly = new Aptly(join(dir, `aptly-${size}`), gpg, scratch);
        setupSeconds["aptly repo add N + publish repo"] = aptly.setup(debs) / 1000;
        assertPackages("aptly", aptly.packagesFile(), size);
        log(`[${size}] aptly: (a) publish update × ${runs}, (b) repo add + publish update × ${runs}`);
        rows.push(
          row(
            "a",
            "aptly",
            "publish update, nothing new (indexes regenerated, signed)",
            await measure(runs, () => aptly.republish()),
          ),
        );
        const aptlyNew = writeNewDebs(join(dir, `new-aptly-${size}`), runs, `a${size}`);
        rows.push(
          row(
            "b",
            "aptly",
            "repo add + publish update (gpg-signed)",
            await measure(runs, (i) => aptly.addOne(aptlyNew[i]!)),
          ),
        );
        assertPackages("aptly after (b)", aptly.packagesFile(), size + runs);
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
  const markdown = renderMarkdown(results, {
    node: "Node",
    aptFtparchive: "apt-ftparchive",
    reprepro: "reprepro",
    aptly: "aptly",
    gpg: "gpg",
  });
  writeFileSync(args.out.replace(/\.json$/, ".md"), markdown);
  process.stdout.write(markdown);
  log(`done; results in ${args.out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
