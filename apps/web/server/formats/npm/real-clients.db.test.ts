// npm packages through the real npm client (issue 42), against Packyard on a loopback port: a
// scoped package published from a directory with the project's registry as the scope's (an
// isolated .npmrc holding the key as `_authToken`), installed into a temporary project and
// required, its dist-tags, a deprecation, a version unpublished, `npm view`, `npm search`,
// `npm whoami` and `npm ping` with the project's registry as the whole registry; a private
// project that a read key installs from but cannot publish to. SQLite, and PostgreSQL when
// configured. Nothing of the machine's own npm configuration or cache is read or written.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";

const run = promisify(execFile);
const hasTools = requireTools(["npm", "node"]);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let scratch: string;
let host: string;

/** The project's registry URL. */
const registry = (project: string) => `${server.url}/npm/acme/${project}/`;

/** An .npmrc for `scope` on `project`'s registry, with `token` as its _authToken (none: anonymous). */
function npmrc(name: string, lines: string[]): string {
  const path = join(scratch, `${name}.npmrc`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

const scopeConfig = (project: string, token?: string) => [
  `@acme:registry=${registry(project)}`,
  ...(token ? [`//${host}/npm/acme/${project}/:_authToken=${token}`] : []),
];

/** npm with its own configuration, cache and home; stdout and stderr, or throws with stderr. */
async function npmRun(args: string[], options: { cwd?: string; userconfig: string }) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/^npm_/i.test(key)) env[key] = value;
  Object.assign(env, {
    HOME: scratch,
    npm_config_userconfig: options.userconfig,
    npm_config_globalconfig: join(scratch, "global.npmrc"),
    npm_config_cache: join(scratch, "cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_loglevel: "error",
    npm_config_prefer_online: "true",
  });
  return run("npm", args, {
    cwd: options.cwd ?? scratch,
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
}

async function npm(args: string[], options: { cwd?: string; userconfig: string }): Promise<string> {
  return (await npmRun(args, options)).stdout;
}

async function refused(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  throw new Error("expected npm to fail");
}

/** A package directory as a developer has it: package.json, index.js, README.md. */
function packageDir(name: string, version: string): string {
  const dir = mkdtempSync(join(scratch, "pkg-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name,
      version,
      description: `The ${name} client`,
      main: "index.js",
      keywords: ["acme"],
    }),
  );
  writeFileSync(join(dir, "index.js"), `exports.hello = () => "hello from ${name}@${version}";\n`);
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe client.\n`);
  return dir;
}

function consumerDir(): string {
  const dir = mkdtempSync(join(scratch, "app-"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true }),
  );
  return dir;
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  host = new URL(server.url).host;
  pub = await publisher(server, "acme");
  await createProject("sdk", "public");
  await createProject("vault", "private");
  scratch = mkdtempSync(join(tmpdir(), "packyard-npm-cli-"));
  mkdirSync(join(scratch, "cache"));
  writeFileSync(join(scratch, "global.npmrc"), "");
}, 60_000);

afterAll(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await server?.close();
});

describe.runIf(hasTools)(`npm packages with the npm client (${databaseKind})`, () => {
  it("publishes a scoped package through the scope's registry and installs it into a project", async () => {
    const userconfig = npmrc("publisher", scopeConfig("sdk", pub.token));
    await npm(["publish"], { cwd: packageDir("@acme/sdk", "1.2.0"), userconfig });
    await npm(["publish"], { cwd: packageDir("@acme/sdk", "1.3.0"), userconfig });

    const reader = npmrc("reader", scopeConfig("sdk"));
    const app = consumerDir();
    await npm(["install", "@acme/sdk@1.2.0"], { cwd: app, userconfig: reader });
    const { stdout } = await run("node", ["-e", "console.log(require('@acme/sdk').hello())"], { cwd: app });
    expect(stdout.trim()).toBe("hello from @acme/sdk@1.2.0");
    // The release holds the file npm pack wrote.
    const files = await pub.api("/api/v1/projects/sdk/releases/1.2.0/files");
    expect(((await files.json()) as { files: { filename: string }[] }).files.map((f) => f.filename)).toEqual([
      "acme-sdk-1.2.0.tgz",
    ]);

    const view = JSON.parse(await npm(["view", "@acme/sdk", "--json"], { userconfig: reader }));
    expect(view).toMatchObject({
      name: "@acme/sdk",
      version: "1.3.0",
      versions: ["1.2.0", "1.3.0"],
      "dist-tags": { latest: "1.3.0" },
      description: "The @acme/sdk client",
    });
    expect(view.dist.tarball).toBe(`${registry("sdk")}@acme/sdk/-/sdk-1.3.0.tgz`);
  });

  it("adds, lists and removes dist-tags, deprecates a version and unpublishes one", async () => {
    const userconfig = npmrc("publisher", scopeConfig("sdk", pub.token));
    await npm(["dist-tag", "add", "@acme/sdk@1.2.0", "stable"], { userconfig });
    expect(await npm(["dist-tag", "ls", "@acme/sdk"], { userconfig })).toBe("latest: 1.3.0\nstable: 1.2.0\n");
    await npm(["dist-tag", "rm", "@acme/sdk", "stable"], { userconfig });
    expect(await npm(["dist-tag", "ls", "@acme/sdk"], { userconfig })).toBe("latest: 1.3.0\n");

    await npm(["deprecate", "@acme/sdk@1.2.0", "Use 1.3.0 or later"], { userconfig });
    expect((await npm(["view", "@acme/sdk@1.2.0", "deprecated"], { userconfig })).trim()).toBe(
      "Use 1.3.0 or later",
    );
    const installed = await npmRun(["install", "@acme/sdk@1.2.0", "--loglevel", "warn"], {
      cwd: consumerDir(),
      userconfig,
    });
    expect(installed.stderr).toMatch(/deprecated @acme\/sdk@1\.2\.0: Use 1\.3\.0 or later/);

    await npm(["unpublish", "@acme/sdk@1.3.0"], { userconfig });
    const view = JSON.parse(await npm(["view", "@acme/sdk", "--json"], { userconfig }));
    expect(view.versions).toEqual(["1.2.0"]);
    expect(view["dist-tags"]).toEqual({ latest: "1.2.0" });
    // An unpublished version is never published again.
    expect(await refused(npm(["publish"], { cwd: packageDir("@acme/sdk", "1.3.0"), userconfig }))).toMatch(
      /409|unpublished/,
    );
  });

  it("searches, and answers whoami and ping, with the project's registry as the whole registry", async () => {
    const whole = npmrc("whole", [
      `registry=${registry("sdk")}`,
      `//${host}/npm/acme/sdk/:_authToken=${pub.token}`,
    ]);
    const found = JSON.parse(await npm(["search", "sdk", "--json"], { userconfig: whole })) as {
      name: string;
      version: string;
    }[];
    expect(found.map((p) => [p.name, p.version])).toEqual([["@acme/sdk", "1.2.0"]]);
    expect((await npm(["whoami"], { userconfig: whole })).trim()).toBe("acme");
    await npm(["ping"], { userconfig: whole });
    // A key that is not one: npm reports the registry's 401.
    const wrong = npmrc("wrong", [
      `registry=${registry("sdk")}`,
      `//${host}/npm/acme/sdk/:_authToken=pky_not-a-key`,
    ]);
    expect(await refused(npm(["whoami"], { userconfig: wrong }))).toMatch(/E401/);
  });

  it("installs from a private project with a read key, which cannot publish; anonymous installs find nothing", async () => {
    await npm(["publish"], {
      cwd: packageDir("@acme/secret", "0.1.0"),
      userconfig: npmrc("vault-publisher", scopeConfig("vault", pub.token)),
    });
    const readKey = await pub.key({ projects: "*", access: "read" });
    const reader = npmrc("vault-reader", scopeConfig("vault", readKey));
    const app = consumerDir();
    await npm(["install", "@acme/secret"], { cwd: app, userconfig: reader });
    const { stdout } = await run("node", ["-e", "console.log(require('@acme/secret').hello())"], {
      cwd: app,
    });
    expect(stdout.trim()).toBe("hello from @acme/secret@0.1.0");
    expect(
      await refused(npm(["publish"], { cwd: packageDir("@acme/secret", "0.2.0"), userconfig: reader })),
    ).toMatch(/E403|403/);
    expect(
      await refused(
        npm(["install", "@acme/secret"], {
          cwd: consumerDir(),
          userconfig: npmrc("anon", scopeConfig("vault")),
        }),
      ),
    ).toMatch(/E404|404/);
  });
});
