// When a request is worth repeating and how long to wait first (spec §9: up to 5 retries with
// exponential backoff). Transient means the network or a busy server, never an answer about
// the request itself.
import type { Env } from "./config.ts";

export interface RetryPolicy {
  retries: number;
  baseMs: number;
  maxMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { retries: 5, baseMs: 500, maxMs: 10_000 };

/** PACKYARD_RETRY_BASE_MS shortens the waits (tests); the number of retries stays the spec's. */
export function retryPolicyFrom(env: Env): RetryPolicy {
  const raw = env.PACKYARD_RETRY_BASE_MS;
  const base = raw ? Number(raw) : Number.NaN;
  if (!Number.isFinite(base) || base < 0) return defaultRetryPolicy;
  return { ...defaultRetryPolicy, baseMs: base, maxMs: base * 20 };
}

/** Statuses a busy or restarting server (or its proxy) answers with. */
export const transientStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const transientCodes = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** The system or undici error code inside a failed fetch ("fetch failed" hides it in `cause`). */
export function networkErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const { code, name, errors, cause } = e as {
      code?: unknown;
      name?: unknown;
      errors?: unknown[];
      cause?: unknown;
    };
    if (typeof code === "string") return code;
    if (name === "TimeoutError") return "ETIMEDOUT";
    if (Array.isArray(errors)) {
      const inner = errors.map(networkErrorCode).find(Boolean);
      if (inner) return inner;
    }
    e = cause;
  }
  return undefined;
}

export function isTransientNetworkError(error: unknown): boolean {
  const code = networkErrorCode(error);
  return code !== undefined && transientCodes.has(code);
}

/**
 * Exponential backoff with jitter: base·2^attempt, between half and all of it, capped. A server's
 * Retry-After (seconds) is honoured when it asks for longer, up to a minute.
 */
export function backoffMs(policy: RetryPolicy, attempt: number, retryAfter?: string | null): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  const delay = exponential / 2 + Math.random() * (exponential / 2);
  const asked = retryAfter ? Number(retryAfter) : Number.NaN;
  return Number.isFinite(asked) && asked > 0 ? Math.max(delay, Math.min(asked, 60) * 1000) : delay;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
