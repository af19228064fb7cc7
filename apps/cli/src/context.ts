// What every command gets: the terminal, the environment, --json, and the API client for the
// resolved server and token.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type PackyardApi, packyardApi } from "./api.ts";
import { ApiClient } from "./api-client.ts";
import { type Credentials, type Env, isTrustedPublishing, resolveCredentials } from "./config.ts";
import { CliError, exitCodes } from "./errors.ts";
import { retryPolicyFrom } from "./retry.ts";
import { publishTokenFromCi } from "./trusted-publishing.ts";

export type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Io {
  stdout: Terminal;
  stderr: Terminal;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Env;
}

export interface GlobalFlags {
  server?: string;
  token?: string;
  json: boolean;
}

export interface Context {
  io: Io;
  env: Env;
  flags: GlobalFlags;
  /** Server and token from flags, environment and stored login. */
  credentials(): Credentials;
  /** A client for the resolved server and token, or for others (login checks a new token). */
  client(override?: { server: string; token: string }): ApiClient;
  /** The server the command made a client for, if any (the update notice asks it). */
  contactedServer(): string | undefined;
  /** The API with a token; without one, a "not logged in" error. */
  api(): PackyardApi;
  /**
   * The account a command acts on (push OWNER/…): with trusted publishing, the token is asked
   * for that account's projects only.
   */
  actingFor(owner: string): void;
  /** The token in use: given, or got by trusted publishing once a request was made. */
  token(): string | undefined;
  /** A line for people on stdout; nothing with --json. */
  print(line?: string): void;
  /** Progress and notices on stderr. */
  note(line: string): void;
  /** The command's result: JSON on stdout with --json, else what `human` prints. */
  result(json: unknown, human: () => void): void;
}

export function createContext(io: Io, flags: GlobalFlags): Context {
  let credentials: Credentials | undefined;
  let contacted: string | undefined;
  let owner: string | undefined;
  /** The publish token trusted publishing got, shared by every client of the command. */
  let published: Promise<string> | undefined;
  let publishedToken: string | undefined;
  const context: Context = {
    io,
    env: io.env,
    flags,
    credentials: () => {
      credentials ??= resolveCredentials(flags, io.env);
      return credentials;
    },
    client: (override) => {
      const { server, token } = override ?? context.credentials();
      contacted = server;
      const make = (withToken: string | undefined, tokenProvider?: () => Promise<string>) =>
        new ApiClient({
          server,
          token: withToken,
          ...(tokenProvider ? { tokenProvider } : {}),
          retry: retryPolicyFrom(io.env),
          userAgent: `packyard-cli/${cliVersion()} node/${process.versions.node}`,
          onRetry: (notice) => context.note(`retrying: ${notice}`),
        });
      if (override || !isTrustedPublishing(context.credentials().tokenSource)) return make(token);
      return make(undefined, () => {
        published ??= publishTokenFromCi(make(undefined), io.env, owner).then((got) => {
          publishedToken = got;
          context.note(`Using trusted publishing: a publish token valid 15 minutes (${got.slice(0, 8)}…)`);
          return got;
        });
        return published;
      });
    },
    contactedServer: () => contacted,
    api: () => {
      const { server, token, tokenSource } = context.credentials();
      if (!token && !isTrustedPublishing(tokenSource)) {
        throw new CliError(
          "NOT_LOGGED_IN",
          `Not logged in to ${server}: run packyard login --server ${server}, or set PACKYARD_TOKEN`,
          exitCodes.auth,
        );
      }
      return packyardApi(context.client());
    },
    actingFor: (name) => {
      owner = name;
    },
    token: () => context.credentials().token ?? publishedToken,
    print: (line = "") => {
      if (!flags.json) io.stdout.write(`${line}\n`);
    },
    note: (line) => {
      io.stderr.write(`${line}\n`);
    },
    result: (json, human) => {
      if (flags.json) io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      else human();
    },
  };
  return context;
}

export async function readText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

let version: string | undefined;

/** Replaced by the version string in the single-file bundle (scripts/bundle.ts). */
declare const PACKYARD_CLI_VERSION: string | undefined;

/** The version in the CLI's package.json, found from here in src/ and in dist/ alike. */
export function cliVersion(): string {
  version ??= typeof PACKYARD_CLI_VERSION === "string" ? PACKYARD_CLI_VERSION : findVersion();
  return version;
}

function findVersion(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "packyard" && pkg.version) return pkg.version;
    } catch {}
  }
  return "unknown";
}
