// Where the CLI talks to and with which token: --server/--token, then PACKYARD_SERVER and
// PACKYARD_TOKEN, then trusted publishing in CI (an ID token from GitHub Actions'
// ACTIONS_ID_TOKEN_REQUEST_URL, or PACKYARD_ID_TOKEN, traded for a publish token:
// trusted-publishing.ts), then what `packyard login` stored in the user's config directory (file
// mode 0600, directory 0700). A stored token is only ever sent to the server it was made for.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { CliError, exitCodes, usageError } from "./errors.ts";

/** Used when nothing names a server: a Packyard started with `npm start` on this machine. */
export const DEFAULT_SERVER = "http://localhost:3000";

export type Env = Record<string, string | undefined>;

const storedConfig = z.object({ server: z.string(), token: z.string().min(1) });
export type StoredConfig = z.infer<typeof storedConfig>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "packyard", "config.json");
}

export function readStoredConfig(env: Env): StoredConfig | undefined {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(
      "CONFIG_UNREADABLE",
      `Cannot read ${path}: ${(error as Error).message}`,
      exitCodes.failure,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = storedConfig.safeParse(json);
  if (!parsed.success) {
    throw new CliError(
      "CONFIG_INVALID",
      `${path} is not a Packyard CLI config; delete it or run packyard login again`,
      exitCodes.failure,
    );
  }
  return parsed.data;
}

/** Written to a temporary file created 0600, then renamed over the old one: never readable by others. */
export function writeStoredConfig(env: Env, config: StoredConfig): string {
  const path = configPath(env);
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  try {
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return path;
}

export function removeStoredConfig(env: Env): void {
  rmSync(configPath(env), { force: true });
}

/** An http(s) base URL without a trailing slash, query or fragment. */
export function normalizeServer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--server must be a URL such as https://packyard.example, not "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(`--server must be an http or https URL, not "${raw}"`);
  }
  if (url.username || url.password) throw usageError("--server may not contain credentials");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export type TokenSource =
  | "--token"
  | "PACKYARD_TOKEN"
  | "github-actions-oidc"
  | "PACKYARD_ID_TOKEN"
  | "config";

/** The sources whose token is got by trading a CI's ID token (trusted-publishing.ts). */
export function isTrustedPublishing(
  source: TokenSource | undefined,
): source is "github-actions-oidc" | "PACKYARD_ID_TOKEN" {
  return source === "github-actions-oidc" || source === "PACKYARD_ID_TOKEN";
}

export interface Credentials {
  server: string;
  token: string | undefined;
  tokenSource: TokenSource | undefined;
}

export function resolveCredentials(flags: { server?: string; token?: string }, env: Env): Credentials {
  const stored = readStoredConfig(env);
  const server = normalizeServer(flags.server || env.PACKYARD_SERVER || stored?.server || DEFAULT_SERVER);
  if (flags.token) return { server, token: flags.token, tokenSource: "--token" };
  if (env.PACKYARD_TOKEN) return { server, token: env.PACKYARD_TOKEN, tokenSource: "PACKYARD_TOKEN" };
  // In CI with trusted publishing: the token is got at the first request.
  if (env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN)
    return { server, token: undefined, tokenSource: "github-actions-oidc" };
  if (env.PACKYARD_ID_TOKEN) return { server, token: undefined, tokenSource: "PACKYARD_ID_TOKEN" };
  if (stored && normalizeServer(stored.server) === server) {
    return { server, token: stored.token, tokenSource: "config" };
  }
  return { server, token: undefined, tokenSource: undefined };
}

/** The token's first characters, as the API keys page shows them: enough to recognise it, not to use it. */
export function tokenPrefix(token: string): string {
  return `${token.slice(0, 6)}…`;
}
