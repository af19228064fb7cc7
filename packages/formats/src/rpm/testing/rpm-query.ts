// Test-only: asks the real rpm tool about a package file, to compare with what our reader extracts.
import { execFileSync } from "node:child_process";

/** `rpm -qp --qf FORMAT path`, as text. */
export function rpmQuery(path: string, format: string): string {
  return execFileSync("rpm", ["-qp", "--qf", format, path], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** `rpm -qp <args> path` (e.g. --requires, -l), split into lines. */
export function rpmQueryLines(path: string, ...args: string[]): string[] {
  const out = execFileSync("rpm", ["-qp", ...args, path], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return out.split("\n").filter((line) => line !== "");
}
