// Runs the built CLI (node dist/bin.js) as a child process with a clean environment: its own
// config directory, no PACKYARD_* from the outside, short retry waits.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const binPath = join(import.meta.dirname, "..", "..", "dist", "bin.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
}

/** A fresh HOME and XDG_CONFIG_HOME: nothing stored yet (removed by the global setup's teardown). */
export function cliHome(): Record<string, string> {
  const home = mkdtempSync(join(process.env.PACKYARD_CLI_TEST_HOMES ?? tmpdir(), "home-"));
  return { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the output so far once `pattern` appears on stderr. */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<CliResult>;
}

export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [binPath, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      PACKYARD_RETRY_BASE_MS: "20",
      ...options.env,
    } as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => {
    stderr += d;
    for (const w of [...waiters]) {
      const match = stderr.match(w.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(match);
      }
    }
  });
  child.stdin!.end(options.stdin ?? "");
  const exited = new Promise<CliResult>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr(pattern) {
      const match = stderr.match(pattern);
      if (match) return Promise.resolve(match);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        exited.then((r) => reject(new Error(`CLI exited ${r.code} before ${pattern}:\n${r.stderr}`)));
      });
    },
    exited,
  };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).exited;
}
