// HTTP for the importers: basic auth when credentials are given, and every failure turned into
// an ImportError that names the URL (never the password, never the answer's body): 401/403 →
// SOURCE_AUTH_FAILED, 404/410 → SOURCE_NOT_FOUND, anything else (5xx, a reset, DNS, no byte for
// too long) → SOURCE_UNREACHABLE. An abort is passed on as it is, so a cancelled import stays
// cancelled.
//
// Every request goes through guardedFetch (decision 055): the webhooks' address guard on every
// hop — redirects are followed here, each checked, at most MAX_REDIRECTS — so an account cannot
// make the server read a loopback, link-local or private address (SOURCE_FORBIDDEN) unless
// WEBHOOK_ALLOW_PRIVATE is set, and a deadline, so a sender trickling bytes cannot hold an
// import (and what it holds) for ever.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { ForbiddenAddressError, resolvePublicAddresses, webhookLookup } from "../webhooks/address-guard.ts";
import { ImportError } from "./source.ts";

/** Redirects followed for one request (GitHub's asset download takes one). */
export const MAX_REDIRECTS = 5;
/** No byte for this long (connecting, waiting for the answer, reading it): cut off. */
export const FETCH_IDLE_TIMEOUT_MS = 60_000;
/** One request, its body read whole included, may take this long at most. */
export const FETCH_TOTAL_TIMEOUT_MS = 30 * 60_000;

export interface GuardedFetchOptions {
  /** WEBHOOK_ALLOW_PRIVATE: loopback, link-local and private addresses may be reached. */
  allowPrivate: boolean;
  /**
   * For tests: how names are resolved and checked at connect time (default: the webhooks' guard).
   * IP literals are always checked by the guard itself.
   */
  lookup?: LookupFunction;
  idleTimeoutMs?: number;
  totalTimeoutMs?: number;
}

/** "30 s", or "300 ms" under a second (tests). */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function forbidden(url: URL, error: ForbiddenAddressError): ImportError {
  return new ImportError("SOURCE_FORBIDDEN", `${url.href}: refused: ${error.message}`, url.href);
}

/**
 * A fetch (GET, the headers and signal of `init`) that connects only to addresses the guard
 * allows, on every redirect, drops the Authorization header when a redirect leaves the origin
 * (as fetch does), and ends a request with SOURCE_UNREACHABLE when no byte comes for
 * `idleTimeoutMs` or the whole takes longer than `totalTimeoutMs`.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init.headers);
    for (let hop = 0; ; hop++) {
      const response = await requestOnce(url, headers, init.signal ?? undefined, options);
      const location = response.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS)
        throw new ImportError(
          "SOURCE_UNREACHABLE",
          `${url.href}: more than ${MAX_REDIRECTS} redirects`,
          url.href,
        );
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ImportError(
          "SOURCE_INVALID",
          `${url.href}: redirects to something that is not a URL`,
          url.href,
        );
      }
      if (next.protocol !== "http:" && next.protocol !== "https:")
        throw new ImportError(
          "SOURCE_INVALID",
          `${url.href}: redirects to a URL that is not http(s)`,
          url.href,
        );
      if (next.origin !== url.origin) headers.delete("authorization");
      url = next;
    }
  };
  return guarded as typeof fetch;
}

async function requestOnce(
  url: URL,
  headers: Headers,
  signal: AbortSignal | undefined,
  options: GuardedFetchOptions,
): Promise<Response> {
  if (!options.allowPrivate) {
    // node:net connects to an IP literal without a lookup: checked here instead.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host))
      await resolvePublicAddresses(host).catch((error: unknown) => {
        throw error instanceof ForbiddenAddressError ? forbidden(url, error) : error;
      });
  }
  const idleMs = options.idleTimeoutMs ?? FETCH_IDLE_TIMEOUT_MS;
  const totalMs = options.totalTimeoutMs ?? FETCH_TOTAL_TIMEOUT_MS;
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    let response: IncomingMessage | undefined;
    const cutOff = (message: string) => {
      const error = new ImportError("SOURCE_UNREACHABLE", `${url.href}: ${message}`, url.href);
      // Once the answer has started, its body stream ends with the error; before, the request.
      if (response) response.destroy(error);
      else request.destroy(error);
    };
    const request = send(
      url,
      {
        method: "GET",
        headers: Object.fromEntries(headers),
        // A fresh connection each time, made to the checked address.
        agent: false,
        ...(options.allowPrivate ? {} : { lookup: options.lookup ?? webhookLookup() }),
        ...(signal ? { signal } : {}),
        timeout: idleMs,
      },
      (answer) => {
        response = answer;
        const status = answer.statusCode ?? 0;
        if (status < 200 || status > 599) {
          cutOff(`answered with HTTP status ${status}`);
          reject(new ImportError("SOURCE_UNREACHABLE", `${url.href}: answered HTTP ${status}`, url.href));
          return;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
        }
        const body =
          status === 204 || status === 304 ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
        resolve(
          new Response(body, { status, statusText: answer.statusMessage ?? "", headers: responseHeaders }),
        );
      },
    );
    const deadline = setTimeout(() => cutOff(`took longer than ${duration(totalMs)}`), totalMs);
    deadline.unref();
    request.on("timeout", () => cutOff(`sent nothing for ${duration(idleMs)}`));
    request.on("close", () => {
      if (!response) clearTimeout(deadline);
    });
    request.on("response", (answer: IncomingMessage) => answer.on("close", () => clearTimeout(deadline)));
    request.on("error", (error) => {
      clearTimeout(deadline);
      reject(error instanceof ForbiddenAddressError ? forbidden(url, error) : error);
    });
    request.end();
  });
}

export interface RepositoryLocation {
  /** The repository's root, ending with "/", without credentials. */
  base: URL;
  /** Basic-auth header value, when credentials were given (or were in the URL). */
  authorization?: string;
}

