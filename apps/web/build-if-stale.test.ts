// When `npm start` rebuilds (decision 066): without a build, or when a file the build reads
// changed since the last one; never for server code the build does not include, nor for tests.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { buildSources, snapshot, staleReason, writeStamp } from "./build-if-stale.ts";
import { makeTempDir, removeTempDirs } from "./test/temp-dirs.ts";

let root: string;
const write = (path: string, text = "") => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
/** Marks a file changed a minute after everything else (no wait for the clock to tick). */
const touch = (path: string) => {
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(root, path), later, later);
};
/** A build made from the sources as they are now. */
const build = () => {
  const before = snapshot(root);
  write("apps/web/build/server/index.js");
  mkdirSync(join(root, "apps/web/build/client"), { recursive: true });
  write("apps/web/build/cli/packyard.mjs");
  writeStamp(root, before);
};

beforeEach(() => {
  root = makeTempDir("packyard-stale-");
  write("package.json", "{}");
  write("package-lock.json", "{}");
  write("apps/web/vite.config.ts", `import { islands } from "./islands-plugin.ts";`);
  write("apps/web/islands-plugin.ts");
  write(
    "apps/web/app/root.tsx",
    `import { plans } from "../server/plans.ts";\nimport ci from "../../../docs/ci/github-actions.yml?raw";`,
  );
  write("apps/web/app/routes/home.tsx", `export default function Home() {}`);
  write("apps/web/app/lib/format.test.ts", `import { x } from "../../server/only-tests.ts";`);
  write("apps/web/server/plans.ts", `export * from "./limits.ts";\nconst m = await import("./lazy");`);
  write("apps/web/server/limits.ts");
  write("apps/web/server/lazy.ts");
  write("apps/web/server/start.ts", `import { plans } from "./plans.ts";`);
  write("apps/web/server/only-tests.ts");
  write("docs/ci/github-actions.yml");
  write("packages/formats/src/deb.ts");
  write("packages/formats/node_modules/dep/index.js");
});
afterAll(removeTempDirs);

describe("the sources of the build", () => {
  it("are the app, packages and configuration, and what they import by a relative path", () => {
    expect(buildSources(root)).toEqual([
      "apps/web/app/root.tsx",
      "apps/web/app/routes/home.tsx",
      "apps/web/islands-plugin.ts",
      "apps/web/server/lazy.ts",
      "apps/web/server/limits.ts",
      "apps/web/server/plans.ts",
      "apps/web/vite.config.ts",
      "docs/ci/github-actions.yml",
      "package-lock.json",
      "package.json",
      "packages/formats/src/deb.ts",
    ]);
  });
});

describe("whether npm start builds", () => {
  it("builds when there is no build, or no record of the sources it was made from", () => {
    expect(staleReason(root)).toBe("apps/web/build/server/index.js is missing");
    build();
    rmSync(join(root, "apps/web/build/.sources.json"));
    expect(staleReason(root)).toBe("no build was made by npm start yet");
  });

  it("does not build again when nothing changed", () => {
    build();
    expect(staleReason(root)).toBeUndefined();
  });

  it.each([
    "apps/web/app/routes/home.tsx",
    "apps/web/server/limits.ts",
    "apps/web/islands-plugin.ts",
    "packages/formats/src/deb.ts",
    "package-lock.json",
    "docs/ci/github-actions.yml",
  ])("builds when %s changed, and names it", (file) => {
    build();
    touch(file);
    expect(staleReason(root)).toBe(`${file} changed`);
  });

  it("does not build for server code the build does not include, tests or dependencies", () => {
    build();
    touch("apps/web/server/start.ts");
    touch("apps/web/server/only-tests.ts");
    touch("apps/web/app/lib/format.test.ts");
    touch("packages/formats/node_modules/dep/index.js");
    expect(staleReason(root)).toBeUndefined();
  });

  it("builds when a source was added or removed, whatever its time", () => {
    build();
    write("apps/web/app/routes/new.tsx");
    utimesSync(join(root, "apps/web/app/routes/new.tsx"), new Date(0), new Date(0));
    expect(staleReason(root)).toBe("a source file was added, removed or renamed");
    build();
    rmSync(join(root, "packages/formats/src/deb.ts"));
    expect(staleReason(root)).toBe("a source file was added, removed or renamed");
  });

  it("builds when a part of the build is missing", () => {
    build();
    rmSync(join(root, "apps/web/build/cli"), { recursive: true });
    expect(staleReason(root)).toBe("apps/web/build/cli/packyard.mjs is missing");
  });

  it("builds again when a source changed while the last build ran", () => {
    const before = snapshot(root);
    touch("apps/web/app/root.tsx"); // saved during the build
    write("apps/web/build/server/index.js");
    mkdirSync(join(root, "apps/web/build/client"), { recursive: true });
    write("apps/web/build/cli/packyard.mjs");
    writeStamp(root, before);
    expect(staleReason(root)).toBe("apps/web/app/root.tsx changed");
  });
});
