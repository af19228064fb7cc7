// The raw node:http writer of /dl (decision 074): an anonymous GET or HEAD of a release file,
// an APT file or a YUM file is answered straight on Node's request and response when
// resolveDownload (dl-answer.ts), asked to answer from memory only, can — no framework, no web
// streams, no database. A request whose only credential is an entitlement token (a customer's
// apt, dnf or curl, decision 081) is resolved here too, with the database (the token is read and a
// download taken per request), when the blobs are on the local disk. It decides nothing itself: which file, visibility, ranges, conditional
// requests, HEAD and what is counted are the Answer's. Anything the Answer cannot be written
// here (the serving cache lacks something, an error, a redirect, a blob not on the local disk)
// goes to the Hono app unchanged, which resolves the same request with the database.
//
// What it adds is how bytes are written: an index file's Answer (marked reusable) is remembered
// per URL with its header list built once, so the next request for that URL is one write; small
// files are kept in memory after their first read, larger ones read into pooled buffers. The
// request log line, metrics and counting are those of the app's path; only the
// Content-Security-Policy is the fixed `default-src 'none'` a file needs, since no page is
// rendered here. Why it exists: docs/decisions/039-serving-cache.md.
import { createHash } from "node:crypto";
import { close, open, read as readFd, readFile } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { countServed } from "../billing/usage.ts";
import { isEntitlementToken } from "../entitlements/checks.ts";
import { accountingOf } from "../formats/files/serve.ts";
import type { PackageFormat } from "../formats/format.ts";
import { formatOfRoute } from "../formats/registry.ts";
import { requesterOf } from "../formats/yum/entry-pins.ts";
import { credentialFromHeaders } from "../platform/http/actor.ts";
import { recordRequest, requestIdOf } from "../platform/http/request-log.ts";
import { fixedSecurityHeaders } from "../platform/http/security-headers.ts";
import type { Services } from "../services.ts";
import {
  type Answer,
  type Count,
  countingOf,
  type DlRequest,
  type DlRoute,
  dlDeps,
  resolveDownload,
  servedOf,
} from "./dl-answer.ts";
import { keys } from "./lookups.ts";
import { HOT_FILE_BYTES, servingCachesOf } from "./serve-cache.ts";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Reads of a file streamed to a client: large, so a 1 MiB file is one read. */
const READ_BYTES = 1024 * 1024;

/** What is written: bytes in memory, or bytes start..end of a file on the local disk. */
type Body =
  | { kind: "file"; path: string; sha256: string; size: number; start: number; end: number }
  | { kind: "bytes"; bytes: Uint8Array };

/**
 * A reusable Answer, remembered per URL in the serving cache (so dropped with it on every
 * change): its bytes stay in the content cache, named by `sha256`; `head` is the complete
 * header list for writeHead, built once, its last value the request id, set per request.
 */
interface IndexAnswer {
  route: string;
  sha256: string;
  head: string[];
  count?: Count;
}

/**
 * A registry's metadata answer (an npm packument, a PyPI simple page) the app made for an
 * anonymous request of a public project, remembered per URL and the request headers that chose
 * its variant: the next such request is answered here from memory (decision 086). Dropped with
 * the serving cache on every change, like the index answers above.
 */
interface RegistryAnswer {
  route: string;
  sha256: string;
  etag: string;
  headers: Record<string, string>;
  /** The header list for writeHead, made on first use (its last value is the request id). */
  head?: string[];
}

/** A 304's headers: the 200's, less what describes its body. */
function notModifiedHeaders(headers: Record<string, string>): Record<string, string> {
  const kept = { ...headers };
  delete kept["content-length"];
  delete kept["content-encoding"];
  return kept;
}

/** The URL prefixes of the registries whose anonymous metadata answers are remembered. */
const REGISTRY_PREFIXES = ["/npm/", "/pypi/"];

