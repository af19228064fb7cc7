// One JSON log line per request, written when the response is over — for a download, once its
// last byte has been handed to the client's connection (or the client went away) — and the
// request's metrics recorded at the same moment:
//
//   {"level":"info","time":"…","pid":…,"hostname":"…","reqId":"…","method":"GET",
//    "route":"/dl/:username/:slug/releases/:version/:filename","path":"/dl/alice/widget/…",
//    "status":200,"durationMs":12.4,"bytes":1048576,"client":"203.0.113.7","msg":"request"}
//
// `route` is the matched route pattern (Hono's, or React Router's for pages), never the raw
// path: only /dl requests add their `path` (no query string). `bytes` counts the response body
// handed to the connection; `aborted: true` marks a response the client did not take whole.
// The request id is the proxy's `X-Request-Id` when TRUST_PROXY is on (and it looks like one),
// otherwise a new UUID; it is echoed in the response's `X-Request-Id` and every line logged
// while the request is handled carries it (withLogContext), as do errors sent to Sentry.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { matchRoutes, type ServerBuild } from "react-router";
import { type Logger, withLogContext } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { NonceEnv } from "./security-headers.ts";

/** The address of the peer of the request's connection; undefined in memory (app.request). */
export function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // app.request() in tests has no socket.
    return undefined;
  }
}

/** The client's address: the last X-Forwarded-For entry (the one the trusted proxy added), else the peer's. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    // The last address is the one the trusted proxy added (the peer it saw). Earlier ones were
    // sent by the client and prove nothing: taking the first would let anyone pick the address
    // that rate limits and sign-in lockouts count against.
    const forwarded = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return socketAddress(c) ?? "127.0.0.1";
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Routes polled by machines: their lines are debug, not info. */
const QUIET_ROUTES = new Set(["/ok", "/readyz", "/metrics"]);

export interface RequestLogOptions {
  logger: () => Logger;
  metrics: () => Metrics | undefined;
  trustProxy: boolean;
  /** The route pattern of a page (React Router), for requests Hono hands to it. */
  pageRoute: (pathname: string) => string;
}

export function requestLog(options: RequestLogOptions): MiddlewareHandler<NonceEnv> {
  return async (c, next) => {
    const started = performance.now();
    const reqId = requestIdOf(c.req.header("x-request-id"), options.trustProxy);
    await withLogContext({ reqId }, next);
    c.res.headers.set("X-Request-Id", reqId);

    const method = c.req.method;
    let route = routeName(c);
    // The catch-all handlers ("/*") are static files and React Router's pages.
    if (route === "/*") route = c.get("staticFile") ? "static" : options.pageRoute(c.req.path);
    const status = c.res.status;
    const report = (bytes: number, complete: boolean) =>
      recordRequest(options, {
        started,
        reqId,
        method,
        route,
        path: c.req.path,
        status,
        client: clientAddress(c, options.trustProxy),
        bytes,
        complete,
      });

    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing) meterConnection(outgoing, method, report);
    else if (method === "HEAD" || !c.res.body) report(0, true);
    else c.res = meterBody(c.res, report);
  };
}

/** The fields of a request's log line, in their order (the module comment shows one). */
type RequestLine = {
  reqId: string;
  method: string;
  /** A route pattern (a few dozen exist), not the path. */
  route: string;
  /** Only for /dl requests. */
  path?: string;
  status: number;
  durationMs: number;
  bytes: number;
  client: string;
  aborted?: true;
};

/** What one finished request was, for its log line and metrics. */
export interface RequestRecord {
  /** performance.now() when it arrived. */
  started: number;
  reqId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  client: string;
  bytes: number;
  complete: boolean;
}

/** The request's metrics and its log line (the module comment shows one). */
export function recordRequest(
  options: Pick<RequestLogOptions, "logger" | "metrics">,
  { started, reqId, method, route, path, status, client, bytes, complete }: RequestRecord,
): void {
  const seconds = (performance.now() - started) / 1000;
  const dl = route.startsWith("/dl/");
  const metrics = options.metrics();
  metrics?.request({ method: METHODS.has(method) ? method : "OTHER", route, status }, seconds);
  if (dl && bytes > 0) metrics?.downloaded(bytes);
  const line: RequestLine = {
    reqId,
    method,
    route,
    ...(dl ? { path } : {}),
    status,
    durationMs: Math.round(seconds * 10_000) / 10,
    bytes,
    client,
    ...(complete ? {} : { aborted: true }),
  };
  const logger = options.logger();
  if (QUIET_ROUTES.has(route)) logger.debug("request", line);
  else logger.info("request", line);
}

