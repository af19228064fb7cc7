// Structured logs: one JSON object per line on stderr, written by pino. Every line has `level` (a
// name), `time` (ISO 8601), `pid`, `hostname` and `msg`, plus the fields a call adds; a line
// logged while a request is being handled carries its `reqId` (see withLogContext).
import { AsyncLocalStorage } from "node:async_hooks";
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
 * How stderr is written: pino's own destination (sonic-boom), synchronously — no line is handed
 * to another thread that could still be writing it when the process ends — in batches: lines
 * gather in memory until BUFFER_BYTES of them wait, or at most FLUSH_MS have passed, and are then
 * written with one write(2). A warning or an error is written at once with whatever waits before
 * it, and everything waiting is written when the process exits (process.exit after SIGTERM, the
 * end of the event loop, an uncaught exception). What a crash that runs no JavaScript (SIGKILL,
 * the kernel's OOM killer, power) loses: the lines of the last FLUSH_MS, at most BUFFER_BYTES.
 * Decision 072.
 */
export const BUFFER_BYTES = 2 * 1024;
export const FLUSH_MS = 1000;

type Destination = pino.DestinationStream & { flush?: () => void };

let stderr: Destination | undefined;

/** stderr, written in batches (BUFFER_BYTES) and flushed on exit: one destination for the process. */
function stderrDestination(): Destination {
  if (stderr) return stderr;
  const destination = pino.destination({
    dest: 2,
    sync: true,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_MS,
  });
  // pino flushes only its asynchronous destinations on exit by itself.
  process.once("exit", () => destination.flushSync());
  stderr = destination;
  return destination;
}

/**
 * A logger at `level` writing to stderr (buffered, above), or to `destination` (tests read the
 * lines from a stream of their own).
 */
export function createLogger(level: LogLevel, destination?: Destination): Logger {
  const stream = destination ?? stderrDestination();
  const log = pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
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
