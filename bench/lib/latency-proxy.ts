// An HTTP proxy in front of an S3-compatible server (s3rver) for bench/scale: each request is
// forwarded after `delayMs` (a bucket far away: issue 44 adds 20 ms to every request), over
// keep-alive connections, bodies streamed both ways, and recorded — its S3 operation, key and
// the time it arrived and was answered — so the benchmark can count what a publish asks of S3
// and how many of those requests had to wait for each other.
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the proxy saw it; times are performance.now() of this process. */
export interface S3Request {
  /** PutObject, GetObject, HeadObject, CopyObject, DeleteObject, CreateMultipartUpload, … */
  kind: string;
  /** The object key without the bucket ("" for a bucket-level request). */
  key: string;
  status: number;
  started: number;
  ended: number;
}

/** The S3 operation of a path-style request, from its method, query and headers. */
export function s3Operation(method: string, url: URL, headers: IncomingMessage["headers"]): string {
  const q = url.searchParams;
  const hasKey = url.pathname.replace(/^\/[^/]*\/?/, "") !== "";
  switch (method) {
    case "PUT":
      if (q.has("partNumber") && q.has("uploadId"))
        return headers["x-amz-copy-source"] ? "UploadPartCopy" : "UploadPart";
      if (!hasKey) return "CreateBucket";
      return headers["x-amz-copy-source"] ? "CopyObject" : "PutObject";
    case "POST":
      if (q.has("uploads")) return "CreateMultipartUpload";
      if (q.has("uploadId")) return "CompleteMultipartUpload";
      if (q.has("delete")) return "DeleteObjects";
      return "POST";
    case "DELETE":
      if (q.has("uploadId")) return "AbortMultipartUpload";
      return hasKey ? "DeleteObject" : "DeleteBucket";
    case "HEAD":
      return hasKey ? "HeadObject" : "HeadBucket";
    case "GET":
      if (hasKey) return q.has("uploadId") ? "ListParts" : "GetObject";
      if (q.has("uploads")) return "ListMultipartUploads";
      return q.get("list-type") === "2" ? "ListObjectsV2" : "ListObjects";
    default:
      return method;
  }
}

export class LatencyProxy {
  readonly server: Server;
  /** Added before each request is forwarded; may change between samples. */
  delayMs: number;
  /** Every request answered (or failed) since the last take(). */
  #log: S3Request[] = [];
  /** performance.now() when a request last arrived or ended. */
  lastActivity = 0;
  readonly #target: URL;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 256 });

  constructor(target: string, delayMs = 0) {
    this.#target = new URL(target);
    this.delayMs = delayMs;
    this.server = createServer({ keepAlive: true }, (req, res) => this.#forward(req, res));
  }

  /** Listens on 127.0.0.1, a free port; returns the endpoint to give the S3 client. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The requests recorded since the last call, oldest first, and a fresh log. */
  take(): S3Request[] {
    const log = this.#log;
    this.#log = [];
    return log.sort((a, b) => a.started - b.started);
  }

  #forward(req: IncomingMessage, res: ServerResponse) {
    const started = performance.now();
    this.lastActivity = started;
    const url = new URL(req.url ?? "/", this.#target);
    const entry: S3Request = {
      kind: s3Operation(req.method ?? "GET", url, req.headers),
      key: decodeURIComponent(url.pathname.replace(/^\/[^/]*\/?/, "")),
      status: 0,
      started,
      ended: 0,
    };
    const done = () => {
      if (entry.ended) return;
      entry.ended = performance.now();
      this.lastActivity = entry.ended;
      this.#log.push(entry);
    };
    res.on("close", done);
    const send = () => {
      const upstream = request(
        {
          host: this.#target.hostname,
          port: this.#target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent: this.#agent,
        },
        (answer) => {
          entry.status = answer.statusCode ?? 0;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        },
      );
      upstream.on("error", () => {
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { "content-type": "text/plain" }).end("s3 unreachable\n");
      });
      // The body waits in the request stream (paused, with back-pressure) until then.
      req.pipe(upstream);
    };
    if (this.delayMs > 0) setTimeout(send, this.delayMs);
    else send();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    this.#agent.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Requests that had to wait for each other: the number of stretches in which at least one
 * request was in flight (requests that overlap fall in one). A publish that sends its
 * independent requests at once makes few; each one sent after the previous answer adds one.
 */
export function sequentialRoundTrips(requests: readonly S3Request[]): number {
  let count = 0;
  let busyUntil = Number.NEGATIVE_INFINITY;
  for (const r of [...requests].sort((a, b) => a.started - b.started)) {
    if (r.started >= busyUntil) count++;
    busyUntil = Math.max(busyUntil, r.ended);
  }
  return count;
}