/**
 * What a proxy's request id may look like (anything else is replaced by a new one): these
 * characters, nothing that needs escaping in JSON.
 */
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** The request id: the proxy's X-Request-Id when trusted and well-formed, else a new UUID. */
export function requestIdOf(given: string | undefined, trustProxy: boolean): string {
  const candidate = trustProxy ? given : undefined;
  return candidate && REQUEST_ID.test(candidate) ? candidate : randomUUID();
}

/**
 * The pattern of the route that answered; when a middleware answered (a guard refusing), the
 * pattern of the handler the request was for, if one matched its method.
 */
function routeName(c: Context): string {
  const routes = matchedRoutes(c);
  const responder = routes[c.req.routeIndex];
  if (responder && responder.method !== "ALL") return responder.path;
  const handler = routes.find((r) => r.method !== "ALL");
  return (handler ?? responder)?.path || "/*";
}

/**
 * Counts the body bytes written to a Node response and reports once it is over: `finish` (all
 * of it handed to the operating system) or `close` first (the connection ended before that).
 */
function meterConnection(
  outgoing: ServerResponse,
  method: string,
  report: (bytes: number, complete: boolean) => void,
): void {
  let bytes = 0;
  const count = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === "string") {
      bytes += Buffer.byteLength(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
    } else if (chunk instanceof Uint8Array) {
      bytes += chunk.byteLength;
    }
  };
  const { write, end } = outgoing;
  outgoing.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    count(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse["write"];
  outgoing.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== "function") count(chunk, rest[0]);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse["end"];
  let reported = false;
  const done = (complete: boolean) => {
    if (reported) return;
    reported = true;
    // Node discards a HEAD response's body.
    report(method === "HEAD" ? 0 : bytes, complete);
  };
  outgoing.once("finish", () => done(true));
  outgoing.once("close", () => done(false));
}

/**
 * In memory (app.request, no connection): the body, read through a counter that reports when
 * the reader reaches its end, cancels it or it fails. Reads only as the consumer asks.
 */
function meterBody(response: Response, report: (bytes: number, complete: boolean) => void): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let bytes = 0;
  let reported = false;
  const done = (complete: boolean) => {
    if (reported) return;
    reported = true;
    report(bytes, complete);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: end, value } = await reader.read();
          if (end) {
            controller.close();
            done(true);
            return;
          }
          bytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          done(false);
        }
      },
      cancel(reason) {
        done(false);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children: RouteNode[];
}

/**
 * A function naming the React Router route a path renders, as its full pattern
 * ("/releases/:username/:projectSlug"); "/*" for the not-found route. Route data requests
 * (`/x.data`, `/_root.data`) name the page they load.
 */
export function pageRoutes(build: Pick<ServerBuild, "routes">): (pathname: string) => string {
  const nodes = new Map<string, RouteNode>();
  const manifest = build.routes ?? {};
  for (const [id, route] of Object.entries(manifest)) {
    if (!route) continue;
    nodes.set(id, {
      id,
      path: route.path,
      index: route.index,
      caseSensitive: route.caseSensitive,
      children: [],
    });
  }
  const roots: RouteNode[] = [];
  for (const [id, route] of Object.entries(manifest)) {
    const node = nodes.get(id);
    if (!node || !route) continue;
    const parent = route.parentId ? nodes.get(route.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return (pathname) => {
    let path = pathname;
    if (path === "/_root.data") path = "/";
    else if (path.endsWith(".data")) path = path.slice(0, -".data".length);
    const matches = matchRoutes(roots as never, path) as { route: RouteNode }[] | null;
    if (!matches) return "*";
    const segments = matches.map((m) => m.route.path).filter((p): p is string => !!p && p !== "/");
    return `/${segments.join("/")}`;
  };
}
