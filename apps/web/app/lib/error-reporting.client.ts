// Error reporting in the browser: @sentry/react, loaded only when the server sent a DSN (root
// loader), so pages without it ship none of the SDK. Errors met before the SDK has loaded are
// kept (a few) and sent once it has.
import type { BrowserErrorReporting } from "../../server/platform/observability/observability.ts";

type Sdk = typeof import("@sentry/react");

let sdk: Sdk | undefined;
let starting: Promise<void> | undefined;
const early: { error: unknown; extra: Record<string, unknown> }[] = [];
const EARLY_LIMIT = 20;

export function startErrorReporting(config: BrowserErrorReporting | null | undefined): void {
  if (!config || starting) return;
  starting = import("@sentry/react").then((Sentry) => {
    Sentry.init({
      dsn: config.dsn,
      environment: config.environment,
      integrations: [Sentry.browserTracingIntegration(), Sentry.replayIntegration()],
      tracesSampleRate: config.tracesSampleRate,
      replaysSessionSampleRate: config.replaysSessionSampleRate,
      replaysOnErrorSampleRate: config.replaysOnErrorSampleRate,
    });
    sdk = Sentry;
    for (const { error, extra } of early.splice(0)) Sentry.captureException(error, { extra });
  });
}

export function reportError(error: unknown, extra: Record<string, unknown> = {}): void {
  if (sdk) sdk.captureException(error, { extra });
  else if (early.length < EARLY_LIMIT) early.push({ error, extra });
}
