// What a results file records about the run: the commit, the machine, the tools' versions.
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";

export function commitOf(given: string | undefined): string {
  if (given) return given;
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
}

export function machineInfo() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "?",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: readFileSync("/etc/debian_version", "utf8").trim(),
    kernel: readFileSync("/proc/sys/kernel/osrelease", "utf8").trim(),
  };
}

/** A tool's version, from the first match of `pattern` in what `command` prints. */
export function toolVersion(command: string[], pattern: RegExp): string {
  const out = spawnSync(command[0]!, command.slice(1), { encoding: "utf8" });
  return pattern.exec(`${out.stdout}${out.stderr}`)?.[1] ?? "?";
}

/** Logs with the seconds since the benchmark started. */
export function logger(): (message: string) => void {
  const started = performance.now();
  return (message) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`[${seconds}s] ${message}\n`);
  };
}

/** What measuring Packyard needs: a writable clear_refs (per-step peak RSS) and the web build. */
export function checkPackyardPrerequisites(): void {
  try {
    accessSync("/proc/self/clear_refs", constants.W_OK);
  } catch {
    throw new Error("/proc/self/clear_refs is not writable: peak RSS per step cannot be measured here");
  }
  const build = join(import.meta.dirname, "../../apps/web/build/server/index.js");
  if (!existsSync(build)) throw new Error(`${build} is missing: run "npm run build" first`);
}

/** The tools missing from PATH (and /usr/bin/time). */
export function missingTools(tools: readonly string[]): string[] {
  const missing = tools.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  if (!existsSync("/usr/bin/time")) missing.push("/usr/bin/time (package: time)");
  return missing;
}
