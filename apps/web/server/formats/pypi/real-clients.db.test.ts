// The Python index through real clients (issue 42): Debian's twine 4.0.2 uploads a wheel and an
// sdist written by the test (Metadata-Version 2.1), Debian's pip installs them from the index in
// hash-checking mode into a temporary directory and imports them, skips a yanked version unless
// it is pinned, builds the sdist; a private project's index refuses anonymous pip, lets a read
// key install and refuses its twine upload. pip and twine see nothing of the machine's
// configuration and reach nothing beyond 127.0.0.1. SQLite, and PostgreSQL when configured.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { SIMPLE_JSON } from "./simple-pages.ts";
import { buildSdist, buildWheel, type DistributionSpec } from "./test-distributions.ts";

const run = promisify(execFile);
const hasTools = requireTools(["twine", "python3"]);
// Debian's Python (and its pip), not a pyenv shim earlier in PATH.
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let scratch: string;

/** The environment of twine and pip: nothing of the machine's configuration, no prompts, no keyring. */
function isolated(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(PIP_|TWINE_|PYTHON|VIRTUAL_ENV)/.test(key)) env[key] = value;
  return {
    ...env,
    HOME: scratch,
    XDG_CONFIG_HOME: join(scratch, ".config"),
    PIP_CONFIG_FILE: "/dev/null",
    PIP_NO_INPUT: "1",
    PYTHON_KEYRING_BACKEND: "keyring.backends.null.Keyring",
    NO_COLOR: "1",
    // rich (twine's output) wraps at the terminal's width: one message on one line.
    COLUMNS: "400",
  };
}

