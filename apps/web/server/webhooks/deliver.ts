// One HTTP attempt of a webhook delivery: a POST of the JSON body with its headers, to the
// checked address only (address-guard.ts, unless private targets are allowed), no redirect
// followed (a 3xx is a failure), 10 seconds at most (WEBHOOK_TIMEOUT_SECONDS), and the first
// kilobyte of the answer kept for the delivery log.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { ForbiddenAddressError, resolvePublicAddresses, webhookLookup } from "./address-guard.ts";

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface AttemptResult {
  /** The HTTP status, or null when no response came. */
  status: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** 2xx: delivered. */
  ok: boolean;
}

export async function postWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivate: boolean;
  timeoutMs?: number;
}): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(input.url);
  try {
    // node:net connects to an IP literal without a lookup: checked here instead.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (!input.allowPrivate && isIP(host)) await resolvePublicAddresses(host);
    const response = await send(url, input);
    const status = response.status;
    const ok = status >= 200 && status < 300;
    return {
      status,
      durationMs: elapsed(),
      responseExcerpt: response.excerpt,
      error: ok ? null : status >= 300 && status < 400 ? "Redirects are not followed" : null,
      ok,
    };
  } catch (error) {
    const message =
      error instanceof ForbiddenAddressError
        ? `Refused: ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    return { status: null, durationMs: elapsed(), responseExcerpt: null, error: message, ok: false };
  }
}

function send(
  url: URL,
  input: { body: string; headers: Record<string, string>; allowPrivate: boolean; timeoutMs?: number },
): Promise<{ status: number; excerpt: string }> {
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          ...input.headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(input.body)),
        },
        // A fresh connection each time, made to the checked address.
        agent: false,
        ...(input.allowPrivate ? {} : { lookup: webhookLookup() }),
        timeout: input.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          // Text as far as it goes: NUL bytes (which PostgreSQL's text refuses) are dropped.
          const excerpt = Buffer.concat(chunks)
            .subarray(0, RESPONSE_EXCERPT_BYTES)
            .toString("utf8")
            .replaceAll("\0", "");
          resolve({ status: response.statusCode ?? 0, excerpt });
        };
        response.on("data", (chunk: Buffer) => {
          if (size >= RESPONSE_EXCERPT_BYTES) return;
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: the rest of a long answer is not waited for.
          if (size >= RESPONSE_EXCERPT_BYTES) {
            response.destroy();
            finish();
          }
        });
        response.on("end", finish);
        response.on("error", () => finish());
      },
    );
    const deadline = setTimeout(() => {
      req.destroy(new Error(`No answer within ${(input.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s`));
    }, input.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    req.on("timeout", () => req.destroy(new Error("The connection timed out")));
    req.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.on("close", () => clearTimeout(deadline));
    req.end(input.body);
  });
}
