// The fast path of /dl: an anonymous GET or HEAD of a public project's release file, APT index
// or pool file, or YUM repodata or package, answered straight on Node's request and response
// when everything it needs is already in the serving cache (serving/serve-cache.ts) — no
// framework, no web streams, no database. Anything else (a cache miss, a key or a session,
// a query string, an escaped URL, an error, S3 storage, ranges it cannot satisfy, repomd.xml
// and its signature, SHA256SUMS) goes to the Hono app unchanged, which also fills the cache.
//
// The answer is the one the Hono routes give (downloads.ts, apt.ts, yum.ts share its headers
// and rules), with the same request log line, metrics and download counting; only the
// Content-Security-Policy is the fixed `default-src 'none'` a file needs, since no page is
// rendered here. Why it exists: docs/decisions/039-serving-cache.md.
import { close, open, read as readFd, readFile } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { normalizeFilename } from "@packyard/contract";
import { classifyClient } from "@packyard/contract/stats.ts";
import type { ServedFile } from "../domain/downloads.ts";
import { countServed } from "../domain/usage.ts";
import type { IndexFileRef } from "../publishing/publisher.ts";
import type { Services } from "../services.ts";
import { type CachedRelease, keys } from "../serving/lookups.ts";
import { HOT_FILE_BYTES, servingCachesOf } from "../serving/serve-cache.ts";
import { contentTypeOf, parseDistsPath } from "./apt.ts";
import { cacheControl } from "./cache-control.ts";
import { accountingOf, matchesEtag, parseRange, releaseFileHeaders } from "./downloads.ts";
import { recordRequest, requestIdOf } from "./request-log.ts";
import { fixedSecurityHeaders } from "./security-headers.ts";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
type ProjectRow = { id: string; owner_id: string; slug: string; visibility: string };

/** Reads of a file streamed to a client: large, so a 1 MiB file is one read. */
const READ_BYTES = 1024 * 1024;

const RELEASE_ROUTE = "/dl/:username/:slug/releases/:version/:filename";
const DEB_ROUTE = "/dl/:username/:slug/deb/*";
const RPM_ROUTE = "/dl/:username/:slug/rpm/*";

/** A file on the local disk to stream, or bytes in memory. */
type Body =
  | { kind: "file"; path: string; sha256: string; size: number; start: number; end: number }
  | { kind: "bytes"; bytes: Buffer };

/**
 * An index file's answer, remembered per URL in the serving cache (so dropped with it on every
 * change): its bytes stay in the content cache, named by `sha256`; `head` is the complete
 * header list for writeHead, built once, its last value the request id, set per request.
 */
interface IndexAnswer {
  route: string;
  sha256: string;
  head: string[];
  ownerId: string;
}

interface Answer {
  route: string;
  status: number;
  headers: Record<string, string>;
  body?: Body;
  /** For an index file: what the next request for this URL answers without looking it up. */
  remember?: IndexAnswer;
  /** Counted in the owner's bytes (and the file's downloads, when `file` is given). */
  count: { ownerId: string; file?: ServedFile; lastByte?: boolean; distribution?: string };
}

/**
 * Wraps the app's request listener: requests the fast path can answer are answered here, every
 * other one is passed on untouched.
 */
