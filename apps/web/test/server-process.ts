// Starts Packyard's production entry point as a child process on a free loopback port, for
// tests that need a real socket (streamed uploads, dropped connections, memory, signals).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { makeTempDir } from "./temp-dirs.ts";

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** Peak resident memory so far (VmHWM), in bytes. */
  peakRss(): number;
  rss(): number;
  stop(): Promise<number | null>;
}

function statusField(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
}

/**
 * The V8 flags `npm start` (both package.json files) and the systemd unit give the server
 * (decisions 071, 077, 078): the young generation capped, so an idle server does not keep the
 * 64 MB a start or a load grew it to, and the old generation let grow to three times what is
 * alive before it marks again, so a fresh process's first publish does not pay a marking.
 * Command-line only: NODE_OPTIONS refuses --heap-growing-percent.
 * start-command.test.ts checks that every start command carries them.
 */
export const START_NODE_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=200"];

/** The SECRET every server process of the tests runs with (the CLI must use the same). */
export const PROCESS_TEST_SECRET = "process-test-secret-process-test-secret";

/**
 * A verified user made with the self-hoster CLI on the server's data directory, signed in
 * through the API: the session cookie and the origin its writes must name.
 */
export async function signedInCliUser(
  server: { url: string; dataDir: string },
  username: string,
): Promise<{ cookie: string; origin: string }> {
  const email = `${username}@example.com`;
  const password = "a long test password";
  execFileSync(
    process.execPath,
    ["server/cli.ts", "users", "create", "--email", email, "--username", username, "--password", password],
    {
      cwd: join(import.meta.dirname, ".."),
      env: {
        ...process.env,
        DATA_DIR: server.dataDir,
        SECRET: PROCESS_TEST_SECRET,
        BASE_URL: "",
        LOG_LEVEL: "silent",
      },
    },
  );
  const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password }),
  });
  if (!signIn.ok) throw new Error(`sign-in failed: ${signIn.status}`);
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, origin: server.url };
}

export async function startServerProcess(env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? makeTempDir("packyard-proc-");
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...START_NODE_FLAGS, "server/main.ts"], {
    cwd: join(import.meta.dirname, ".."),
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      BASE_URL: url,
      DATA_DIR: dataDir,
      SECRET: PROCESS_TEST_SECRET,
      AUTH_RATE_LIMIT: "false",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      // /readyz, not /ok: /ok answers as soon as the process listens, before migrations ran.
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    dataDir,
    child,
    output: () => output,
    peakRss: () => statusField(child.pid!, "VmHWM"),
    rss: () => statusField(child.pid!, "VmRSS"),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