/**
 * What chooses a registry answer's variant besides its URL: the Accept header as sent (npm's
 * abbreviated packument, PEP 691's JSON) and whether the client takes gzip. The routes decide
 * from these alone (and never for a URL with a query).
 */
function registryAnswerKey(
  url: string,
  accept: string | undefined,
  acceptEncoding: string | undefined,
): string {
  return keys.answer(
    `${url}\u0000${accept ?? ""}\u0000${/\bgzip\b/.test(acceptEncoding ?? "") ? "gzip" : ""}`,
  );
}

/**
 * Remembers a registry's 200 answer to an anonymous GET of a public project (`epoch`: the
 * serving cache's when the request began; an answer made across a change is not kept). The
 * headers must carry its Content-Type, Content-Length and ETag.
 */
export function rememberRegistryAnswer(
  db: Services["database"]["db"],
  request: { url: string; accept: string | undefined; acceptEncoding: string | undefined },
  answer: { route: string; headers: Record<string, string>; bytes: Buffer },
  epoch: number,
): void {
  const { pathname: path, search } = new URL(request.url);
  if (search !== "" || !REGISTRY_PREFIXES.some((prefix) => path.startsWith(prefix))) return;
  const caches = servingCachesOf(db);
  const sha256 = createHash("sha256").update(answer.bytes).digest("hex");
  caches.content.set(sha256, answer.bytes);
  const known: RegistryAnswer = {
    route: answer.route,
    sha256,
    etag: answer.headers.etag ?? "",
    headers: answer.headers,
  };
  caches.rows.remember(registryAnswerKey(path, request.accept, request.acceptEncoding), known, epoch);
}

/**
 * Wraps the app's request listener: requests the fast path can answer are answered here, every
 * other one is passed on untouched.
 */
