// packyard login, whoami and logout against a real Packyard. A plain HTTP client plays the
// browser: it reads the authorize URL the CLI prints and requests the CLI's loopback callback
// exactly as the /auth/generate-token page's Authorize (or Cancel) button redirects.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLoopbackCallback, checkState } from "../../../web/app/lib/loopback-callback.ts";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, type RunningCli, runCli, startCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  const created = await alice.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "widget", name: "Widget" }),
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
});

/** What the CLI asks the browser to open, and the callback the page will redirect to. */
async function authorizeRequest(cli: RunningCli) {
  const [printed] = await cli.waitForStderr(/http:\/\/\S+\/auth\/generate-token\?\S+/);
  const authorize = new URL(printed);
  const callback = new URL(authorize.searchParams.get("callback")!);
  const state = authorize.searchParams.get("state")!;
  /** The page's redirect: the callback with extra query parameters. */
  const redirect = (params: Record<string, string>) => {
    const url = new URL(callback);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return fetch(url);
  };
  return { authorize, callback, state, redirect };
}

const configFile = (home: Record<string, string>) => join(home.XDG_CONFIG_HOME!, "packyard", "config.json");

describe("packyard login", () => {
  it("gets a token from the browser over the loopback callback, checks it, and stores it readable by the user only", async () => {
    const home = cliHome();
    const cli = startCli(["login", "--server", server.url], { env: home });
    const { authorize, callback, state, redirect } = await authorizeRequest(cli);

    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${server.url}/auth/generate-token`);
    expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(callback.pathname).toBe("/callback");
    expect(state.length).toBeGreaterThanOrEqual(32);
    // The token page accepts exactly this callback and state.
    expect(checkLoopbackCallback(callback.toString()).ok).toBe(true);
    expect(checkState(state).ok).toBe(true);

    // Another state is refused and does not end the login; other paths are not the callback.
    const forged = await redirect({ token: alice.token, state: "x".repeat(state.length) });
    expect(forged.status).toBe(400);
    expect((await fetch(new URL("/favicon.ico", callback))).status).toBe(404);

    const token = await alice.key({ projects: "*", access: "publish" });
    const page = await redirect({ token, state });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("You can close this tab");

    const result = await cli.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Logged in to ${server.url} as alice`);
    expect(result.stdout).not.toContain(token);

    const path = configFile(home);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ server: server.url, token });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);

    // The stored login is used from now on, for this server.
    const whoami = await runCli(["whoami"], { env: home });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toContain(`Server:   ${server.url}`);
    expect(whoami.stdout).toContain("User:     alice");
    expect(whoami.stdout).toContain(`Token:    ${token.slice(0, 6)}… (from config)`);
    expect(whoami.stdout).toContain("alice/widget (public)");
    expect(whoami.stdout).not.toContain(token);

    const json = await runCli(["whoami", "--json"], { env: home });
    expect(JSON.parse(json.stdout)).toEqual({
      server: server.url,
      user: "alice",
      token: `${token.slice(0, 6)}…`,
      tokenSource: "config",
      scope: { projects: "*", access: "publish" },
      projects: [{ owner: "alice", slug: "widget", visibility: "public" }],
    });

    const logout = await runCli(["logout"], { env: home });
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stdout).toContain(`Logged out of ${server.url}`);
    expect(existsSync(path)).toBe(false);
    const after = await runCli(["whoami"], { env: home });
    expect(after.code).toBe(3);
    expect(after.stderr).toBe(
      "error: Not logged in to http://localhost:3000: run packyard login --server http://localhost:3000, or set PACKYARD_TOKEN (NOT_LOGGED_IN)\n",
    );
  });

  it("exits 3 and stores nothing when the login is cancelled in the browser", async () => {
    const home = cliHome();
    const cli = startCli(["login", "--server", server.url], { env: home });
    const { state, redirect } = await authorizeRequest(cli);
    const page = await redirect({ error: "access_denied", state });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("Login cancelled");
    const result = await cli.exited;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "error: The login was cancelled in the browser; nothing was saved (ACCESS_DENIED)",
    );
    expect(existsSync(configFile(home))).toBe(false);
  });

  it("exits 3 and stores nothing when the server refuses the token the browser brought", async () => {
    const home = cliHome();
    const cli = startCli(["login", "--server", server.url], { env: home });
    const { state, redirect } = await authorizeRequest(cli);
    const page = await redirect({ token: "pky_not_a_real_key", state });
    expect(page.status).toBe(502);
    expect(await page.text()).toContain("Login failed");
    const result = await cli.exited;
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `error: ${server.url} refused the token: Invalid API key (UNAUTHENTICATED)`,
    );
    expect(existsSync(configFile(home))).toBe(false);
  });

  it("gives up after --timeout with a message saying what to do instead", async () => {
    const result = await runCli(["login", "--server", server.url, "--timeout", "0.5"], { env: cliHome() });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /error: No answer from the browser within 1 s; .*packyard login --token TOKEN \(LOGIN_TIMEOUT\)/,
    );
  });

  it("login --token (or --token - from stdin) checks and stores a token made on the token page", async () => {
    const home = cliHome();
    const token = await alice.key({ projects: "*", access: "publish" });
    const result = await runCli(["login", "--server", server.url, "--token", "-"], {
      env: home,
      stdin: `${token}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(configFile(home), "utf8"))).toEqual({ server: server.url, token });

    const refused = await runCli(["login", "--server", server.url, "--token", "pky_nope"], {
      env: cliHome(),
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("refused the token: Invalid API key (UNAUTHENTICATED)");
  });

  it("--token and PACKYARD_TOKEN win over the stored login, which is never sent to another server", async () => {
    const home = cliHome();
    const stored = await runCli(["login", "--server", server.url, "--token", alice.token], { env: home });
    expect(stored.code, stored.stderr).toBe(0);

    const fromEnv = await runCli(["whoami"], { env: { ...home, PACKYARD_TOKEN: "pky_from_env" } });
    expect(fromEnv.code).toBe(3);
    expect(fromEnv.stderr).toContain("Invalid API key (UNAUTHENTICATED)");
    const fromFlag = await runCli(["whoami", "--token", "pky_from_flag"], { env: home });
    expect(fromFlag.code).toBe(3);

    // PACKYARD_SERVER names another server: the stored token is not offered to it.
    const elsewhere = await runCli(["whoami"], { env: { ...home, PACKYARD_SERVER: "http://127.0.0.1:9" } });
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toContain("Not logged in to http://127.0.0.1:9");
  });
});
