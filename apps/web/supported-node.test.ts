// The README's supported Node.js is one `npm install` runs on without an engine warning: npm
// checks every package's `engines` against the Node it runs on (not the project's own Node 24,
// which runs the code), and a screen of EBADENGINE warnings looks like a failed install
// (decision 066).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  devDependencies: { node: string };
};
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

/** The lowest release of each Node.js line the README names ("Node.js 22.22 or newer, or 24"). */
function supportedNodes(): string[] {
  const statement = readme.match(/^Requires (Node\.js [^\n]*?) with npm/m)?.[1];
  expect(statement, "the README's quick start names the supported Node.js").toBeDefined();
  return [...statement!.matchAll(/\b(\d+)(?:\.(\d+))?\b/g)].map(
    ([, major, minor]) => `${major}.${minor ?? 0}.0`,
  );
}

describe("the supported Node.js", () => {
  it("is what the root package.json declares, and includes the project's own Node", () => {
    const nodes = supportedNodes();
    expect(nodes.length).toBeGreaterThan(0);
    for (const version of nodes) expect(semver.satisfies(version, manifest.engines.node), version).toBe(true);
    expect(semver.satisfies(manifest.devDependencies.node, manifest.engines.node)).toBe(true);
  });

  it("satisfies the engines of every package npm installs, so npm install warns of none", () => {
    const refused: string[] = [];
    for (const version of supportedNodes()) {
      for (const [path, entry] of Object.entries(lock.packages)) {
        // An optional package whose engines refuse the Node is skipped without a word.
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        if (entry.optional || range === undefined) continue;
        if (!semver.satisfies(version, range, { includePrerelease: true }))
          refused.push(`${path || "(root)"} needs node ${range}, not ${version}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