export function withFastDownloads(services: Services, next: Listener): Listener {
  const { config } = services;
  const caches = servingCachesOf(services.database.db);
  const deps = dlDeps(services, true);
  // Entitlement tokens: the same answers, read from the database (checks.ts), written here.
  const entitledDeps = dlDeps(services, false);
  const entitledHere = services.blobs.localPath !== undefined;
  const accounting = accountingOf(services);
  const counting = countingOf(services);
  const fixed = {
    ...fixedSecurityHeaders(config.baseUrl.startsWith("https://")),
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  };
  const logOptions = { logger: () => services.logger, metrics: () => services.metrics };

  /** The proxy's X-Request-Id is read only when trusted: Node builds `req.headers` on first use. */
  const requestId = (req: IncomingMessage) =>
    requestIdOf(config.trustProxy ? header(req, "x-request-id") : undefined, config.trustProxy);

  /** The /dl request a URL names, for the routes answered here; undefined for any other. */
  function requestOf(req: IncomingMessage, url: string, anonymous: boolean): DlRequest | undefined {
    const parts = url.split("/");
    // ["", "dl", username, slug, kind, …]
    if (
      parts.length < 6 ||
      parts.some((part, i) => i > 0 && (part === "" || part === ".." || part === "."))
    ) {
      return undefined;
    }
    const kind = parts[4];
    let route: DlRoute;
    let format: PackageFormat | undefined;
    let params: DlRequest["params"];
    if (kind === "releases" && parts.length === 7) {
      route = "release";
      params = { version: parts[5]!, filename: parts[6]! };
    } else if (kind !== undefined && formatOfRoute(kind)) {
      route = "package";
      format = formatOfRoute(kind);
      params = { rest: parts.slice(5).join("/") };
    } else {
      return undefined;
    }
    let headers: Headers | undefined;
    const headersOf = () => {
      if (!headers) {
        headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
      }
      return headers;
    };
    return {
      route,
      format,
      method: req.method === "HEAD" ? "HEAD" : "GET",
      username: parts[2]!,
      slug: parts[3]!,
      params,
      header: (name) => header(req, name),
      query: () => undefined,
      anonymous,
      headers: headersOf,
      requester: () => requesterOf({ incoming: req }, headersOf()),
    };
  }

  /** Writes the Answer, or leaves the request to the app when it is not one written here. */
  function write(
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    answer: Answer,
    epoch: number,
    started: number,
  ): void {
    const { status } = answer;
    if (answer.error || (status !== 200 && status !== 206 && status !== 304)) {
      next(req, res);
      return;
    }
    const method = req.method!;
    const body = method === "HEAD" || status === 304 ? undefined : answer.body;
    if (answer.count?.issued !== undefined && method === "GET") {
      const { count } = answer;
      countServed(
        accounting,
        servedOf(count, askerOf(req), count.issued!, count.lastByte === true, counting),
      );
    }
    if (!body) {
      send(req, res, answer, undefined, started, undefined);
      return;
    }
    if (body.kind === "bytes") {
      if (answer.reusable && body.sha256) {
        const all = { ...answer.headers, ...fixed, "X-Request-Id": "" };
        const known: IndexAnswer = {
          route: answer.route,
          sha256: body.sha256,
          head: Object.entries(all).flat(),
          ...(answer.count ? { count: answer.count } : {}),
        };
        caches.rows.remember(keys.answer(url), known, epoch);
        sendIndex(req, res, known, body.bytes, started);
        return;
      }
      send(req, res, answer, { kind: "bytes", bytes: body.bytes }, started, undefined);
      return;
    }
    const localPath = body.kind === "blob" ? body.store.localPath?.(body.sha256) : undefined;
    if (body.kind !== "blob" || localPath === undefined) {
      next(req, res);
      return;
    }
    const { sha256, size, start, end } = body;
    const part = (bytes: Buffer) =>
      start === 0 && end === size - 1 ? bytes : bytes.subarray(start, end + 1);
    if (size > HOT_FILE_BYTES) {
      // The file must exist before the answer starts (a missing blob is the app's error answer).
      open(localPath, "r", (error, fd) => {
        if (error) next(req, res);
        else send(req, res, answer, { kind: "file", path: localPath, sha256, size, start, end }, started, fd);
      });
      return;
    }
    // Small: answered from memory once read (the files cache).
    const kept = caches.files.get(sha256);
    if (kept) {
      send(req, res, answer, { kind: "bytes", bytes: part(kept) }, started, undefined);
      return;
    }
    readFile(localPath, (error, bytes) => {
      if (error || bytes.byteLength !== size) {
        next(req, res);
        return;
      }
      caches.files.set(sha256, bytes);
      send(req, res, answer, { kind: "bytes", bytes: part(bytes) }, started, undefined);
    });
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    answer: Answer,
    body: Body | undefined,
    started: number,
    fd: number | undefined,
  ): void {
    const method = req.method!;
    const reqId = requestId(req);
    const length = !body ? 0 : body.kind === "bytes" ? body.bytes.byteLength : body.end - body.start + 1;
    // One pair of listeners does what request-log.ts and deliveryMeter (stream-blob.ts) do on
    // the app's path: the log line and metrics, then the owner's bytes and the file's download.
    let sent = 0;
    let readToEnd = false;
    let reported = false;
    const over = (finished: boolean) => {
      if (reported) return;
      reported = true;
      recordRequest(logOptions, {
        started,
        reqId,
        method,
        route: answer.route,
        path: req.url!,
        status: answer.status,
        client: clientOf(req, config.trustProxy),
        bytes: sent,
        complete: finished,
      });
      const { count } = answer;
      if (!body || !count || count.issued !== undefined) return;
      // Delivered: handed whole to the connection, or all of it left before the client hung up.
      const delivered = finished ? readToEnd : sent >= length && res.writableLength === 0;
      countServed(
        accounting,
        servedOf(count, askerOf(req), sent, delivered && count.lastByte === true, counting),
      );
    };
    res.once("finish", () => over(true));
    res.once("close", () => over(false));
    res.writeHead(answer.status, { ...answer.headers, ...fixed, "X-Request-Id": reqId });
    if (!body) {
      res.end();
      return;
    }
    if (body.kind === "bytes") {
      sent = length;
      readToEnd = true;
      res.end(body.bytes);
      return;
    }
    sendFile(res, fd!, body, (bytes) => {
      sent += bytes;
    }).then(
      () => {
        readToEnd = true;
        res.end();
      },
      () => res.destroy(),
    );
  }

  /**
   * A remembered Answer whose bytes are in memory: one write of the header list made once and
   * the body; the log line, metrics and the owner's bytes as send() does.
   */
  function sendIndex(
    req: IncomingMessage,
    res: ServerResponse,
    answer: IndexAnswer,
    bytes: Uint8Array,
    started: number,
  ): void {
    const method = req.method!;
    const reqId = requestId(req);
    const sent = method === "HEAD" ? 0 : bytes.byteLength;
    const over = (finished: boolean) => {
      recordRequest(logOptions, {
        started,
        reqId,
        method,
        route: answer.route,
        path: req.url!,
        status: 200,
        client: clientOf(req, config.trustProxy),
        bytes: sent,
        complete: finished,
      });
      if (sent > 0 && answer.count) countServed(accounting, { ownerId: answer.count.ownerId, bytes: sent });
    };
    const head = answer.head;
    // Set and used at once: writeHead copies the list into the header block.
    head[head.length - 1] = reqId;
    res.writeHead(200, head);
    if (sent === 0) res.end();
    else res.end(bytes);
    // Usually the connection took the whole answer in end()'s write: it is over now. Otherwise
    // (a full socket buffer, or an earlier answer on the connection still going out) it is over
    // at `close`, which follows `finish` on a completed answer or comes alone when the client
    // left first.
    if (res.writableLength === 0 && !res.destroyed) over(true);
    else res.once("close", () => over(res.writableFinished));
  }

  /** Who asked, as the counts need them. */
  const askerOf = (req: IncomingMessage) => ({
    userAgent: header(req, "user-agent"),
    address: clientOf(req, config.trustProxy),
  });

  /**
   * A remembered registry answer for this anonymous request, written here (a 304 when the client
   * has it); false when there is none and the app is to answer.
   */
  function registryAnswer(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    if (url.includes("?") || credentialsOf(req) !== "none") return false;
    const key = registryAnswerKey(url, header(req, "accept"), header(req, "accept-encoding"));
    const known = caches.rows.peek<RegistryAnswer>(key);
    const bytes = known && caches.content.get(known.sha256);
    if (!bytes) return false;
    const started = performance.now();
    known.head ??= Object.entries({ ...known.headers, ...fixed, "X-Request-Id": "" }).flat();
    const match = header(req, "if-none-match");
    if (
      match &&
      known.etag &&
      match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === known.etag)
    ) {
      send(
        req,
        res,
        { route: known.route, status: 304, headers: notModifiedHeaders(known.headers) },
        undefined,
        started,
        undefined,
      );
      return true;
    }
    sendIndex(req, res, { route: known.route, sha256: known.sha256, head: known.head }, bytes, started);
    return true;
  }

  return (req, res) => {
    const method = req.method;
    const url = req.url ?? "";
    if (
      (method === "GET" || method === "HEAD") &&
      REGISTRY_PREFIXES.some((prefix) => url.startsWith(prefix)) &&
      registryAnswer(req, res, url)
    )
      return;
    if (
      (method !== "GET" && method !== "HEAD") ||
      !url.startsWith("/dl/") ||
      url.includes("?") ||
      url.includes("%")
    ) {
      next(req, res);
      return;
    }
    const credentials = credentialsOf(req);
    if (credentials === "entitlement" && entitledHere) {
      const asked = requestOf(req, url, false);
      if (!asked) {
        next(req, res);
        return;
      }
      const started = performance.now();
      resolveDownload(entitledDeps, asked).then(
        (answer) => {
          try {
            // Never remembered per URL: the answer is this token's.
            write(req, res, url, { ...answer, reusable: false }, caches.rows.epoch, started);
          } catch {
            if (res.headersSent) res.destroy();
            else next(req, res);
          }
        },
        // A refusal (401, 403, 404) or anything else: the app answers it, as it would have.
        () => next(req, res),
      );
      return;
    }
    if (credentials !== "none") {
      next(req, res);
      return;
    }
    const known = caches.rows.peek<IndexAnswer>(keys.answer(url));
    const bytes = known && caches.content.get(known.sha256);
    if (bytes) {
      sendIndex(req, res, known, bytes, performance.now());
      return;
    }
    const asked = requestOf(req, url, true);
    if (!asked) {
      next(req, res);
      return;
    }
    const started = performance.now();
    const epoch = caches.rows.epoch;
    resolveDownload(deps, asked).then(
      (answer) => {
        try {
          write(req, res, url, answer, epoch, started);
        } catch {
          if (res.headersSent) res.destroy();
          else next(req, res);
        }
      },
      // Not in memory, or an error answer: the app's.
      () => next(req, res),
    );
  };
}

