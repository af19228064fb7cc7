// Publishes a seeded data directory (bench/apt/run.ts --seed-cache DIR keeps them as
// DIR/apt-<N>) once with this checkout's Packyard, into a copy: as the first publish after an
// upgrade does, so the fresh-process build (a) starts from files this version wrote (decision
// 042: the Packages.gz members carry their block keys).
//
//   node bench/apt/publish-seed.ts /tmp/apt-seed/apt-50000 /tmp/hp-seed/apt-50000
//   node bench/apt/run.ts --sizes 50000 --seed-cache /tmp/hp-seed …
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PackyardServer } from "../lib/packyard.ts";

const [source, target] = process.argv.slice(2);
if (!source || !target || source === target) {
  process.stderr.write("usage: node bench/apt/publish-seed.ts <seeded apt-N dir> <new apt-N dir>\n");
  process.exit(2);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
const published = await PackyardServer.coldBuild(join(target, "seeded"), join(target, "scratch"));
console.log(`published once: ${JSON.stringify(published)}`);
