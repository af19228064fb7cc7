// The CLI every Packyard serves: `curl -fsSL SERVER/cli/install.sh | sh` into a throwaway HOME
// installs ~/.local/bin/packyard, which then pushes a release to that same server; a bundle
// that does not match the checksum the script carries, or a node older than 22, installs
// nothing and says why. Needs the web build (npm run build), which bundles the CLI into
// build/cli/, and curl.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "./test-support/live-server.ts";

let server: LiveServer;
const work = mkdtempSync(join(tmpdir(), "packyard-cli-install-"));
const version = (
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as { version: string }
).version;
/** Node 24 (this test's) and the system tools, without ~/.local/bin. */
const basePath = [dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":");

beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await server?.close();
});

function home(): string {
  const dir = mkdtempSync(join(work, "home-"));
  return dir;
}

/**
 * Runs a program to its end without blocking this process (the server answers from it too):
 * its exit status and output.
 */
function run(file: string, args: string[], env: Record<string, string>) {
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env, encoding: "utf8" }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ status, stdout, stderr });
    });
  });
}

/** `curl -fsSL URL | sh`, failing if either side fails. */
function curlPipeSh(url: string, env: Record<string, string>) {
  return run("bash", ["-o", "pipefail", "-c", `curl -fsSL "${url}" | sh`], { PATH: basePath, ...env });
}

describe("the served CLI", () => {
  it("serves the bundle with its type, checksum and version, and revalidates cheaply", async () => {
    const response = await fetch(`${server.url}/cli/packyard.mjs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, no-cache");
    const bundle = Buffer.from(await response.arrayBuffer());
    const sha256 = createHash("sha256").update(bundle).digest("hex");
    expect(response.headers.get("etag")).toBe(`"${sha256}"`);
    expect(bundle.toString("utf8", 0, 20)).toBe("#!/usr/bin/env node\n");

    const again = await fetch(`${server.url}/cli/packyard.mjs`, {
      headers: { "if-none-match": `"${sha256}"` },
    });
    expect(again.status).toBe(304);
    expect(await (await fetch(`${server.url}/cli/packyard.mjs.sha256`)).text()).toBe(
      `${sha256}  packyard.mjs\n`,
    );
    expect(await (await fetch(`${server.url}/cli/version.json`)).json()).toMatchObject({ version, sha256 });

    const script = await (await fetch(`${server.url}/cli/install.sh`)).text();
    expect(script).toContain(`sha256='${sha256}'`);
    expect(script).toContain(`url='${server.url}/cli/packyard.mjs'`);
  });

  it("installs into ~/.local/bin with curl | sh, and the installed CLI pushes a release", async () => {
    const HOME = home();
    const installed = await curlPipeSh(`${server.url}/cli/install.sh`, { HOME });
    expect(installed.status, installed.stderr).toBe(0);
    const bin = join(HOME, ".local", "bin");
    expect(installed.stdout).toContain(`Installed packyard ${version} in ${bin}/packyard`);
    expect(installed.stdout).toContain(`export PATH="${bin}:$PATH"`);
    expect(statSync(join(bin, "packyard")).mode & 0o111).not.toBe(0);

    const { stdout: printed } = await run(join(bin, "packyard"), ["--version"], { PATH: basePath, HOME });
    expect(printed).toBe(`${version}\n`);

    const alice = await publisher(server, "alice");
    const created = await alice.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "widget", name: "widget" }),
    });
    expect(created.status).toBe(201);
    const file = join(work, "widget-1.0.0.tar.gz");
    const bytes = randomBytes(50_000);
    writeFileSync(file, bytes);
    const push = await run(join(bin, "packyard"), ["push", "alice/widget", "1.0.0", file], {
      PATH: `${bin}:${basePath}`,
      HOME,
      PACKYARD_SERVER: server.url,
      PACKYARD_TOKEN: alice.token,
    });
    expect(push.status, push.stderr).toBe(0);
    const download = await fetch(`${server.url}/dl/alice/widget/releases/1.0.0/widget-1.0.0.tar.gz`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses a bundle whose checksum does not match, and installs nothing", async () => {
    // A server in the middle that hands out the real install.sh but altered bundle bytes.
    const bundle = Buffer.from(await (await fetch(`${server.url}/cli/packyard.mjs`)).arrayBuffer());
    const tampered = Buffer.concat([bundle, Buffer.from('\nconsole.log("tampered");\n')]);
    const script = await (await fetch(`${server.url}/cli/install.sh`)).text();
    let middle = "";
    const proxy: Server = createServer((req, res) => {
      if (req.url === "/cli/install.sh") res.end(script.replaceAll(server.url, middle));
      else if (req.url === "/cli/packyard.mjs") res.end(tampered);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    middle = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const HOME = home();
      const result = await curlPipeSh(`${middle}/cli/install.sh`, { HOME });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(
        /^packyard install: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/cli\/packyard\.mjs: expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}; nothing was installed/m,
      );
      expect(existsSync(join(HOME, ".local"))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it("says that Node.js 22 is needed when node is older, and installs nothing", async () => {
    const fakeBin = join(work, "old-node");
    mkdirSync(fakeBin, { recursive: true });
    writeFileSync(
      join(fakeBin, "node"),
      '#!/bin/sh\ncase "$1" in --version) echo v20.11.0 ;; *) echo 20 ;; esac\n',
    );
    chmodSync(join(fakeBin, "node"), 0o755);
    const HOME = home();
    const result = await run(
      "bash",
      ["-o", "pipefail", "-c", `curl -fsSL "${server.url}/cli/install.sh" | sh`],
      {
        PATH: `${fakeBin}:/usr/local/bin:/usr/bin:/bin`,
        HOME,
      },
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toBe(
      "packyard install: Node.js 22 or newer is required; node on PATH is v20.11.0\n",
    );
    expect(existsSync(join(HOME, ".local"))).toBe(false);
  });
});