/**
 * Reusable read buffers: a file is read into one and written to the socket, and the buffer is
 * reused once the socket has taken it — no new 1 MiB allocation per read, which in a large heap
 * costs more in garbage collection than the copy itself. At most POOLED are kept (8 MiB).
 */
const pool: Buffer[] = [];
const POOLED = 8;

/** Streams bytes start..end (inclusive) of the open file to the response, then closes the fd. */
async function sendFile(
  res: ServerResponse,
  fd: number,
  body: { start: number; end: number },
  onChunk: (bytes: number) => void,
): Promise<void> {
  const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(READ_BYTES);
  try {
    let position = body.start;
    while (position <= body.end) {
      if (res.destroyed) throw new Error("the client went away");
      const want = Math.min(READ_BYTES, body.end - position + 1);
      const { bytesRead } = await read(fd, buffer, 0, want, position);
      if (bytesRead === 0) throw new Error("the file ended early");
      position += bytesRead;
      // The buffer is reused once the socket has taken these bytes (or the client is gone).
      await new Promise<void>((resolve, reject) => {
        const gone = () => reject(new Error("the client went away"));
        res.once("close", gone);
        res.write(buffer.subarray(0, bytesRead), (error) => {
          res.off("close", gone);
          if (error) reject(error);
          else resolve();
        });
      });
      onChunk(bytesRead);
    }
  } finally {
    closeFd(fd);
    if (pool.length < POOLED) pool.push(buffer);
  }
}