/** stdout and stderr of a command that succeeds; its output in the error when it fails. */
async function ok(command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, {
      env: isolated(),
      cwd: scratch,
      maxBuffer: 16 * 1024 * 1024,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${e.message}\n${e.stdout}\n${e.stderr}`);
  }
}

/** The output of a command expected to fail. */
async function fails(command: string, args: string[]): Promise<string> {
  try {
    await run(command, args, { env: isolated(), cwd: scratch, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return `${e.stdout}\n${e.stderr}`;
  }
  throw new Error(`expected ${command} ${args.join(" ")} to fail`);
}

/** Writes the distributions into a new directory; returns their paths. */
function writeDistributions(files: { filename: string; bytes: Uint8Array }[]): string[] {
  const dir = mkdtempSync(join(scratch, "dist-"));
  return files.map((file) => {
    const path = join(dir, file.filename);
    writeFileSync(path, file.bytes);
    return path;
  });
}

function twineUpload(project: string, key: string, paths: string[]) {
  return [
    "upload",
    "--non-interactive",
    "--disable-progress-bar",
    "--repository-url",
    `${server.url}/pypi/shipper/${project}/`,
    "-u",
    "__token__",
    "-p",
    key,
    ...paths,
  ];
}

/** The index URL pip takes, with the credential in it when there is one. */
function indexUrl(project: string, key?: string) {
  const url = new URL(`${server.url}/pypi/shipper/${project}/simple/`);
  if (key) {
    url.username = "__token__";
    url.password = key;
  }
  return url.toString();
}

/** pip install into a new directory; returns the directory. */
async function pipInstall(project: string, key: string | undefined, args: string[]) {
  const target = mkdtempSync(join(scratch, "target-"));
  await ok(PYTHON, [
    "-m",
    "pip",
    "install",
    "--no-cache-dir",
    "--disable-pip-version-check",
    "--no-input",
    "--index-url",
    indexUrl(project, key),
    "--target",
    target,
    ...args,
  ]);
  return target;
}

/** What `module` says of itself when imported from `target`. */
async function imported(target: string, module: string, expression = `${module}.VERSION`) {
  const { stdout } = await run(PYTHON, ["-c", `import ${module}; print(${expression})`], {
    env: { ...isolated(), PYTHONPATH: target },
  });
  return stdout.trim();
}

async function createProject(slug: string, visibility: "public" | "private") {
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug, visibility }),
  });
  expect(res.status).toBe(201);
}

const v1: DistributionSpec = { name: "Acme_SDK", version: "1.0", requiresPython: ">=3.7" };
const v11: DistributionSpec = { ...v1, version: "1.1" };

beforeAll(async () => {
  if (!hasTools) return;
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  pub = await publisher(server, "shipper");
  await createProject("sdk", "public");
  await createProject("vault", "private");
  scratch = mkdtempSync(join(tmpdir(), "packyard-pip-"));
});
afterAll(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.runIf(hasTools)(`Python packages with twine and pip (${databaseKind})`, () => {
  it("uploads a wheel and an sdist with twine, refuses the same file again, and --skip-existing skips it", async () => {
    const wheel = buildWheel(v1);
    const paths = writeDistributions([wheel, buildSdist(v1)]);
    const out = await ok("twine", twineUpload("sdk", pub.token, paths));
    expect(out).not.toMatch(/error/i);
    const again = await fails("twine", twineUpload("sdk", pub.token, [paths[0]!]));
    expect(again).toMatch(/409 Conflict/);
    expect(again).toMatch(/already exists/);
    const skipped = await ok("twine", [...twineUpload("sdk", pub.token, [paths[0]!]), "--skip-existing"]);
    expect(skipped).toMatch(/Skipping acme_sdk-1\.0-py3-none-any\.whl because it appears to already\s+exist/);
    // A file that does not match its metadata: twine shows why.
    const broken = buildWheel({ ...v1, version: "9.0", metadataVersion: "9.1" });
    const refused = await fails("twine", twineUpload("sdk", pub.token, writeDistributions([broken])));
    expect(refused).toMatch(/400 Bad Request/);
    // The reason phrase, which twine prints (it sent the metadata's version in the form).
    expect(refused).toMatch(/acme_sdk-9\.0-py3-none-any\.whl is not version 9\.1: its name says 9\.0/);
  });

  it("answers a refused large upload once twine has sent it, so --skip-existing skips it", async () => {
    // Larger than the socket buffers: a refusal answered early would reach twine as a reset.
    const spec = { name: "big-data", version: "1.0" };
    const big = buildWheel(spec, { padding: 16 * 1024 * 1024 });
    const [path] = writeDistributions([big]);
    await ok("twine", twineUpload("sdk", pub.token, [path!]));
    expect(await fails("twine", twineUpload("sdk", pub.token, [path!]))).toMatch(/409 Conflict/);
    const skipped = await ok("twine", [...twineUpload("sdk", pub.token, [path!]), "--skip-existing"]);
    expect(skipped).toMatch(/Skipping big_data-1\.0-py3-none-any\.whl because it appears to already\s+exist/);
  });

  it("installs the wheel with pip in hash-checking mode, and imports it", async () => {
    const wheel = buildWheel(v1);
    const requirements = join(scratch, "requirements.txt");
    const sha = (await import("node:crypto")).createHash("sha256").update(wheel.bytes).digest("hex");
    writeFileSync(requirements, `acme-sdk==1.0 --hash=sha256:${sha}\n`);
    const target = await pipInstall("sdk", undefined, ["--require-hashes", "-r", requirements]);
    expect(await imported(target, "acme_sdk")).toBe("1.0");
    expect(readdirSync(target)).toContain("acme_sdk-1.0.dist-info");
    // A wrong hash is refused by pip.
    writeFileSync(requirements, `acme-sdk==1.0 --hash=sha256:${"0".repeat(64)}\n`);
    const refused = await fails(PYTHON, [
      "-m",
      "pip",
      "install",
      "--no-cache-dir",
      "--disable-pip-version-check",
      "--index-url",
      indexUrl("sdk"),
      "--target",
      mkdtempSync(join(scratch, "target-")),
      "--require-hashes",
      "-r",
      requirements,
    ]);
    expect(refused).toMatch(/HASHES|hash/i);
  });

  it("skips a yanked version unless it is pinned", async () => {
    await ok("twine", twineUpload("sdk", pub.token, writeDistributions([buildWheel(v11)])));
    expect(await imported(await pipInstall("sdk", undefined, ["acme-sdk"]), "acme_sdk")).toBe("1.1");
    const yank = await pub.api("/api/v1/projects/sdk/releases/1.1/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken import" }),
    });
    expect(yank.status).toBe(200);
    expect(await imported(await pipInstall("sdk", undefined, ["acme-sdk"]), "acme_sdk")).toBe("1.0");
    expect(await imported(await pipInstall("sdk", undefined, ["acme-sdk==1.1"]), "acme_sdk")).toBe("1.1");
  });

  it("downloads the sdist and builds it", async () => {
    const downloads = mkdtempSync(join(scratch, "download-"));
    await ok(PYTHON, [
      "-m",
      "pip",
      "download",
      "--no-cache-dir",
      "--disable-pip-version-check",
      "--no-input",
      "--no-build-isolation",
      "--no-binary",
      ":all:",
      "--no-deps",
      "--index-url",
      indexUrl("sdk"),
      "--dest",
      downloads,
      "acme-sdk==1.0",
    ]);
    expect(readdirSync(downloads)).toEqual(["acme_sdk-1.0.tar.gz"]);
    const target = await pipInstall("sdk", undefined, [
      "--no-build-isolation",
      "--no-binary",
      ":all:",
      "acme-sdk==1.0",
    ]);
    expect(await imported(target, "acme_sdk", "acme_sdk.FROM_SDIST")).toBe("True");
  });

  it("answers PEP 691 JSON when asked with the Accept header", async () => {
    const res = await fetch(indexUrl("sdk").replace(/simple\/$/, "simple/acme-sdk/"), {
      headers: { accept: SIMPLE_JSON },
    });
    expect(res.headers.get("content-type")).toBe(SIMPLE_JSON);
    const page = (await res.json()) as { versions: string[]; files: { filename: string; yanked: unknown }[] };
    expect(page.versions.sort()).toEqual(["1.0", "1.1"]);
    expect(page.files.find((f) => f.filename === "acme_sdk-1.1-py3-none-any.whl")!.yanked).toBe(
      "broken import",
    );
  });

  it("keeps a private index from anonymous pip; a read key installs but cannot upload with twine", async () => {
    await ok("twine", twineUpload("vault", pub.token, writeDistributions([buildWheel(v1)])));
    const anonymous = await fails(PYTHON, [
      "-m",
      "pip",
      "install",
      "--no-cache-dir",
      "--disable-pip-version-check",
      "--no-input",
      "--index-url",
      indexUrl("vault"),
      "--target",
      mkdtempSync(join(scratch, "target-")),
      "acme-sdk",
    ]);
    expect(anonymous).toMatch(/404|No matching distribution/);
    const readKey = await pub.key({ projects: "*", access: "read" });
    expect(await imported(await pipInstall("vault", readKey, ["acme-sdk"]), "acme_sdk")).toBe("1.0");
    // The credential in ~/.netrc instead of the URL: pip sends it with its first request.
    const host = new URL(server.url).hostname;
    writeFileSync(join(scratch, ".netrc"), `machine ${host}\nlogin __token__\npassword ${readKey}\n`, {
      mode: 0o600,
    });
    try {
      expect(await imported(await pipInstall("vault", undefined, ["acme-sdk"]), "acme_sdk")).toBe("1.0");
    } finally {
      rmSync(join(scratch, ".netrc"), { force: true });
    }
    const denied = await fails("twine", twineUpload("vault", readKey, writeDistributions([buildWheel(v11)])));
    expect(denied).toMatch(/403 Forbidden/);
  });
});
