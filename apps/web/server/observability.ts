// Error reporting (spec §1, §9) through Sentry's official SDKs, on only when SENTRY_DSN is set.
// The server reports loader, action and render errors (entry.server's handleError and onError)
// and everything Hono's onError catches; the browser gets the DSN and the sample rates through
// the root loader and loads @sentry/react lazily (app/lib/error-reporting.client.ts). A DSN is
// public by design: it only lets a client send events.
import type { Config } from "./config.ts";
import type { CspAllowances } from "./http/site-scripts.ts";
import type { Logger } from "./logger.ts";

/** Spec §9: trace sampling 1, session replays 0.1, replays on error 1. */
export const SAMPLE_RATES = {
  tracesSampleRate: 1,
  replaysSessionSampleRate: 0.1,
  replaysOnErrorSampleRate: 1,
} as const;

export interface ErrorReporter {
  readonly enabled: boolean;
  /** Reports an unexpected error; `request` names the method and path (never the query). */
  capture(error: unknown, context?: { request?: Request; source?: string }): void;
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
  });
  logger.info(`error reporting to ${new URL(config.sentryDsn).host}`);
  return {
    enabled: true,
    capture(error, context = {}) {
      if (context.request?.signal.aborted) return;
      const request = context.request ? new URL(context.request.url) : undefined;
      Sentry.captureException(error, {
        tags: { source: context.source ?? "server" },
        extra: request ? { method: context.request?.method, path: request.pathname } : undefined,
      });
    },
    async flush(timeoutMs = 2000) {
      await Sentry.flush(timeoutMs);
    },
  };
}
