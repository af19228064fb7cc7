// The production entry point as a real process: it serves, and on SIGTERM it stops accepting,
// finishes the request in flight, closes the database and exits 0.
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../test/temp-dirs.ts";

const appDir = join(import.meta.dirname, "..");
let child: ChildProcess | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
});
afterAll(removeTempDirs);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function start(env: Record<string, string>) {
  const port = await freePort();
  const proc = spawn(process.execPath, ["server/main.ts"], {
    cwd: appDir,
    env: { ...process.env, BASE_URL: "", HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let output = "";
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  for (let i = 0; i < 100 && !output.includes("listening"); i++) {
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, port, exited, output: () => output };
}

describe("server process", () => {
  it("stops on a bad configuration value, naming the variable", async () => {
    const { exited, output } = await start({
      DATA_DIR: makeTempDir("packyard-main-"),
      DATABASE_URL: "mysql://x",
    });
    expect(await exited).toBe(78);
    expect(output()).toContain("DATABASE_URL:");
  });

  it("finishes the request in flight on SIGTERM, then exits 0", async () => {
    const dataDir = makeTempDir("packyard-main-");
    const { proc, port, exited, output } = await start({ DATA_DIR: dataDir });
    expect(output()).toContain("SECRET is not set");

    // A request whose body arrives in two parts, with SIGTERM sent in between.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/api/auth/sign-in/email",
          headers: {
            "content-type": "application/json",
            origin: `http://localhost:${port}`,
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.write('{"email":"nobody@example.com",');
      setTimeout(() => {
        proc.kill("SIGTERM");
        setTimeout(() => req.end('"password":"whatever-password"}'), 300);
      }, 200);
    });

    const answered = await response;
    expect(answered.status).toBe(401);
    expect(JSON.parse(answered.body).code).toBe("INVALID_EMAIL_OR_PASSWORD");
    expect(await exited).toBe(0);
    expect(output()).toContain("SIGTERM received");
  });
});
