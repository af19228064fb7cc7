// The update notice: `packyard` run at a terminal against a server whose /cli/version.json names
// a newer CLI prints one line on stderr, once a day; an equal or older version, --json, a stderr
// that is not a TTY, or PACKYARD_NO_UPDATE_NOTICE print nothing. main() runs in-process with a
// terminal-like stderr against a small fake server (the served version is what varies).
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliVersion, type Io } from "./context.ts";
import { main } from "./main.ts";
import { cliHome } from "./test-support/run-cli.ts";
import { CHECK_INTERVAL_MS, isNewer, updateCheckPath } from "./update-notice.ts";

let served = "99.0.0";
let versionRequests = 0;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/cli/version.json") {
      versionRequests++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ version: served }));
    } else {
      // The command itself fails (not found): the notice does not depend on its outcome.
      res
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: "NOT_FOUND", message: "Not here." } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(args: string[], env: Record<string, string>, tty = true) {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let out = "";
  let err = "";
  stdout.on("data", (d) => (out += d));
  stderr.on("data", (d) => (err += d));
  const io: Io = { stdout, stderr, stdin: new PassThrough(), env: { ...env, PACKYARD_RETRY_BASE_MS: "1" } };
  const code = await main(args, io);
  return { code, stdout: out, stderr: err };
}

const notice =
  /^packyard 99\.0\.0 is available from http:\/\/127\.0\.0\.1:\d+ \(this is .+\): curl -fsSL http:\/\/127\.0\.0\.1:\d+\/cli\/install\.sh \| sh$/m;

describe("the update notice", () => {
  it("compares versions numerically", () => {
    expect(isNewer("0.10.0", "0.9.9")).toBe(true);
    expect(isNewer("1.0.0", "1.0.0")).toBe(false);
    expect(isNewer("0.1.0", "0.2.0")).toBe(false);
    expect(isNewer("garbage", "0.1.0")).toBe(false);
  });

  it("appears once a day when the server serves a newer CLI", async () => {
    served = "99.0.0";
    const home = cliHome();
    const args = ["whoami", "--server", url, "--token", "pky_test"];
    const first = await run(args, home);
    expect(first.stderr).toMatch(notice);
    expect(first.stderr.match(/is available/g)).toHaveLength(1);
    expect(first.stdout).not.toMatch(/available/);

    // Within the day: no request, no notice.
    const before = versionRequests;
    const second = await run(args, home);
    expect(second.stderr).not.toMatch(/is available/);
    expect(versionRequests).toBe(before);

    // A day later it asks again.
    const path = updateCheckPath(home);
    const state = JSON.parse(readFileSync(path, "utf8")) as { checkedAt: number };
    writeFileSync(path, JSON.stringify({ checkedAt: state.checkedAt - CHECK_INTERVAL_MS - 1 }));
    expect((await run(args, home)).stderr).toMatch(notice);
  });

  it("stays quiet when the server's CLI is the same or older", async () => {
    for (const version of [cliVersion(), "0.0.1"]) {
      served = version;
      const before = versionRequests;
      const result = await run(["whoami", "--server", url, "--token", "pky_test"], cliHome());
      expect(versionRequests).toBe(before + 1);
      expect(result.stderr).not.toMatch(/is available/);
    }
  });

  it("never appears with --json, off a terminal, or when turned off", async () => {
    served = "99.0.0";
    const before = versionRequests;
    const args = ["whoami", "--server", url, "--token", "pky_test"];
    const json = await run([...args, "--json"], cliHome());
    expect(json.stderr + json.stdout).not.toMatch(/is available/);
    expect((await run(args, cliHome(), false)).stderr).not.toMatch(/is available/);
    expect((await run(args, { ...cliHome(), PACKYARD_NO_UPDATE_NOTICE: "1" })).stderr).not.toMatch(
      /is available/,
    );
    expect(versionRequests).toBe(before);
  });

  it("is not looked for by commands that talk to no server", async () => {
    served = "99.0.0";
    const before = versionRequests;
    const result = await run(["--version"], cliHome());
    expect(result.stdout).toBe(`${cliVersion()}\n`);
    expect(result.stderr).toBe("");
    expect(versionRequests).toBe(before);
  });
});
