// What every /api request passes before a route sees it: JSON bodies are bounded before they are
// read, writes made with a browser session must come from Packyard's own pages, and a path no
// route serves is answered in JSON with a stable code (never an HTML page, never a logged stack).
import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { apiErrorResponse } from "./api-errors.ts";

/** The largest JSON body any API route reads. Uploads stream and have MAX_UPLOAD_BYTES. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** File uploads: PUT …/files/NAME streams the file, POST …/files is multipart. */
const UPLOAD_PATH = /\/releases\/[^/]+\/files(?:\/[^/]+)?\/?$/;
const isUpload = (c: Context) =>
  (c.req.method === "PUT" || c.req.method === "POST") && UPLOAD_PATH.test(c.req.path);
/**
 * Writes whose credential is in the body and which never read the session: the trade of a CI's
 * ID token (trusted publishing). A forged cross-site request gains nothing from the cookie there.
 */
const SESSIONLESS_WRITES = new Set(["/api/v1/trusted-publishing/token"]);

/** 413 PAYLOAD_TOO_LARGE for a non-upload body over 1 MiB, declared or streamed, before parsing. */
export function jsonBodyLimit(): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: JSON_BODY_LIMIT_BYTES,
    onError: () =>
      apiErrorResponse("PAYLOAD_TOO_LARGE", `Request bodies are limited to ${JSON_BODY_LIMIT_BYTES} bytes`),
  });
  return (c, next) => (isUpload(c) ? next() : limit(c, next));
}

function requestOrigin(c: Context): string | undefined {
  const origin = c.req.header("origin");
  if (origin && origin !== "null") return origin;
  const referer = c.req.header("referer");
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/**
 * Cross-site request forgery: a write authenticated by the session cookie (no Authorization
 * header) must name Packyard's own origin (Origin, else Referer, as better-auth checks) and, when
 * it has a body that is not an upload, send it as JSON. A page elsewhere can make a browser send
 * the cookie, but not forge the Origin or send application/json without a CORS preflight, which
 * Packyard never grants. Requests with an API key carry no ambient credential and pass.
 */
export function sameOriginCookieWrites(appOrigin: string): MiddlewareHandler {
  const own = new URL(appOrigin).origin;
  return async (c, next) => {
    if (!UNSAFE.has(c.req.method) || c.req.header("authorization") || SESSIONLESS_WRITES.has(c.req.path))
      return next();
    if (requestOrigin(c) !== own) {
      return apiErrorResponse(
        "INVALID_ORIGIN",
        `Requests signed in with a browser session must come from ${own}; scripts should send an API key`,
      );
    }
    const hasBody = c.req.raw.body !== null && c.req.header("content-length") !== "0";
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const json = type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
    if (hasBody && !json && !isUpload(c)) {
      return apiErrorResponse(
        "UNSUPPORTED_MEDIA_TYPE",
        "Send the body as JSON with Content-Type: application/json",
      );
    }
    return next();
  };
}

/** Turns a Hono route path (`/a/:id/*`) into a regular expression over request paths. */
function routePattern(path: string): RegExp {
  const source = path
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => {
      if (part === "*") return ".*";
      if (part.startsWith(":")) return "[^/]+";
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${source}/?$`);
}

/**
 * The answer for an /api request no route took: 405 METHOD_NOT_ALLOWED with an Allow header when
 * the path exists for other methods, else 404 NOT_FOUND. Call once every route is registered.
 */
export function apiRouteFallback(app: Hono<never>): (c: Context) => Response {
  const routes = app.routes
    .filter((r) => r.method !== "ALL" && r.path.startsWith("/api/"))
    .map((r) => ({ method: r.method, pattern: routePattern(r.path) }));
  return (c) => {
    const allowed = new Set(routes.filter((r) => r.pattern.test(c.req.path)).map((r) => r.method));
    if (allowed.size > 0) {
      if (allowed.has("GET")) allowed.add("HEAD");
      const res = apiErrorResponse(
        "METHOD_NOT_ALLOWED",
        `${c.req.method} is not allowed on ${c.req.path}; use ${[...allowed].join(", ")}`,
      );
      res.headers.set("allow", [...allowed].join(", "));
      return res;
    }
    return apiErrorResponse("NOT_FOUND", `No API route ${c.req.method} ${c.req.path}`);
  };
}

/**
 * Gives a JSON answer without a Content-Length its length (API answers are whole strings), so
 * that compress() can tell a small one, not worth compressing, from a large one.
 */
export function jsonContentLength(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (!res.body || res.headers.has("content-length") || res.headers.has("content-encoding")) return;
    if (!res.headers.get("content-type")?.includes("json")) return;
    const body = await res.arrayBuffer();
    const headers = new Headers(res.headers);
    headers.set("content-length", String(body.byteLength));
    c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
