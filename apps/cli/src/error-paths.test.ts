// Every way a command fails ends in one clear line on stderr — with the API's code when the
// server sent one — and the documented exit code: 1 failure, 2 usage, 3 auth, 4 not found,
// 5 conflict. Run as a real process against a real Packyard (and, for a server that is down or
// misbehaves, against a closed port and a fake).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../web/test/server-process.ts";
import { type LiveServer, publisher, startLiveServer } from "./test-support/live-server.ts";
import { type CliResult, cliHome, runCli } from "./test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;
let bob: Awaited<ReturnType<typeof publisher>>;
const work = mkdtempSync(join(tmpdir(), "packyard-cli-errors-"));
const file = join(work, "tool.tar.gz");

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  bob = await publisher(server, "bob");
  for (const [who, slug] of [
    [alice, "widget"],
    [bob, "gizmo"],
  ] as const) {
    const created = await who.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug }),
    });
    expect(created.status).toBe(201);
  }
  writeFileSync(file, randomBytes(10_000));
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await server?.close();
});

const as = (token: string, extra: Record<string, string> = {}) => ({
  env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: token, ...extra },
});

/** Exactly one line on stderr, nothing on stdout, and the exit code. */
function expectFailure(result: CliResult, exitCode: number, line: string | RegExp) {
  expect(result.code, result.stderr).toBe(exitCode);
  expect(result.stdout).toBe("");
  expect(result.stderr.endsWith("\n")).toBe(true);
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  if (typeof line === "string") expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
}

describe.concurrent("usage errors exit 2 before anything is sent", () => {
  it.each([
    [["push"], "error: Wrong number of arguments; usage: packyard push OWNER/PROJECT VERSION FILE… (USAGE)"],
    [
      ["push", "alice/widget", "1.0"],
      "error: Wrong number of arguments; usage: packyard push OWNER/PROJECT VERSION FILE… (USAGE)",
    ],
    [["frobnicate"], 'error: Unknown command "frobnicate"; run packyard --help (USAGE)'],
    [
      ["releases"],
      "error: packyard releases needs a subcommand: list, show, yank, unyank, delete, promote (USAGE)",
    ],
    [
      ["releases", "explode", "widget"],
      'error: Unknown command "releases explode"; choose list, show, yank, unyank, delete, promote (USAGE)',
    ],
    [
      ["push", "--force", "alice/widget", "1.0", "x"],
      "error: Unknown option '--force'; packyard push --help lists the options (USAGE)",
    ],
    [["push", "widget", "1.0", "x"], 'error: Name the project as OWNER/PROJECT, not "widget" (USAGE)'],
    [
      ["push", "alice/Widget", "1.0", "x"],
      'error: "Widget" is not a project slug: Slug must be lowercase letters, numbers and hyphens (no leading/trailing hyphen) (USAGE)',
    ],
    [
      ["push", "alice/widget", "1.0/evil", "x"],
      'error: "1.0/evil" is not a release version: Version may contain only letters, digits and . + ~ _ - (USAGE)',
    ],
    [
      ["push", "alice/widget", "latest", "x"],
      'error: "latest" is not a release version: This version name is reserved (USAGE)',
    ],
    [["push", "alice/widget", "1.0", "/no/such/file.deb"], "error: No such file: /no/such/file.deb (USAGE)"],
    [
      ["push", "alice/widget", "1.0", "--notes", "/no/such/notes.md", "x"],
      "error: No such notes file: /no/such/notes.md (USAGE)",
    ],
    [["releases", "yank", "widget", "1.0"], "error: --reason: A reason is required (USAGE)"],
    [
      ["releases", "delete", "widget", "1.0"],
      "error: Deleting alice/widget 1.0 removes its files for good: add --yes to confirm (USAGE)",
    ],
    [
      ["projects", "create", "Bad_Slug"],
      "error: slug: Slug must be lowercase letters, numbers and hyphens (no leading/trailing hyphen) (USAGE)",
    ],
    [
      ["orgs", "invite", "acme", "someone@example.com"],
      "error: --role is required: owner, admin, publisher, viewer (USAGE)",
    ],
    [
      ["orgs", "invite", "acme", "someone@example.com", "--role", "boss"],
      "error: role: Role must be owner, admin, publisher or viewer (USAGE)",
    ],
    [
      ["projects", "transfer", "widget"],
      "error: Wrong number of arguments; usage: packyard projects transfer PROJECT OWNER (USAGE)",
    ],
    [
      ["signing-keys", "rotate", "widget", "--overlap-days", "soon"],
      "error: --overlap-days must be a whole number of days (0–365) (USAGE)",
    ],
    [
      ["--server", "ftp://example.com", "whoami"],
      'error: --server must be an http or https URL, not "ftp://example.com" (USAGE)',
    ],
  ])("packyard %j", async (args, line) => {
    expectFailure(await runCli(args, as(alice.token)), 2, line);
  });

  it("the same file name twice", async () => {
    const result = await runCli(
      ["push", "alice/widget", "1.0", file, join(work, ".", "tool.tar.gz")],
      as(alice.token),
    );
    expectFailure(
      result,
      2,
      "error: Two files are named tool.tar.gz: a release holds one file of each name (USAGE)",
    );
  });
});

