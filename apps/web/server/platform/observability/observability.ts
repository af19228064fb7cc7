// Error reporting (spec §1, §9) through Sentry's official SDKs, on only when SENTRY_DSN is set.
// On the server every failure logged with its error is reported (reportingLogger): loader,
// action and render errors (entry.server), Hono's onError, the API's and /dl's unexpected
// errors, failed publishes. The browser gets the DSN and the sample rates through
// the root loader and loads @sentry/react lazily (app/lib/error-reporting.client.ts). A DSN is
// public by design: it only lets a client send events.

import type { CspAllowances } from "../../site/site-scripts.ts";
import type { Config } from "../config/config.ts";
import { type Logger, logContext } from "./logger.ts";

/** Spec §9: trace sampling 1, session replays 0.1, replays on error 1. */
export const SAMPLE_RATES = {
  tracesSampleRate: 1,
  replaysSessionSampleRate: 0.1,
  replaysOnErrorSampleRate: 1,
} as const;

export interface ErrorReporter {
  readonly enabled: boolean;
  /** Reports an unexpected error, with the log line that announced it and the request's id. */
  capture(error: unknown, context?: { message?: string; requestId?: string }): void;
  /** Waits for queued events to be sent (at most `timeoutMs`). */
  flush(timeoutMs?: number): Promise<void>;
}

/** What the browser needs to report errors: null when reporting is off. */
export interface BrowserErrorReporting {
  dsn: string;
  environment: string;
  tracesSampleRate: number;
  replaysSessionSampleRate: number;
  replaysOnErrorSampleRate: number;
}

export function browserErrorReporting(
  config: Pick<Config, "sentryDsn" | "nodeEnv">,
): BrowserErrorReporting | null {
  if (!config.sentryDsn) return null;
  return { dsn: config.sentryDsn, environment: config.nodeEnv, ...SAMPLE_RATES };
}

/**
 * The browser sends events to the DSN's origin; session replay compresses in a worker made
 * from a blob: URL.
 */
export function sentryCspAllowances(dsn: string | undefined): CspAllowances {
  if (!dsn) return {};
  return { "connect-src": [new URL(dsn).origin], "worker-src": ["blob:"] };
}

/** A logger whose `error(message, error)` also reports the error (tagged with the request id). */
export function reportingLogger(logger: Logger, errors: ErrorReporter): Logger {
  if (!errors.enabled) return logger;
  return {
    ...logger,
    error(message, error, fields) {
      logger.error(message, error, fields);
      if (error === undefined) return;
      const requestId = logContext()?.reqId;
      errors.capture(error, { message, requestId: typeof requestId === "string" ? requestId : undefined });
    },
  };
}

const disabled: ErrorReporter = { enabled: false, capture() {}, flush: async () => {} };

export async function createErrorReporter(
  config: Pick<Config, "sentryDsn" | "nodeEnv">,
  logger: Logger,
): Promise<ErrorReporter> {
  if (!config.sentryDsn) return disabled;
  // Loaded only when configured: the SDK costs about a second of start-up.
  const Sentry = await import("@sentry/node");
  Sentry.init({
    dsn: config.sentryDsn,
    environment: config.nodeEnv,
    // No server-side tracing: every /dl download would become a transaction. Errors only.
    tracesSampleRate: undefined,
    // Report an unhandled rejection, then end the process as Node does without Sentry (the
    // SDK's default would only warn and keep running).
    integrations: [Sentry.onUnhandledRejectionIntegration({ mode: "strict" })],
  });
  logger.info(`error reporting to ${new URL(config.sentryDsn).host}`);
  return {
    enabled: true,
    capture(error, context = {}) {
      Sentry.captureException(error, {
        ...(context.message ? { extra: { message: context.message } } : {}),
        ...(context.requestId ? { tags: { request_id: context.requestId } } : {}),
      });
    },
    async flush(timeoutMs = 2000) {
      await Sentry.flush(timeoutMs);
    },
  };
}