function read(fd: number, buffer: Buffer, offset: number, length: number, position: number) {
  return new Promise<{ bytesRead: number }>((resolve, reject) => {
    readFd(fd, buffer, offset, length, position, (error, bytesRead) =>
      error ? reject(error) : resolve({ bytesRead }),
    );
  });
}

function closeFd(fd: number): void {
  close(fd, () => {});
}

/**
 * What the request carries: nothing (no Authorization, no Cookie), only an entitlement token in
 * its Authorization (Bearer or Basic, as actor.ts reads it), or anything else. Read from the raw
 * list Node already has, since most answers here never need the headers object it builds on
 * first use.
 */
function credentialsOf(req: IncomingMessage): "none" | "entitlement" | "other" {
  const raw = req.rawHeaders;
  let authorization: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 && name.length !== 6) continue;
    const lower = name.toLowerCase();
    if (lower === "cookie") return "other";
    if (lower === "authorization") {
      if (authorization !== undefined) return "other";
      authorization = raw[i + 1]!;
    }
  }
  if (authorization === undefined) return "none";
  const credential = credentialFromHeaders(new Headers({ authorization }));
  return credential !== undefined && isEntitlementToken(credential) ? "entitlement" : "other";
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** As clientAddress (request-log.ts): the trusted proxy's last X-Forwarded-For entry, else the peer. */
function clientOf(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = header(req, "x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return req.socket.remoteAddress ?? "127.0.0.1";
}
