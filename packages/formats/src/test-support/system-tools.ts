// Tests that drive real system tools (dpkg-deb, rpmbuild, rpmkeys, gpgv, apt-get, dnf) call
// requireTools() first. In CI a missing tool fails the suite; on a developer's machine the
// test is skipped with a message saying what to install.
import { execFileSync } from "node:child_process";

export function missingTools(tools: string[]): string[] {
  return tools.filter((tool) => {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Returns true when every tool is present. When one is missing: throws under CI, otherwise
 * prints why and returns false so the caller can skip.
 */
export function requireTools(tools: string[]): boolean {
  const missing = missingTools(tools);
  if (missing.length === 0) return true;
  const message = `missing system tools: ${missing.join(", ")} (install them with apt-get; see .ci/run)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`skipping: ${message}`);
  return false;
}
