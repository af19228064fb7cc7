// Security headers on every response. Scripts are allowed only from our origin or with the
// per-request nonce that React Router's inline hydration scripts carry. The optional site
// scripts and error reporting, when configured, widen the policy by exactly the origins they
// need (cspAllowances); with none configured it stays as strict as below.
import { randomBytes } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { stripeCspAllowances } from "../../billing/stripe.ts";
import { type CspAllowances, type CspDirective, siteScripts } from "../../site/site-scripts.ts";
import type { Config } from "../config/config.ts";
import { sentryCspAllowances } from "../observability/observability.ts";

export type NonceEnv = { Variables: { nonce: string; staticFile?: boolean } };

/** What the configured site scripts and Sentry add to the policy, merged and deduplicated. */
export function cspAllowances(
  config: Pick<Config, "nodeEnv" | "siteScripts" | "sentryDsn"> & Partial<Pick<Config, "stripe">>,
): CspAllowances {
  const merged: CspAllowances = {};
  const parts = [
    ...siteScripts(config).map((s) => s.csp),
    sentryCspAllowances(config.sentryDsn),
    stripeCspAllowances(config.stripe),
  ];
  for (const part of parts) {
    for (const [directive, origins] of Object.entries(part) as [CspDirective, string[]][]) {
      merged[directive] = [...new Set([...(merged[directive] ?? []), ...origins])];
    }
  }
  return merged;
}

export function contentSecurityPolicy(nonce: string, allow: CspAllowances = {}): string {
  const extra = (directive: CspDirective) => (allow[directive] ?? []).map((origin) => ` ${origin}`).join("");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${extra("script-src")}`,
    // Radix and sonner set inline style attributes.
    `style-src 'self' 'unsafe-inline'${extra("style-src")}`,
    `img-src 'self' data: https:${extra("img-src")}`,
    `font-src 'self' data:${extra("font-src")}`,
    `connect-src 'self'${extra("connect-src")}`,
    ...(allow["frame-src"] ? [`frame-src 'self'${extra("frame-src")}`] : []),
    ...(allow["media-src"] ? [`media-src 'self'${extra("media-src")}`] : []),
    ...(allow["worker-src"] ? [`worker-src 'self'${extra("worker-src")}`] : []),
    "object-src 'none'",
    "base-uri 'self'",
    // The CLI's login hands its token to a program on this machine (/auth/generate-token).
    // Stripe's hosted pages, when payments are configured: a form that starts Checkout or opens
    // the customer portal answers with a redirect there.
    `form-action 'self' http://127.0.0.1:* http://localhost:*${extra("form-action")}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The security headers every answer carries besides its Content-Security-Policy. */
export function fixedSecurityHeaders(https: boolean): Record<string, string> {
  return {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    ...(https ? { "Strict-Transport-Security": "max-age=31536000; includeSubDomains" } : {}),
  };
}

export function securityHeaders(options: {
  https: boolean;
  allow?: CspAllowances;
}): MiddlewareHandler<NonceEnv> {
  const fixed = fixedSecurityHeaders(options.https);
  return async (c, next) => {
    const nonce = randomBytes(16).toString("base64");
    c.set("nonce", nonce);
    await next();
    const h = c.res.headers;
    h.set("Content-Security-Policy", contentSecurityPolicy(nonce, options.allow));
    for (const [name, value] of Object.entries(fixed)) h.set(name, value);
  };
}
