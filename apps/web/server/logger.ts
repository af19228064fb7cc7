// Structured logs: one JSON object per line on stderr, written by pino — except each request's
// line, the one line every answer writes, made by hand with the same fields in the same order.
// Every line has `level` (a name), `time` (ISO 8601), `pid`, `hostname` and `msg`, plus the fields
// a call adds; a line logged while a request is being handled carries its `reqId` (see
// withLogContext).
import { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";
import { hostname } from "node:os";
import pino from "pino";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** Extra fields of one log line (JSON values). */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  /** An error value becomes `err` ({type, message, stack, …}). */
  error(message: string, error?: unknown, fields?: LogFields): void;
  /**
   * A request's line (`msg` "request"), at debug when `quiet`, else info: the line `info` would
   * write with these fields. Optional: without it, `info`/`debug` write the line.
   */
  request?(line: RequestLine, quiet: boolean): void;
}

/** The fields of a request's log line, in their order (http/request-log.ts shows one). */
export interface RequestLine {
  reqId: string;
  method: string;
  /** A route pattern (a few dozen exist), not the path. */
  route: string;
  /** Only for /dl requests. */
  path?: string;
  status: number;
  durationMs: number;
  bytes: number;
  client: string;
  aborted?: true;
}

const context = new AsyncLocalStorage<LogFields>();

/** Runs `work` so that every line it logs, however deep, carries `fields` (the request id). */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return context.run(fields, work);
}

/** The fields of the log context `work` runs in (withLogContext), if any. */
export function logContext(): LogFields | undefined {
  return context.getStore();
}

/**
 * How stderr is written: synchronously (no line is handed to a worker that could die with the
 * process), in batches — lines gather in memory until BATCH_BYTES of them are waiting, or at
 * most FLUSH_MS have passed, and are then written with one write(2). A warning or an error is
 * written at once with whatever waits before it, and everything waiting is written when the
 * process exits (process.exit after SIGTERM, the end of the event loop, an uncaught exception).
 * What a crash that runs no JavaScript (SIGKILL, the kernel's OOM killer, power) loses: the
 * lines of the last FLUSH_MS, at most BATCH_BYTES. Decision 041.
 */
export const BATCH_BYTES = 32 * 1024;
export const FLUSH_MS = 1000;

/** The ISO 8601 time of the current millisecond, made once per millisecond however many lines it has. */
let isoMs = -1;
let isoText = "";
function isoTime(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = `,"time":"${new Date(now).toISOString()}"`;
  }
  return isoText;
}

/**
 * What a request id may look like: a UUID, or a proxy's id of these characters (anything else is
 * replaced, http/request-log.ts). Nothing in it needs escaping in JSON.
 */
export const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** Methods and route patterns as JSON strings: a handful of each, quoted once. */
const quotedOnce = new Map<string, string>();
function quoted(text: string): string {
  let json = quotedOnce.get(text);
  if (json === undefined) {
    json = JSON.stringify(text);
    if (quotedOnce.size < 1000) quotedOnce.set(text, json);
  }
  return json;
}

/**
 * Lines waiting for their write(2) to a file descriptor; see BATCH_BYTES. Each line is encoded
 * into one reused buffer as it comes: the strings are garbage at once (a line kept until the
 * flush would be copied by every garbage collection in between), and a flush is one write of
 * bytes already encoded.
 */
export class BatchedWriter {
  #fd: number;
  #buffer = Buffer.allocUnsafeSlow(2 * BATCH_BYTES);
  #used = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(line: string): void {
    const room = this.#buffer.byteLength - this.#used;
    // A UTF-16 unit is at most 3 bytes of UTF-8: count exactly only when it might not fit.
    if (line.length * 3 > room && Buffer.byteLength(line) > room) {
      this.flush();
      if (Buffer.byteLength(line) > this.#buffer.byteLength) {
        this.#writeAll(Buffer.from(line));
        return;
      }
    }
    this.#used += this.#buffer.write(line, this.#used);
    if (this.#used >= BATCH_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  /** Writes every waiting line now, whole (a pipe that is full is waited for). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    this.#writeAll(this.#buffer.subarray(0, used));
  }

  /**
   * When stderr cannot be written at all (EPIPE: nobody reads it), the bytes are dropped, as a
   * failed write(2) drops them.
   */
  #writeAll(bytes: Buffer): void {
    let rest = bytes;
    while (rest.byteLength > 0) {
      try {
        rest = rest.subarray(writeSync(this.#fd, rest));
      } catch (error) {
        // A non-blocking pipe that is full: wait a little for its reader.
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
  }
}

let stderr: BatchedWriter | undefined;

/** stderr, written in batches (BATCH_BYTES) and flushed on exit: one writer for the process. */
function batchedStderr(): BatchedWriter {
  if (stderr) return stderr;
  const writer = new BatchedWriter(2);
  process.once("exit", () => writer.flush());
  stderr = writer;
  return writer;
}

/**
 * A logger at `level` writing to stderr (in batches, above), or to `destination` (tests read
 * the lines from a stream of their own).
 */
export function createLogger(
  level: LogLevel,
  destination?: pino.DestinationStream & { flush?: () => void },
): Logger {
  const stream = destination ?? batchedStderr();
  const log = pino(
    {
      level,
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A copy: pino merges the line's own fields into what mixin returns.
      mixin: () => ({ ...context.getStore() }),
    },
    stream,
  );
  const now = () => stream.flush?.();
  const base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => {
      log.warn(fields ?? {}, message);
      now();
    },
    error: (message, error, fields) => {
      log.error(error === undefined ? (fields ?? {}) : { ...fields, err: error }, message);
      now();
    },
    // Made by hand: the request line is the one line every answer writes, and pino's general
    // path (mixin, merge, serializers) cost more than the rest of an index file's answer.
    request(line, quiet) {
      const level = quiet ? "debug" : "info";
      if (!log.isLevelEnabled(level)) return;
      if (context.getStore()) {
        // Inside a request's context, whose fields pino adds (mixin).
        log[level](line, "request");
        return;
      }
      const { reqId, method, route, path, status, durationMs, bytes, client, aborted } = line;
      stream.write(
        `{"level":"${level}"${isoTime()}${base},"reqId":${REQUEST_ID.test(reqId) ? `"${reqId}"` : JSON.stringify(reqId)},"method":${quoted(method)},"route":${quoted(route)}${path === undefined ? "" : `,"path":${JSON.stringify(path)}`},"status":${status},"durationMs":${durationMs},"bytes":${bytes},"client":${JSON.stringify(client)}${aborted ? `,"aborted":true` : ""},"msg":"request"}\n`,
      );
    },
  };
}
