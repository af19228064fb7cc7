// YUM publishing benchmark: Packyard against createrepo_c (full, and --update), at 1,000 and
// 10,000 small .rpm packages, in one run. See README.md beside this file for what every number
// means.
//
//   export PATH=$PWD/node_modules/.bin:$PATH
//   node bench/yum/run.ts [--sizes 1000,10000] [--runs 7] [--dir /tmp/packyard-bench-yum]
//                         [--rpm-cache /tmp/packyard-bench-rpms] [--quiet-wait 2] [--no-profile]
//                         [--keep] [--out bench/yum/results/latest.json]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { makeGpgKey, stopGpgAgent } from "../lib/gpg.ts";
import { measure as measure_, type Row, row } from "../lib/measure.ts";
import { PackyardServer, seedPackyard } from "../lib/packyard.ts";
import type { Sample } from "../lib/proc.ts";
import { type ReportInput, renderMarkdown } from "../lib/report.ts";
import {
  checkPackyardPrerequisites,
  commitOf,
  logger,
  machineInfo,
  missingTools,
  toolVersion as version,
} from "../lib/run-info.ts";
import { Createrepo } from "./lib/createrepo.ts";
import { yumEntry } from "./lib/packyard.ts";
import { benchRpms, newRpms } from "./lib/rpms.ts";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    runs: { type: "string", default: "7" },
    dir: { type: "string", default: "/tmp/packyard-bench-yum" },
    "rpm-cache": { type: "string", default: "/tmp/packyard-bench-rpms" },
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
    sizes: Record<number, { rows: Row[]; setupSeconds: Record<string, number> }>;
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

  const largest = Math.max(...sizes);
  const profiling = !args["no-profile"];
  const allRpms = await benchRpms(rpmCache, largest, log);
  // New packages for (b): Packyard uses [0, runs] (a warm-up first) and, while profiling, the
  // next `runs`; createrepo_c uses [0, runs) without and [runs, 2·runs) with rpmsign. Each
  // repository is its own, so the same new names can go into every one.
  const fresh = await newRpms(rpmCache, 2 * runs + 1, log);
  log("gpg: making an RSA-3072 signing key for createrepo_c's repomd.xml.asc and rpmsign");
  const gpg = makeGpgKey(dir);

  try {
    for (const size of sizes) {
      const rpms = allRpms.slice(0, size);
      const rows: Row[] = [];
      const setupSeconds: Record<string, number> = {};
      results.sizes[size] = { rows, setupSeconds };

      // ---- Packyard ----
      const dataDir = join(dir, `packyard-${size}`);
      log(`[${size}] Packyard: seeding ${size} packages through uploadFile (each .rpm signed)`);
      const seeded = seedPackyard(dataDir, rpms, scratch);
      setupSeconds["Packyard seed (uploadFile × N, .rpm signed)"] = seeded.seedMs / 1000;
      setupSeconds["Packyard first publish"] = seeded.firstPublishMs / 1000;
      const server = await PackyardServer.start(dataDir, scratch);
      try {
        log(
          `[${size}] Packyard: (a) full build × ${runs}, idle RSS ${(server.idleRssKb / 1024).toFixed(0)} MiB`,
        );
        const first = await server.fullBuild();
        setupSeconds["Packyard first build in the serving process (not in the table)"] = first.ms / 1000;
        rows.push(
          row(
            "a",
            "Packyard",
            "publish(projectId), repeated in the running server: stored yum_package rows → signed repodata",
            await measure(runs, () => server.fullBuild()),
          ),
        );

        log(`[${size}] Packyard: (b) PUT → new repomd.xml × ${runs}`);
        await server.warmUp(yumEntry);
        // One unrecorded upload first, so the route's code is warm like a running server's.
        await server.addOne(fresh[runs]!, "2.0.warmup", yumEntry);
        rows.push(
          row(
            "b",
            "Packyard",
            "HTTP PUT of the .rpm (signed on upload) → new repomd.xml served",
            await measure(runs, (i) => server.addOne(fresh[i]!, `2.0.${i}`, yumEntry)),
          ),
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
      log(`[${size}] Packyard: (a) first build in a fresh server process × ${runs}`);
      rows.push(
        row(
          "a",
          "Packyard",
          "publish(projectId), the first in a fresh server process (no in-memory caches, cold JIT)",
          await measure(runs, () => PackyardServer.coldBuild(dataDir, scratch)),
        ),
      );

      // ---- createrepo_c ----
      log(`[${size}] createrepo_c: set-up (hard links, first build)`);
      const cr = new Createrepo(join(dir, `createrepo-${size}`), gpg, scratch);
      setupSeconds["createrepo_c first build (hard links + createrepo_c + gpg)"] = cr.setup(rpms) / 1000;
      cr.check("createrepo_c set-up", size);
      log(`[${size}] createrepo_c: (a) full × ${runs}, --update × ${runs}`);
      const full: Sample[] = [];
      const update: Sample[] = [];
      for (let i = 0; i < runs; i++) {
        full.push(...(await measure(1, () => cr.full())));
        update.push(...(await measure(1, () => cr.update())));
      }
      cr.check("createrepo_c (a)", size);
      rows.push(
        row("a", "createrepo_c", "full run over the N .rpm files + gpg --detach-sign repomd.xml", full),
      );
      rows.push(row("a", "createrepo_c", "--update, nothing new + gpg --detach-sign repomd.xml", update));

      log(`[${size}] createrepo_c: (b) cp + --update × ${runs}, rpmsign + cp + --update × ${runs}`);
      rows.push(
        row(
          "b",
          "createrepo_c",
          "cp of the .rpm + createrepo_c --update + gpg --detach-sign repomd.xml",
          await measure(runs, (i) => cr.addOne(fresh[i]!, { signRpm: false })),
        ),
      );
      cr.check(
        "createrepo_c (b)",
        size + runs,
        fresh.slice(0, runs).map((r) => r.name),
      );
      rows.push(
        row(
          "b",
          "createrepo_c",
          "the same + rpmsign --addsign of the .rpm (what Packyard's upload does)",
          await measure(runs, (i) => cr.addOne(fresh[runs + i]!, { signRpm: true })),
        ),
      );
      cr.check(
        "createrepo_c (b, rpmsign)",
        size + 2 * runs,
        fresh.slice(runs, 2 * runs).map((r) => r.name),
      );

      if (!args.keep) {
        for (const name of [`packyard-${size}`, `createrepo-${size}`])
          rmSync(join(dir, name), { recursive: true, force: true });
      }
    }
  } finally {
    stopGpgAgent(gpg);
  }

  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderMarkdown(results, {
    node: "Node",
    createrepo: "createrepo_c",
    rpm: "rpm",
    gpg: "gpg",
  });
  writeFileSync(args.out.replace(/\.json$/, ".md"), markdown);
  process.stdout.write(markdown);
  log(`done; results in ${args.out}`);
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
