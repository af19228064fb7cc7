// Builds what npm publishes: tsc compiles src (with the contract and rpm-layout code it imports
// from packages/) into dist/, keeping the repository's layout, and dist/bin.js is the entry
// point the `packyard` bin names.
import { execFileSync } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");
const dist = join(root, "dist");
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
const bin = join(dist, "bin.js");
writeFileSync(bin, '#!/usr/bin/env node\nimport "./apps/cli/src/bin.js";\n');
chmodSync(bin, 0o755);