describe("authentication errors exit 3", () => {
  it("no token at all", async () => {
    const result = await runCli(["push", "alice/widget", "1.0", file], {
      env: { ...cliHome(), PACKYARD_SERVER: server.url },
    });
    expectFailure(
      result,
      3,
      `error: Not logged in to ${server.url}: run packyard login --server ${server.url}, or set PACKYARD_TOKEN (NOT_LOGGED_IN)`,
    );
  });

  it("a token the server does not know", async () => {
    expectFailure(
      await runCli(["push", "alice/widget", "1.0", file], as("pky_bogus")),
      3,
      "error: Invalid API key (UNAUTHENTICATED)",
    );
  });

  it("OWNER is not the token's user, whether or not the user has a project of that name", async () => {
    const other = await runCli(["push", "bob/gizmo", "1.0", file], as(alice.token));
    expectFailure(
      other,
      3,
      "error: This token belongs to alice, not bob: it can only reach alice's projects (alice/gizmo) (WRONG_OWNER)",
    );
    const sameSlug = await runCli(["push", "bob/widget", "1.0", file], as(alice.token));
    expectFailure(
      sameSlug,
      3,
      "error: This token belongs to alice, not bob: it can only reach alice's projects (alice/widget) (WRONG_OWNER)",
    );
  });

  it("a read-only key cannot push, and nothing is created", async () => {
    const readOnly = await alice.key({ projects: "*", access: "read" });
    expectFailure(
      await runCli(["push", "alice/widget", "9.9.9", file], as(readOnly)),
      3,
      "error: This API key is read-only (KEY_SCOPE)",
    );
    expect((await alice.api("/api/v1/projects/widget/releases/9.9.9")).status).toBe(404);
  });
});

describe("not found exits 4, conflicts exit 5", () => {
  it("an unknown project", async () => {
    expectFailure(
      await runCli(["push", "alice/nothing", "1.0", file], as(alice.token)),
      4,
      "error: Project alice/nothing not found, or this token cannot see it (NOT_FOUND)",
    );
    expectFailure(
      await runCli(["releases", "show", "widget", "7.7.7"], as(alice.token)),
      4,
      "error: Release not found (NOT_FOUND)",
    );
  });

  it("a file of the same name with other contents is already in the release (409 FILE_EXISTS, another sha256)", async () => {
    const first = await runCli(["push", "alice/widget", "1.0.0", file], as(alice.token));
    expect(first.code, first.stderr).toBe(0);
    const changed = join(mkdtempSync(join(work, "changed-")), "tool.tar.gz");
    writeFileSync(changed, randomBytes(10_000));
    const result = await runCli(["push", "alice/widget", "1.0.0", changed], as(alice.token));
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("Release alice/widget 1.0.0 exists\n");
    expect(result.stderr).toMatch(
      /^error: tool\.tar\.gz already exists in alice\/widget 1\.0\.0 with different contents \(server sha256 [0-9a-f]{64}, local [0-9a-f]{64}\); files are immutable: push a new version, or delete the file in the dashboard first \(FILE_EXISTS\)\n$/,
    );
  });

  it("a project that exists", async () => {
    expectFailure(
      await runCli(["projects", "create", "widget"], as(alice.token)),
      5,
      "error: You already have a project named widget (PROJECT_EXISTS)",
    );
  });
});

