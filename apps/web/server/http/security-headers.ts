// Security headers on every response. Scripts are allowed only from our origin or with the
// per-request nonce that React Router's inline hydration scripts carry.
import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";

export type NonceEnv = { Variables: { nonce: string; staticFile?: boolean } };

export function securityHeaders(options: { https: boolean }): MiddlewareHandler<NonceEnv> {
  return async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    c.set("nonce", nonce);
    await next();
    const h = c.res.headers;
    h.set(
      "Content-Security-Policy",
      [
        "default-src 'self'",
        `script-src 'self' 'nonce-${nonce}'`,
        // Radix and sonner set inline style attributes.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: https:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        // The CLI's login hands its token to a program on this machine (/auth/generate-token).
        "form-action 'self' http://127.0.0.1:* http://localhost:*",
        "frame-ancestors 'none'",
      ].join("; "),
    );
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    h.set("X-Frame-Options", "DENY");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
    if (options.https) h.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  };
}
