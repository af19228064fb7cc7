// `npm start` builds only when it must: when there is no build, or when a file the build reads
// changed since the last build this script made (decision 066). The build reads the app, the CLI
// it serves, the shared packages, the build's configuration and the lockfile wholesale, plus
// every file those import by a relative path (the server code the app imports, docs/ci's
// examples); the rest of server/ runs from source and never needs a build.
//   node apps/web/build-if-stale.ts   (from the repository root; prints one line)
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Read whole, every file under them (tests and generated files aside). */
const TREES = [
  "apps/web/app",
  "apps/web/content",
  "apps/web/public",
  "apps/cli/src",
  "apps/cli/scripts",
  "packages",
];

/** Single files the build reads: configuration, manifests and the lockfile. */
const FILES = [
  "package.json",
  "package-lock.json",
  "apps/web/package.json",
  "apps/web/tsconfig.json",
  "apps/web/vite.config.ts",
  "apps/web/react-router.config.ts",
  "apps/cli/package.json",
  "apps/cli/tsconfig.json",
];

/** What a build must have made for the server to start from it. */
const OUTPUTS = [
  "apps/web/build/server/index.js",
  "apps/web/build/client",
  "apps/web/build/cli/packyard.mjs",
];

export const STAMP = "apps/web/build/.sources.json";

const SKIPPED_DIRS = new Set(["node_modules", "build", "dist", ".react-router", "coverage", "test-results"]);
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const SCANNED = /\.[cm]?[jt]sx?$/;
/** `from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")`, `export … from "./x.ts"`; a query (`?raw`) dropped. */
const RELATIVE_IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"'?]+)/g;

/** The files the build reads, as paths relative to `root`, sorted. */
export function buildSources(root: string): string[] {
  const found = new Set<string>();
  const queue: string[] = [];
  const add = (path: string) => {
    if (found.has(path)) return;
    found.add(path);
    queue.push(path);
  };
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path);
      } else if (entry.isFile() && !TEST_FILE.test(entry.name)) add(path);
    }
  };
  for (const tree of TREES) if (existsSync(join(root, tree))) walk(join(root, tree));
  for (const file of FILES) if (existsSync(join(root, file))) add(join(root, file));
  // What those files import by a relative path, however deep (e.g. app/ → server/ → server/).
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (!SCANNED.test(path)) continue;
    for (const [, specifier] of readFileSync(path, "utf8").matchAll(RELATIVE_IMPORT)) {
      const target = resolveImport(resolve(dirname(path), specifier!));
      if (target && !target.split(/[\\/]/).includes("node_modules")) add(target);
    }
  }
  return [...found].map((path) => relative(root, path)).sort();
}

function resolveImport(path: string): string | undefined {
  for (const candidate of [path, `${path}.ts`, `${path}.tsx`, join(path, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The sources as a build saw them: which files (a hash of their paths) and the newest change. */
export interface SourcesSnapshot {
  files: string;
  newestMs: number;
  newest: string;
}

export function snapshot(root: string): SourcesSnapshot {
  let newestMs = 0;
  let newest = "";
  const files = buildSources(root);
  for (const file of files) {
    const { mtimeMs } = statSync(join(root, file));
    if (mtimeMs > newestMs) {
      newestMs = mtimeMs;
      newest = file;
    }
  }
  return { files: createHash("sha256").update(files.join("\n")).digest("hex"), newestMs, newest };
}

/** Why the build must be made again, or undefined when it is up to date. */
export function staleReason(root: string, now: SourcesSnapshot = snapshot(root)): string | undefined {
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)));
  if (missing) return `${missing} is missing`;
  let built: SourcesSnapshot;
  try {
    built = JSON.parse(readFileSync(join(root, STAMP), "utf8")) as SourcesSnapshot;
  } catch {
    return "no build was made by npm start yet";
  }
  if (built.files !== now.files) return "a source file was added, removed or renamed";
  if (now.newestMs > built.newestMs) return `${now.newest} changed`;
  return undefined;
}

/** Records the sources a successful build was made from: those seen before it started. */
export function writeStamp(root: string, before: SourcesSnapshot): void {
  mkdirSync(dirname(join(root, STAMP)), { recursive: true });
  writeFileSync(join(root, STAMP), `${JSON.stringify(before)}\n`);
}

function main(): number {
  const root = resolve(import.meta.dirname, "..", "..");
  const before = snapshot(root);
  const reason = staleReason(root, before);
  if (reason === undefined) {
    console.log("build: up to date, not rebuilding");
    return 0;
  }
  console.log(`build: building (${reason})`);
  // A build that fails half-way must not pass for the last good one.
  rmSync(join(root, STAMP), { force: true });
  const { status } = spawnSync("npm", ["run", "--silent", "build"], { cwd: root, stdio: "inherit" });
  if (status !== 0) return status ?? 1;
  // The snapshot from before the build: a file changed while it ran makes the next start build.
  writeStamp(root, before);
  return 0;
}

if (import.meta.main) process.exitCode = main();
