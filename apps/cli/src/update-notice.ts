// The update notice: when the server the CLI talked to serves a newer CLI (its
// /cli/version.json), one line on stderr saying how to install it. At most one check, and so
// at most one notice, a day (remembered beside the config file); only for people at a
// terminal: never with --json, never when stderr is not a TTY, never with
// PACKYARD_NO_UPDATE_NOTICE set.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { configPath, type Env } from "./config.ts";
import { cliVersion, type Io } from "./context.ts";

export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;
const TIMEOUT_MS = 1500;

export function updateCheckPath(env: Env): string {
  return join(dirname(configPath(env)), "update-check.json");
}

/** Compares x.y.z versions; anything unparseable is never newer. */
export function isNewer(candidate: string, current: string): boolean {
  const parse = (v: string) => /^v?(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1, 4).map(Number);
  const a = parse(candidate);
  const b = parse(current);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  return false;
}

/** Checks `server` for a newer CLI if a day has passed since the last check; never throws. */
export async function updateNotice(
  io: Io,
  server: string,
  options: { json: boolean; now?: number; version?: string },
): Promise<void> {
  if (options.json || !io.stderr.isTTY || io.env.PACKYARD_NO_UPDATE_NOTICE) return;
  const now = options.now ?? Date.now();
  const path = updateCheckPath(io.env);
  try {
    const last = (JSON.parse(readFileSync(path, "utf8")) as { checkedAt?: unknown }).checkedAt;
    if (typeof last === "number" && now - last < CHECK_INTERVAL_MS && now >= last) return;
  } catch {}
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${JSON.stringify({ checkedAt: now })}\n`, { mode: 0o600 });
  } catch {
    return; // nowhere to remember the check: skip it rather than check on every run
  }
  let served: string | undefined;
  try {
    const response = await fetch(`${server}/cli/version.json`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) return;
    const body = (await response.json()) as { version?: unknown };
    if (typeof body.version === "string") served = body.version;
  } catch {
    return;
  }
  const current = options.version ?? cliVersion();
  if (served && isNewer(served, current)) {
    io.stderr.write(
      `packyard ${served} is available from ${server} (this is ${current}): curl -fsSL ${server}/cli/install.sh | sh\n`,
    );
  }
}