describe("failures exit 1", () => {
  it("the server refuses the upload: a .deb that is not one", async () => {
    const fake = join(work, "fake_1.0_amd64.deb");
    writeFileSync(fake, "not an ar archive");
    const result = await runCli(["push", "alice/widget", "1.1.0", fake], as(alice.token));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+ \(DEB_NOT_AR\)\n$/);
  });

  it("the server is down: connection refused, retried 5 times with backoff, then one clear line", async () => {
    const port = await freePort();
    const result = await runCli(["push", "alice/widget", "1.0", file], {
      env: { ...cliHome(), PACKYARD_SERVER: `http://127.0.0.1:${port}`, PACKYARD_TOKEN: alice.token },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.slice(0, 5)).toEqual(
      [1, 2, 3, 4, 5].map((n) =>
        expect.stringMatching(
          new RegExp(
            `^retrying: GET /api/v1/projects/alice/widget: connection refused \\(ECONNREFUSED\\); retry ${n} of 5 in \\d+\\.\\ds$`,
          ),
        ),
      ),
    );
    expect(lines.slice(5)).toEqual([
      `error: Cannot reach http://127.0.0.1:${port}: connection refused after 5 retries (ECONNREFUSED)`,
    ]);
  });

  describe("against a server that misbehaves", () => {
    let fake: Server;
    let fakeUrl: string;
    let requests = 0;
    let answer: (res: import("node:http").ServerResponse) => void = () => {};
    beforeAll(async () => {
      fake = createServer((_req, res) => {
        requests++;
        answer(res);
      });
      await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
      fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

    const run = (args: string[]) =>
      runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: fakeUrl, PACKYARD_TOKEN: "pky_x" } });

    it("503 every time: retried 5 times, then the status", async () => {
      requests = 0;
      answer = (res) =>
        res.writeHead(503, { "content-type": "text/html" }).end("<h1>down for maintenance</h1>");
      const result = await run(["projects", "list"]);
      expect(result.code).toBe(1);
      expect(requests).toBe(6);
      expect(result.stderr.trimEnd().split("\n").at(-1)).toBe(
        "error: GET /api/v1/projects failed: the server answered 503 Service Unavailable (HTTP_503)",
      );
    });

    it("429 then a good answer: retried, and the command succeeds", async () => {
      requests = 0;
      answer = (res) =>
        requests === 1
          ? res
              .writeHead(429, { "retry-after": "0" })
              .end(JSON.stringify({ error: { code: "RATE_LIMITED", message: "slow down" } }))
          : res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ projects: [] }));
      const result = await run(["projects", "list", "--json"]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ projects: [] });
      expect(result.stderr).toMatch(
        /^retrying: GET \/api\/v1\/projects: 429 Too Many Requests; retry 1 of 5/,
      );
    });

    it("an answer that does not match the API contract is not used", async () => {
      answer = (res) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ projects: [{ slug: 42 }] }));
      expectFailure(
        await run(["projects", "list"]),
        1,
        /^error: The server's answer to GET \/api\/v1\/projects does not match the API contract \(projects\.0\.id: .+\); is this a Packyard server, and is the CLI up to date\? \(BAD_RESPONSE\)$/,
      );
    });

    it("an error code this CLI does not know yet is still shown", async () => {
      answer = (res) =>
        res
          .writeHead(418, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "TEAPOT", message: "I am a teapot" } }));
      expectFailure(await run(["projects", "list"]), 1, "error: I am a teapot (TEAPOT)");
    });
  });
});

describe("--json failures", () => {
  it("print the error as JSON on stdout as well as the line on stderr", async () => {
    const result = await runCli(["push", "alice/nothing", "1.0", file, "--json"], as(alice.token));
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: "NOT_FOUND",
        message: "Project alice/nothing not found, or this token cannot see it",
        exitCode: 4,
      },
    });
    expect(result.stderr).toBe(
      "error: Project alice/nothing not found, or this token cannot see it (NOT_FOUND)\n",
    );
  });
});
