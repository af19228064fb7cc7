// packyard login: the browser makes a token and hands it to this process over a loopback
// callback (RFC 8252: http://127.0.0.1:PORT/callback, one request, its state must match), or
// --token takes one made on the token page. The token is checked against the API, then stored
// for this server in the user's config directory, readable by the user only.
import { spawn } from "node:child_process";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { packyardApi } from "../api.ts";
import { type Command, stringOption } from "../command.ts";
import {
  DEFAULT_SERVER,
  normalizeServer,
  readStoredConfig,
  tokenPrefix,
  writeStoredConfig,
} from "../config.ts";
import { type Context, readText } from "../context.ts";
import { CliError, exitCodes, usageError } from "../errors.ts";

const DEFAULT_TIMEOUT_SECONDS = 300;

export const loginCommand: Command = {
  usage: "login [--server URL] [--token TOKEN]",
  summary: "Log in from the browser and store the token",
  details: [
    "Opens SERVER/auth/generate-token, which sends a new token back to this command on",
    "127.0.0.1. On a machine without a browser, create a token on that page and run",
    "packyard login --token TOKEN (or --token - to read it from stdin).",
  ],
  options: {
    "no-browser": { type: "boolean", description: "Only print the URL; do not try to open a browser" },
    timeout: {
      type: "string",
      value: "SECONDS",
      description: `How long to wait for the browser (default ${DEFAULT_TIMEOUT_SECONDS})`,
    },
  },
  args: { min: 0, max: 0 },
  async run(context, _args, options) {
    const server = loginServer(context);
    const timeout = Number(stringOption(options, "timeout") ?? DEFAULT_TIMEOUT_SECONDS);
    if (!Number.isFinite(timeout) || timeout <= 0) throw usageError("--timeout must be a number of seconds");
    let given = context.flags.token;
    if (given === "-") given = (await readText(context.io.stdin)).trim();
    if (given === "") throw usageError("--token - read an empty token from stdin");
    const verify = (token: string) => verifyToken(context, server, token);
    const { token, user } = given
      ? { token: given, user: await verify(given) }
      : await browserLogin(context, server, timeout * 1000, options["no-browser"] !== true, verify);
    const path = writeStoredConfig(context.env, { server, token });
    context.result({ server, user: user ?? null, token: tokenPrefix(token), config: path }, () =>
      context.print(
        `Logged in to ${server}${user ? ` as ${user}` : ""}. Token ${tokenPrefix(token)} saved in ${path}`,
      ),
    );
  },
};

/** --server, PACKYARD_SERVER, the last login's server, the default. A damaged config file is ignored: login replaces it. */
function loginServer(context: Context): string {
  let stored: string | undefined;
  try {
    stored = readStoredConfig(context.env)?.server;
  } catch {
    stored = undefined;
  }
  return normalizeServer(context.flags.server || context.env.PACKYARD_SERVER || stored || DEFAULT_SERVER);
}

/** The token works: the API answers with it. Returns the user when its projects name one. */
async function verifyToken(context: Context, server: string, token: string): Promise<string | undefined> {
  try {
    const projects = await packyardApi(context.client({ server, token })).listProjects();
    return projects[0]?.owner;
  } catch (error) {
    if (error instanceof CliError && error.exitCode === exitCodes.auth) {
      throw new CliError(
        error.code,
        `${server} refused the token: ${error.message}`,
        exitCodes.auth,
        error.status,
      );
    }
    throw error;
  }
}

interface Callback {
  token: string | null;
  error: string | null;
  answer(status: number, title: string, text: string): void;
}

async function browserLogin(
  context: Context,
  server: string,
  timeoutMs: number,
  openBrowser: boolean,
  verify: (token: string) => Promise<string | undefined>,
): Promise<{ token: string; user: string | undefined }> {
  const state = randomBytes(32).toString("base64url");
  let received: (callback: Callback) => void = () => {};
  const callback = new Promise<Callback>((resolve) => {
    received = resolve;
  });
  let answered = false;
  const listener = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== "/callback") {
      return page(response, 404, "Not found", "This address only receives the Packyard login.");
    }
    if (!sameState(url.searchParams.get("state") ?? "", state)) {
      return page(
        response,
        400,
        "Not this login",
        "This link does not belong to the packyard login waiting here. Nothing was saved.",
      );
    }
    if (answered) return page(response, 409, "Already done", "This login has already been answered.");
    answered = true;
    received({
      token: url.searchParams.get("token"),
      error: url.searchParams.get("error"),
      answer: (status, title, text) => page(response, status, title, text),
    });
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", resolve);
  });
  const { port } = listener.address() as AddressInfo;
  const authorize = new URL(`${server}/auth/generate-token`);
  authorize.searchParams.set("callback", `http://127.0.0.1:${port}/callback`);
  authorize.searchParams.set("state", state);

  context.note(`Open this page to authorize the packyard CLI:\n\n  ${authorize}\n`);
  if (openBrowser && context.io.stdout.isTTY) tryOpenBrowser(authorize.toString());
  context.note(`Waiting for the browser (up to ${Math.round(timeoutMs / 1000)} s; Ctrl-C to stop)…`);

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CliError(
            "LOGIN_TIMEOUT",
            `No answer from the browser within ${Math.round(timeoutMs / 1000)} s; run packyard login again, or create a token at ${server}/auth/generate-token and run packyard login --token TOKEN`,
            exitCodes.auth,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    const answer = await Promise.race([callback, timedOut]);
    if (answer.error !== null || !answer.token) {
      const denied = answer.error === "access_denied";
      answer.answer(
        400,
        denied ? "Login cancelled" : "Login failed",
        "Nothing was saved. You can close this tab.",
      );
      throw new CliError(
        denied ? "ACCESS_DENIED" : "LOGIN_FAILED",
        denied
          ? "The login was cancelled in the browser; nothing was saved"
          : `The browser came back without a token${answer.error ? ` (${answer.error})` : ""}; nothing was saved`,
        exitCodes.auth,
      );
    }
    try {
      const user = await verify(answer.token);
      answer.answer(
        200,
        "The packyard CLI is logged in",
        "You can close this tab and return to your terminal.",
      );
      return { token: answer.token, user };
    } catch (error) {
      answer.answer(
        502,
        "Login failed",
        `${(error as Error).message}. Nothing was saved; see your terminal.`,
      );
      throw error;
    }
  } finally {
    clearTimeout(timer);
    listener.close();
    listener.closeAllConnections();
  }
}

function sameState(received: string, expected: string): boolean {
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(response: ServerResponse, status: number, title: string, text: string): void {
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    connection: "close",
  });
  response.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Packyard</title></head>` +
      `<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5">` +
      `<h1 style="font-size:1.4rem">${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`,
  );
}

/** Best effort: a missing or failing opener only means the user clicks the printed URL. */
function tryOpenBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {}
}
