// `npx packyard` in a fresh checkout: clone this repository's committed HEAD into a temporary
// directory, `npm ci` there (as a new contributor's `npm install` would; --prefer-offline takes
// packages from npm's cache when it has them), and `npx packyard --help` must work with no
// build step. Nothing is copied or linked from this checkout's node_modules: whether npm links
// the workspace bin, and whether what it links runs, is exactly what is being tested. Slow (a
// full install, about 15 s on an idle machine), so it is one test with a long timeout.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, expect, it } from "vitest";

const work = mkdtempSync(join(tmpdir(), "packyard-fresh-clone-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The environment of someone at a shell: no node_modules/.bin of this checkout on PATH. */
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.includes(`node_modules${"/"}.bin`))
    .join(delimiter),
};
for (const name of Object.keys(env)) if (/^(npm_|NODE_OPTIONS$|VITEST)/i.test(name)) delete env[name];

it("npx packyard --help works in a fresh clone after npm install", { timeout: 600_000 }, () => {
  const repo = execFileSync("git", ["rev-parse", "--show-toplevel"], {
    cwd: import.meta.dirname,
    encoding: "utf8",
  }).trim();
  const clone = join(work, "packyard");
  execFileSync("git", ["clone", "--quiet", repo, clone], { env });

  const install = spawnSync("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: clone,
    env,
    encoding: "utf8",
  });
  expect(install.status, install.stderr).toBe(0);
  // The workspace bin is linked (without it npx would look for "packyard" in the registry).
  expect(existsSync(join(clone, "node_modules", ".bin", "packyard"))).toBe(true);
  expect(existsSync(join(clone, "apps", "cli", "dist"))).toBe(false);

  const help = spawnSync("npx", ["packyard", "--help"], { cwd: clone, env, encoding: "utf8" });
  expect(help.status, help.stderr).toBe(0);
  expect(help.stdout).toMatch(/^packyard: publish releases to Packyard/);
  expect(help.stdout).toContain("push OWNER/PROJECT VERSION FILE");

  const { version } = JSON.parse(readFileSync(join(clone, "apps", "cli", "package.json"), "utf8")) as {
    version: string;
  };
  const printed = spawnSync("npx", ["packyard", "--version"], { cwd: clone, env, encoding: "utf8" });
  expect(printed.stdout).toBe(`${version}\n`);
});