/**
 * The repository root from what the operator typed: a trailing slash or not, credentials in the
 * URL (`https://user:pass@host/repo`) or given apart (those win).
 */
export function repositoryLocation(input: {
  url: string;
  username?: string;
  password?: string;
}): RepositoryLocation {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new ImportError("SOURCE_INVALID", `${input.url} is not a URL`, input.url);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ImportError("SOURCE_INVALID", `${input.url} is not an http(s) URL`, input.url);
  let username = input.username;
  let password = input.password;
  if (url.username !== "" || url.password !== "") {
    username ??= decodeURIComponent(url.username);
    password ??= decodeURIComponent(url.password);
    url.username = "";
    url.password = "";
  }
  url.search = "";
  url.hash = "";
  if (!url.pathname.endsWith("/")) url.pathname = `${url.pathname}/`;
  const location: RepositoryLocation = { base: url };
  if (username !== undefined || password !== undefined)
    location.authorization = `Basic ${Buffer.from(`${username ?? ""}:${password ?? ""}`, "utf8").toString("base64")}`;
  return location;
}

/**
 * A path from an index (a file path, not a URL: each segment is percent-encoded) resolved
 * against the repository root, or against an index's xml:base (a URL).
 */
export function resolveInRepository(location: RepositoryLocation, path: string, base?: string): URL {
  const root = base ? new URL(base.endsWith("/") ? base : `${base}/`, location.base) : location.base;
  return new URL(path.split("/").map(encodeURIComponent).join("/"), root);
}

export interface SourceFetchOptions {
  signal: AbortSignal;
  /** The fetch to use: guardedFetch (sources.ts); absent, one that reaches public addresses only. */
  fetch?: typeof fetch;
  /** What is being fetched, for messages: "InRelease", "primary.xml", a file name. */
  what?: string;
}

function describeStatus(response: Response): string {
  return `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
}

/** The error for a response that is not 2xx. */
export function statusError(response: Response, url: URL, what?: string): ImportError {
  const subject = url.href;
  const label = what ? `${what} (${subject})` : subject;
  if (response.status === 401 || response.status === 403)
    return new ImportError(
      "SOURCE_AUTH_FAILED",
      `${label}: the repository refused ${response.status === 401 ? "the credentials (or needs some)" : "access"}: HTTP ${describeStatus(response)}`,
      subject,
    );
  if (response.status === 404 || response.status === 410)
    return new ImportError(
      "SOURCE_NOT_FOUND",
      `${label}: not found (HTTP ${describeStatus(response)})`,
      subject,
    );
  return new ImportError(
    "SOURCE_UNREACHABLE",
    `${label}: the repository answered HTTP ${describeStatus(response)}`,
    subject,
  );
}

const publicOnly = guardedFetch({ allowPrivate: false });

/** GET with the repository's credentials; a 2xx response with a body, or an ImportError. */
export async function fetchFromRepository(
  location: RepositoryLocation,
  url: URL,
  options: SourceFetchOptions,
): Promise<Response> {
  const headers: Record<string, string> = { "user-agent": "Packyard-importer" };
  // Credentials go to the repository's own origin only, never to a host an index points at.
  if (location.authorization && url.origin === location.base.origin)
    headers.authorization = location.authorization;
  let response: Response;
  try {
    response = await (options.fetch ?? publicOnly)(url, { headers, signal: options.signal });
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason ?? error;
    if (error instanceof ImportError) throw error;
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    const label = options.what ? `${options.what} (${url.href})` : url.href;
    throw new ImportError("SOURCE_UNREACHABLE", `${label}: could not be fetched: ${cause}`, url.href);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw statusError(response, url, options.what);
  }
  if (!response.body) {
    return new Response(new Uint8Array(), { status: response.status, headers: response.headers });
  }
  return response;
}

/** Reads a small text (InRelease, repomd.xml) whole, refusing more than `maxBytes`. */
export async function readSmallText(
  response: Response,
  url: URL,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ImportError(
        "SOURCE_INVALID",
        `${what} (${url.href}) is larger than ${maxBytes} bytes`,
        url.href,
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