export function withFastDownloads(services: Services, next: Listener): Listener {
  const { config } = services;
  const db = services.database.db;
  const caches = servingCachesOf(db);
  const accounting = accountingOf(services);
  const fixed = {
    ...fixedSecurityHeaders(config.baseUrl.startsWith("https://")),
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  };
  const logOptions = { logger: () => services.logger, metrics: () => services.metrics };
  const presigned = Boolean(config.s3?.presignedDownloads);
  const localPath = services.blobs.localPath?.bind(services.blobs);

  const peek = <T>(key: string) => caches.rows.peek<T>(key);
  /** The proxy's X-Request-Id is read only when trusted: Node builds `req.headers` on first use. */
  const requestId = (req: IncomingMessage) =>
    requestIdOf(config.trustProxy ? header(req, "x-request-id") : undefined, config.trustProxy);

  /** A stored file's bytes start..end: from memory when the file is small and was asked for before. */
  function fileBody(path: string, sha256: string, size: number, start: number, end: number): Body {
    const bytes = size <= HOT_FILE_BYTES ? caches.files.get(sha256) : undefined;
    if (bytes)
      return {
        kind: "bytes",
        bytes: start === 0 && end === size - 1 ? bytes : bytes.subarray(start, end + 1),
      };
    return { kind: "file", path, sha256, size, start, end };
  }

  function project(username: string, slug: string): ProjectRow | undefined {
    const row = peek<ProjectRow | undefined>(keys.project(username, slug));
    return row?.visibility === "public" ? row : undefined;
  }

  function releaseFile(
    req: IncomingMessage,
    p: ProjectRow,
    version: string,
    name: string,
  ): Answer | undefined {
    if (!localPath || presigned) return undefined;
    const filename = normalizeFilename(name);
    if (filename === "SHA256SUMS" || filename === "SHA256SUMS.asc") return undefined;
    const cached = peek<CachedRelease>(keys.release(p.id, version));
    const file = cached?.files.find((f) => f.filename === filename);
    if (!cached || !file) return undefined;
    const size = Number(file.size);
    if (size === 0) return undefined;
    const headers = releaseFileHeaders(
      file,
      cacheControl({ kind: version === "latest" ? "latest" : "immutable", shared: true }),
    );
    const count = {
      ownerId: p.owner_id,
      file: { id: file.id, projectId: p.id, version: cached.release.version, filename: file.filename },
    };
    if (matchesEtag(req.headers["if-none-match"], headers.etag!)) {
      return { route: RELEASE_ROUTE, status: 304, headers, count: { ownerId: p.owner_id } };
    }
    const ifRange = req.headers["if-range"];
    const range = ifRange && ifRange !== headers.etag ? undefined : parseRange(req.headers.range, size);
    if (range === null) return undefined; // 416: the app's error answer
    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    headers["content-length"] = String(end - start + 1);
    if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
    return {
      route: RELEASE_ROUTE,
      status: range ? 206 : 200,
      headers,
      body: fileBody(localPath(file.sha256), file.sha256, size, start, end),
      count: { ...count, lastByte: end === size - 1 },
    };
  }

  /** A stored package (pool/ or packages/): the whole file, an immutable answer. */
  function packageFile(
    p: ProjectRow,
    route: string,
    file: { id: string; sha256: string; size: number | string | bigint; version: string; filename: string },
    contentType: string,
    distribution: string | undefined,
  ): Answer | undefined {
    if (!localPath) return undefined;
    const size = Number(file.size);
    if (size === 0) return undefined;
    return {
      route,
      status: 200,
      headers: {
        "content-type": contentType,
        etag: `"${file.sha256}"`,
        "cache-control": cacheControl({ kind: "immutable", shared: true }),
        "content-length": String(size),
      },
      body: fileBody(localPath(file.sha256), file.sha256, size, 0, size - 1),
      count: {
        ownerId: p.owner_id,
        file: { id: file.id, projectId: p.id, version: file.version, filename: file.filename },
        lastByte: true,
        ...(distribution ? { distribution } : {}),
      },
    };
  }

  /** An index file whose bytes are in memory (wherever the index store keeps them: disk or S3). */
  function indexFile(
    p: ProjectRow,
    route: string,
    ref: IndexFileRef | undefined,
    headers: Record<string, string>,
  ): Answer | undefined {
    const bytes = ref && caches.content.get(ref.sha256);
    if (!bytes) return undefined;
    const all = { ...headers, "content-length": String(bytes.byteLength), ...fixed, "X-Request-Id": "" };
    return {
      route,
      status: 200,
      headers: all,
      body: { kind: "bytes", bytes },
      remember: { route, sha256: ref.sha256, head: Object.entries(all).flat(), ownerId: p.owner_id },
      count: { ownerId: p.owner_id },
    };
  }

  function deb(p: ProjectRow, rest: string): Answer | undefined {
    if (rest.startsWith("pool/")) {
      const file = peek<Parameters<typeof packageFile>[2] & { suite: string }>(keys.pool(p.id, rest));
      return file && packageFile(p, DEB_ROUTE, file, "application/vnd.debian.binary-package", file.suite);
    }
    const dists = parseDistsPath(rest);
    if (!dists) return undefined;
    const { suite, path, byHash } = dists;
    if (byHash) {
      const { directory, algorithm, hex } = byHash;
      const ref = peek<IndexFileRef>(keys.byHash([p.id, "apt", suite, directory, algorithm, hex]));
      return indexFile(p, DEB_ROUTE, ref, {
        "content-type": contentTypeOf(ref?.path ?? ""),
        "cache-control": cacheControl({ kind: "immutable", shared: true }),
      });
    }
    const ref = peek<IndexFileRef>(keys.index(p.id, "apt", suite, path));
    return indexFile(p, DEB_ROUTE, ref, {
      "content-type": contentTypeOf(path),
      etag: `"${ref?.sha256}"`,
      "cache-control": cacheControl({ kind: "entry", shared: true }),
    });
  }

  function rpm(p: ProjectRow, rest: string): Answer | undefined {
    const parts = rest.split("/");
    const group =
      parts[0] === "repodata" || parts[0] === "packages" || parts.length === 1 ? "" : parts.shift()!;
    const path = parts.join("/");
    if (path.startsWith("packages/")) {
      const file = peek<Parameters<typeof packageFile>[2]>(keys.rpm(p.id, group, path));
      return file && packageFile(p, RPM_ROUTE, file, "application/x-rpm", group || undefined);
    }
    // repomd.xml and its signature follow the requester (yum.ts): never here.
    if (!path.startsWith("repodata/") || path.startsWith("repodata/repomd.xml")) return undefined;
    return indexFile(p, RPM_ROUTE, peek<IndexFileRef>(keys.index(p.id, "yum", group, path)), {
      "content-type": path.endsWith(".gz") ? "application/gzip" : "application/xml",
      "cache-control": cacheControl({ kind: "immutable", shared: true }),
    });
  }

  function answerFor(req: IncomingMessage, url: string): Answer | undefined {
    const parts = url.split("/");
    // ["", "dl", username, slug, kind, …]
    if (
      parts.length < 6 ||
      parts.some((part, i) => i > 0 && (part === "" || part === ".." || part === "."))
    ) {
      return undefined;
    }
    const p = project(parts[2]!, parts[3]!);
    if (!p) return undefined;
    const kind = parts[4];
    if (kind === "releases")
      return parts.length === 7 ? releaseFile(req, p, parts[5]!, parts[6]!) : undefined;
    const rest = parts.slice(5).join("/");
    if (kind === "deb") return deb(p, rest);
    if (kind === "rpm") return rpm(p, rest);
    return undefined;
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    answer: Answer,
    started: number,
    fd: number | undefined,
  ): void {
    const method = req.method!;
    const reqId = requestId(req);
    const body = method === "HEAD" || answer.status === 304 ? undefined : answer.body;
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
      if (!body) return;
      // Delivered: handed whole to the connection, or all of it left before the client hung up.
      const delivered = finished ? readToEnd : sent >= length && res.writableLength === 0;
      const { file, ownerId, lastByte } = answer.count;
      if (!file) {
        countServed(accounting, { ownerId, bytes: sent });
        return;
      }
      const asked = classifyClient(req.headers["user-agent"]);
      const distribution = asked.distribution ?? answer.count.distribution;
      countServed(accounting, {
        ownerId,
        bytes: sent,
        file,
        download: delivered && lastByte === true,
        client: asked.client,
        ...(distribution ? { distribution } : {}),
      });
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
   * An index file from memory: the headers made once per URL and generation (IndexAnswer), one
   * write of headers and body; the log line, metrics and the owner's bytes as send() does.
   */
  function sendIndex(
    req: IncomingMessage,
    res: ServerResponse,
    answer: IndexAnswer,
    bytes: Buffer,
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
      if (sent > 0) countServed(accounting, { ownerId: answer.ownerId, bytes: sent });
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

  return (req, res) => {
    const method = req.method;
    const url = req.url ?? "";
    if (
      (method !== "GET" && method !== "HEAD") ||
      !url.startsWith("/dl/") ||
      url.includes("?") ||
      url.includes("%") ||
      carriesCredentials(req)
    ) {
      next(req, res);
      return;
    }
    const started = performance.now();
    const known = caches.rows.peek<IndexAnswer>(keys.answer(url));
    const bytes = known && caches.content.get(known.sha256);
    if (bytes) {
      sendIndex(req, res, known, bytes, started);
      return;
    }
    let answer: Answer | undefined;
    try {
      answer = answerFor(req, url);
    } catch {
      answer = undefined;
    }
    if (!answer) {
      next(req, res);
      return;
    }
    if (answer.remember && answer.body?.kind === "bytes") {
      caches.rows.remember(keys.answer(url), answer.remember);
      sendIndex(req, res, answer.remember, answer.body.bytes, started);
      return;
    }
    const body = answer.body;
    if (body?.kind !== "file" || method === "HEAD" || answer.status === 304) {
      send(req, res, answer, started, undefined);
      return;
    }
    // The file must exist before the answer starts (a missing blob is the app's error answer).
    if (body.size <= HOT_FILE_BYTES) {
      // Small: read whole, kept in memory for the next requests (the files cache).
      readFile(body.path, (error, bytes) => {
        if (error || bytes.byteLength !== body.size) {
          next(req, res);
          return;
        }
        caches.files.set(body.sha256, bytes);
        const { start, end } = body;
        const part = start === 0 && end === body.size - 1 ? bytes : bytes.subarray(start, end + 1);
        send(req, res, { ...answer, body: { kind: "bytes", bytes: part } }, started, undefined);
      });
      return;
    }
    open(body.path, "r", (error, fd) => {
      if (error) {
        next(req, res);
        return;
      }
      send(req, res, answer, started, fd);
    });
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
 * Whether the request has an Authorization or a Cookie header: read from the raw list Node
 * already has, since most answers here never need the headers object it builds on first use.
 */
function carriesCredentials(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== 13 && name.length !== 6) continue;
    const lower = name.toLowerCase();
    if (lower === "authorization" || lower === "cookie") return true;
  }
  return false;
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
