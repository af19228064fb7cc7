// Vitest global setup: the tests run what npm would publish, so build dist/ once first; and one
// directory for the tests' throwaway HOMEs, removed at the end.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  execFileSync(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "build.ts")], {
    stdio: "inherit",
  });
  const homes = mkdtempSync(join(tmpdir(), "packyard-cli-homes-"));
  process.env.PACKYARD_CLI_TEST_HOMES = homes;
  return () => rmSync(homes, { recursive: true, force: true });
}
