// HTTP to a Packyard: the token, retries of transient failures, and errors turned into
// CliErrors that carry the API's code. Successful bodies are parsed with the contract's schema
// for that route; an answer that does not match is an error, never used as is.
import type { z } from "zod";
import { apiErrorBody } from "./contract.ts";
import { CliError, exitCodeForApiError, exitCodes } from "./errors.ts";
import {
  backoffMs,
  isTransientNetworkError,
  networkErrorCode,
  type RetryPolicy,
  sleep,
  transientStatuses,
} from "./retry.ts";

/** Spec §9: HTTP timeouts of 120 s. Uploads have none: a large file may take longer. */
const REQUEST_TIMEOUT_MS = 120_000;

export interface ApiClientOptions {
  server: string;
  token: string | undefined;
  /** Where the token comes from when it is got at the first request (trusted publishing). */
  tokenProvider?: () => Promise<string>;
  retry: RetryPolicy;
  userAgent: string;
  /** Told before each retry, to say so on stderr. */
  onRetry?: (notice: string) => void;
}

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  /** A JSON body. */
  json?: unknown;
  /** A streamed body, made afresh for every attempt. */
  upload?: () => { body: ReadableStream<Uint8Array>; length: number; contentType: string; close(): void };
  headers?: Record<string, string>;
  /**
   * May the request run twice? Then any transient failure is retried; otherwise only those that
   * prove the server did not act on it (connection refused, 429, 503). Default: all but POST.
   */
  idempotent?: boolean;
}

const describeCode: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  UND_ERR_SOCKET: "connection closed",
  EPIPE: "connection closed",
  ETIMEDOUT: "timed out",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "name lookup failed",
};

export class ApiClient {
  readonly server: string;
  #token: string | undefined;
  private readonly options: ApiClientOptions;

  constructor(options: ApiClientOptions) {
    this.options = options;
    this.server = options.server;
    this.#token = options.token;
  }

  /** The token sent: given, or got from the provider by the first request. */
  get token(): string | undefined {
    return this.#token;
  }

  url(path: string, query: Record<string, string | undefined> = {}): string {
    const url = new URL(`${this.server}${path}`);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    return url.toString();
  }

  /** Sends with retries; answers any response the server gave, after the last retry if need be. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const { retry, onRetry } = this.options;
    const url = this.url(path, options.query);
    const idempotent = options.idempotent ?? method !== "POST";
    if (this.#token === undefined && this.options.tokenProvider)
      this.#token = await this.options.tokenProvider();
    for (let attempt = 0; ; attempt++) {
      const upload = options.upload?.();
      const headers: Record<string, string> = {
        accept: "application/json",
        "user-agent": this.options.userAgent,
        ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
        ...(options.json !== undefined ? { "content-type": "application/json" } : {}),
        ...(upload ? { "content-type": upload.contentType, "content-length": String(upload.length) } : {}),
        ...options.headers,
      };
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: upload ? upload.body : options.json !== undefined ? JSON.stringify(options.json) : undefined,
          ...(upload ? { duplex: "half" } : { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
        } as RequestInit);
      } catch (error) {
        const code = networkErrorCode(error) ?? "NETWORK_ERROR";
        const retryable = isTransientNetworkError(error) && (idempotent || code === "ECONNREFUSED");
        if (retryable && attempt < retry.retries) {
          const delay = backoffMs(retry, attempt);
          onRetry?.(
            retryNotice(
              method,
              path,
              `${describeCode[code] ?? "network error"} (${code})`,
              delay,
              attempt,
              retry,
            ),
          );
          await sleep(delay);
          continue;
        }
        const after = attempt > 0 ? ` after ${attempt} ${attempt === 1 ? "retry" : "retries"}` : "";
        throw new CliError(
          code,
          `Cannot reach ${this.server}: ${describeCode[code] ?? (error as Error).message}${after}`,
          exitCodes.failure,
        );
      } finally {
        upload?.close();
      }
      if (transientStatuses.has(response.status) && attempt < retry.retries) {
        if (idempotent || response.status === 429 || response.status === 503) {
          const delay = backoffMs(retry, attempt, response.headers.get("retry-after"));
          await response.body?.cancel();
          onRetry?.(
            retryNotice(method, path, `${response.status} ${response.statusText}`, delay, attempt, retry),
          );
          await sleep(delay);
          continue;
        }
      }
      // A DELETE whose first answer was lost: the thing is gone, as asked.
      if (method === "DELETE" && attempt > 0 && response.status === 404)
        return new Response(null, { status: 204 });
      return response;
    }
  }

  /** The parsed body of a successful answer; an error answer becomes a CliError with the API's code. */
  async call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.output<S>> {
    const response = await this.send(method, path, options);
    if (!response.ok) throw await apiError(response, method, path);
    const body = await response.json().catch(() => undefined);
    return parseResponse(schema, body, method, path);
  }

  /** For answers without a body (204). */
  async callNoContent(method: string, path: string, options: RequestOptions = {}): Promise<void> {
    const response = await this.send(method, path, options);
    if (!response.ok) throw await apiError(response, method, path);
    await response.body?.cancel();
  }
}

function retryNotice(
  method: string,
  path: string,
  reason: string,
  delayMs: number,
  attempt: number,
  policy: RetryPolicy,
): string {
  return `${method} ${path}: ${reason}; retry ${attempt + 1} of ${policy.retries} in ${(delayMs / 1000).toFixed(1)}s`;
}

export function parseResponse<S extends z.ZodType>(schema: S, body: unknown, method: string, path: string) {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data as z.output<S>;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw new CliError(
    "BAD_RESPONSE",
    `The server's answer to ${method} ${path} does not match the API contract (${where}${issue?.message}); is this a Packyard server, and is the CLI up to date?`,
    exitCodes.failure,
  );
}

/**
 * The error a failed answer stands for: the API's `{"error":{"code","message"}}` when it sent
 * one (a code this CLI does not know yet is still shown), else the HTTP status.
 */
export async function apiError(response: Response, method: string, path: string): Promise<CliError> {
  const text = await response.text().catch(() => "");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const known = apiErrorBody.safeParse(json);
  const error = known.success
    ? known.data.error
    : (json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (error && typeof error.code === "string" && typeof error.message === "string") {
    // VALIDATION_FAILED names each field's problem; the message alone names only the first.
    const fields = Object.entries((error.details ?? {}) as Record<string, unknown>).filter(
      ([f]) => f !== "body",
    );
    const message = fields.length
      ? fields.map(([f, problem]) => `${f}: ${String(problem)}`).join("; ")
      : error.message;
    return new CliError(
      error.code,
      message,
      exitCodeForApiError(response.status, error.code),
      response.status,
    );
  }
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  return new CliError(
    `HTTP_${response.status}`,
    `${method} ${path} failed: the server answered ${status}`,
    exitCodeForApiError(response.status, ""),
    response.status,
  );
}
