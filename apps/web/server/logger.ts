// Structured logs: one JSON object per line on stderr, written by pino. Every line has `level`
// (a name), `time` (ISO 8601), `pid`, `hostname` and `msg`, plus the fields a call adds; a line
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
 * A logger at `level` writing to stderr, or to `destination` (tests read the lines from a
 * stream of their own).
 */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  const log = pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A copy: pino merges the line's own fields into what mixin returns.
      mixin: () => ({ ...context.getStore() }),
    },
    // Synchronous writes, as process.stderr's to a file or pipe: no line is lost when the
    // process dies, and under load it costs no more CPU than pino's asynchronous default
    // (bench/downloads/overhead.ts --async-log; docs/benchmarks.md).
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, error, fields) =>
      log.error(error === undefined ? (fields ?? {}) : { ...fields, err: error }, message),
  };
}
