// Structured logs: one JSON object per line on stderr, written by pino. Every line has `level`
// (a name), `time` (ISO 8601), `pid`, `hostname` and `msg`, plus the fields a call adds; a line
// logged while a request is being handled carries its `reqId` (see withLogContext).
import { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";
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

/** Lines waiting for their write(2) to a file descriptor; see BATCH_BYTES. */
export class BatchedWriter {
  #fd: number;
  #lines: string[] = [];
  #length = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#length += line.length;
    if (this.#length >= BATCH_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  /**
   * Writes every waiting line now, whole (a pipe that is full is waited for). When stderr
   * cannot be written at all (EPIPE: nobody reads it), the lines are dropped, as a failed
   * write(2) drops them.
   */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return;
    const text = this.#lines.join("");
    this.#lines = [];
    this.#length = 0;
    // The string itself: Node encodes it into memory freed as soon as write(2) returns (a Buffer
    // would wait for a garbage collection, and a steady stream of them grows the heap).
    let rest: Buffer | undefined;
    try {
      const written = writeSync(this.#fd, text);
      if (written === Buffer.byteLength(text)) return;
      rest = Buffer.from(text).subarray(written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return;
      rest = Buffer.from(text);
    }
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
  };
}
