// A quick loop for working on publish speed: Packyard's (b) alone — one more package into an
// N-package repository, HTTP PUT → new entry file served — without the peers, on a seeded data
// directory kept between runs (seeding 10,000 packages takes 15–40 s; each run copies it).
// Not a substitute for bench/apt/run.ts and bench/yum/run.ts, whose numbers go in the docs.
//
//   node bench/quick.ts apt|yum [--size 10000] [--runs 9] [--dir /tmp/packyard-bench-quick] [--profile]
//
// QUICK_EXEC_ARGV="--trace-gc" passes Node flags to the server process (here: its collections).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeBenchDebs, writeNewDebs } from "./apt/lib/debs.ts";
import { aptEntry } from "./apt/lib/packyard.ts";
import { summarizeCpuProfile } from "./lib/cpuprofile.ts";
import { type EntryProbe, type PackageFile, PackyardServer, seedPackyard } from "./lib/packyard.ts";
import { summarize } from "./lib/proc.ts";
import { yumEntry } from "./yum/lib/packyard.ts";
import { benchRpms, newRpms } from "./yum/lib/rpms.ts";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: "string", default: "10000" },
    runs: { type: "string", default: "9" },
    dir: { type: "string", default: "/tmp/packyard-bench-quick" },
    profile: { type: "boolean", default: false },
  },
});
const format = positionals[0];
if (format !== "apt" && format !== "yum") throw new Error("usage: node bench/quick.ts apt|yum [options]");
const size = Number(args.size);
const runs = Number(args.runs);
const dir = resolve(args.dir, `${format}-${size}`);
const log = (message: string) => process.stderr.write(`${message}\n`);

async function packages(): Promise<{ base: PackageFile[]; fresh: PackageFile[]; probe: EntryProbe }> {
  if (format === "apt") {
    return {
      base: writeBenchDebs(join(dir, "debs"), size),
      fresh: writeNewDebs(join(dir, `new-${Date.now()}`), runs + 1, `q${Date.now()}`),
      probe: aptEntry,
    };
  }
  const cache = "/tmp/packyard-bench-rpms";
  const fresh = await newRpms(cache, 2 * runs + 2, log);
  return { base: await benchRpms(cache, size, log), fresh, probe: yumEntry };
}

async function main() {
  mkdirSync(join(dir, "scratch"), { recursive: true });
  const { base, fresh, probe } = await packages();
  const seeded = join(dir, "seeded");
  if (!existsSync(join(dir, "scratch", "packyard-state.json")) || !existsSync(seeded)) {
    log(`seeding ${size} packages into ${seeded}`);
    seedPackyard(seeded, base, join(dir, "scratch"));
  }
  const work = join(dir, "work");
  rmSync(work, { recursive: true, force: true });
  cpSync(seeded, work, { recursive: true });
  const server = await PackyardServer.start(work, join(dir, "scratch"), {
    execArgv: process.env.QUICK_EXEC_ARGV?.split(" ").filter(Boolean) ?? [],
  });
  try {
    await server.fullBuild();
    const housekeeping = await server.housekeeping();
    log(`start-up housekeeping done after ${housekeeping.toFixed(0)} ms`);
    await server.warmUp(probe);
    await server.addOne(fresh[runs]!, "9.0.warmup", probe);
    if (args.profile) await server.call("cpuprofile-start");
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await server.addOne(fresh[i]!, `9.0.${i}`, probe));
    if (args.profile) {
      const file = join(dir, "quick.cpuprofile");
      await server.call("cpuprofile-stop", { file });
      console.log(JSON.stringify(summarizeCpuProfile(JSON.parse(readFileSync(file, "utf8")), runs), null, 1));
    }
    const ms = summarize(samples.map((s) => s.ms));
    const put = samples.map((s) => s.extra?.["PUT answered ms"] ?? 0);
    // From the PUT's answer to the new entry file served: the client's GET of it, mostly.
    const served = summarize(samples.map((s, i) => s.ms - put[i]!));
    console.log(
      JSON.stringify({
        format,
        size,
        runs,
        ms,
        putAnswered: summarize(put),
        servedAfterAnswer: served,
        all: samples.map((s) => +s.ms.toFixed(1)),
      }),
    );
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
