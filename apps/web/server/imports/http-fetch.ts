// HTTP for the repository importers (APT and YUM): basic auth when credentials are given, and
// every failure turned into an ImportError that names the URL (never the password): 401/403 →
// SOURCE_AUTH_FAILED, 404/410 → SOURCE_NOT_FOUND, anything else (5xx, a reset, DNS) →
// SOURCE_UNREACHABLE. An abort is passed on as it is, so a cancelled import stays cancelled.
import { ImportError } from "./source.ts";

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
    response = await (options.fetch ?? fetch)(url, { headers, signal: options.signal, redirect: "follow" });
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason ?? error;
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
