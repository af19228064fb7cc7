// The one Hono app: health and error pages, better-auth, static assets, and every other
// request handed to React Router for server rendering.

import { join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { getPath } from "hono/utils/url";
import { createRequestHandler, RouterContextProvider, type ServerBuild } from "react-router";
import { DELETE_CALLBACK_PATH, readableDeletionLinkErrors } from "../../auth/account-deletion-link.ts";
import { CLIENT_IP_HEADER } from "../../auth/auth.ts";
import { createBadgeRoutes } from "../../formats/files/badges.ts";
import { createDownloads } from "../../formats/files/serve.ts";
import { createNpmRoutes } from "../../formats/npm/routes.ts";
import { createRegistryRoutes } from "../../formats/oci/routes.ts";
import { createPypiRoutes } from "../../formats/pypi/routes.ts";
import { formats } from "../../formats/registry.ts";
import { createFormatRoutes } from "../../formats/routes.ts";
import { createScimRoutes } from "../../orgs/scim/routes.ts";
import type { Services } from "../../services.ts";
import { createSigningKeyRoutes } from "../../signing-keys/dl-routes.ts";
import { createCliRoutes } from "../../site/cli-download.ts";
import { isStorageFull } from "../core/errors.ts";
import { countUploadBytes, metricsHandler } from "../observability/metrics.ts";
import { pageActionFailure, toApiErrorResponse } from "./api-errors.ts";
import { apiRouteFallback, jsonBodyLimit, jsonContentLength, sameOriginCookieWrites } from "./api-guards.ts";
import { createApi, projectPathRewriter } from "./api-index.ts";
import { specAuthRedirects } from "./auth-redirects.ts";
import { renderErrorPage } from "./error-page.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { pageBodyLimit } from "./page-body-limit.ts";
import { readinessHandler } from "./readiness.ts";
import { requestContext } from "./request-context.ts";
import { clientAddress, pageRoutes, requestLog, socketAddress } from "./request-log.ts";
import { cspAllowances, type NonceEnv, securityHeaders } from "./security-headers.ts";

export interface AppOptions {
  services: Services;
  /** The React Router build, or how to load it: then the first page request loads it (start.ts). */
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** build/client, where Vite wrote the browser assets. */
  clientDir: string;
}

/**
 * The build with every route's action answering a failure the API answers with its own status
 * (a full disk: 507, api-errors.ts pageActionFailure) by throwing that response, which React
 * Router renders as the error page with that status, instead of a 500.
 */
function withActionFailures(build: ServerBuild, logger: () => Services["logger"]): ServerBuild {
  const routes: ServerBuild["routes"] = {};
  for (const [id, route] of Object.entries(build.routes)) {
    const action = route?.module.action;
    routes[id] =
      route && action
        ? {
            ...route,
            module: {
              ...route.module,
              action: async (args) => {
                try {
                  return await action(args);
                } catch (error) {
                  throw pageActionFailure(error, logger()) ?? error;
                }
              },
            },
          }
        : route;
  }
  return { ...build, routes };
}

export function createApp({ services, build, clientDir }: AppOptions) {
  const { config, logger } = services;
  // /api/v1/projects/{owner}/{slug}/… is routed as the API's routes name it (api/index.ts).
  let routedPath = (path: string) => path;
  const app = new Hono<NonceEnv>({ getPath: (request) => routedPath(getPath(request)) });
  const mode = config.nodeEnv === "development" ? "development" : "production";
  let pageRoute = (_pathname: string) => "*";
  let pages: Promise<ReturnType<typeof createRequestHandler>> | undefined;
  const pageHandler = () =>
    (pages ??= (async () => {
      const loaded = typeof build === "function" ? await build() : build;
      pageRoute = pageRoutes(loaded);
      return createRequestHandler(
        withActionFailures(loaded, () => services.logger),
        mode,
      );
    })().catch((error: unknown) => {
      pages = undefined; // the next page request tries again
      throw error;
    }));
  if (typeof build !== "function") pageRoute = pageRoutes(build);

  // Logs each request and records its metrics when its response is over (request-log.ts).
  app.use(
    requestLog({
      logger: () => services.logger,
      metrics: () => services.metrics,
      trustProxy: config.trustProxy,
      pageRoute: (pathname) => pageRoute(pathname),
    }),
  );
  app.use(securityHeaders({ https: config.baseUrl.startsWith("https://"), allow: cspAllowances(config) }));

  app.get("/ok", (c) => c.json({ ok: true }));
  app.get("/readyz", readinessHandler(services));
  app.get("/error", (c) => c.html(renderErrorPage(c.req.query("error"))));
  app.get(
    "/metrics",
    metricsHandler(() => services.metrics, config.metricsToken, socketAddress),
  );

  app.use("/api/*", jsonBodyLimit());
  // JSON answers are compressed when the client accepts it (gzip or deflate), except small ones:
  // their length is set first, so compress() leaves those under its 1 KiB threshold alone.
  app.use("/api/*", compress());
  app.use("/api/*", jsonContentLength());
  app.use("/api/v1/*", sameOriginCookieWrites(config.baseUrl));
  app.use(DELETE_CALLBACK_PATH, readableDeletionLinkErrors());
  // better-auth's own error page says 'UNKNOWN' for no code and hides an unusual one: the
  // server's /error page instead, under the auth base path too (spec §7).
  app.get("/api/auth/error", (c) => c.html(renderErrorPage(c.req.query("error"))));
  app.use("/api/auth/*", specAuthRedirects(config.baseUrl));
  app.on(["GET", "POST"], "/api/auth/*", (c) => {
    const request = new Request(c.req.raw);
    request.headers.set(CLIENT_IP_HEADER, clientAddress(c, config.trustProxy));
    return services.auth.handler(request);
  });

  app.use(
    "/api/v1/projects/:slug/releases/:version/files/*",
    countUploadBytes(() => services.metrics),
  );
  const api = createApi(services);
  routedPath = projectPathRewriter(api);
  const openApi = buildOpenApiDocument(api, config.baseUrl);
  app.get("/api/openapi.json", (c) => c.json(openApi));
  app.route("/", api);
  app.all("/api/*", apiRouteFallback(app as unknown as Hono<never>));
  app.route("/dl", createDownloads(services));
  app.route("/dl", createSigningKeyRoutes(services));
  for (const format of formats) app.route("/dl", createFormatRoutes(services, format));
  app.route("/dl", createBadgeRoutes(services));
  // Container images: the OCI Distribution Specification at /v2/ (formats/oci).
  app.route("/v2", createRegistryRoutes(services));
  app.route("/pypi", createPypiRoutes(services));
  app.route("/npm", createNpmRoutes(services));
  app.route("/scim/v2", createScimRoutes(services));
  app.route("/cli", createCliRoutes({ dir: join(clientDir, "..", "cli"), baseUrl: config.baseUrl }));

  // Vite's hashed output never changes under the same name: cache it for a year. Other public
  // files (favicon, robots.txt) keep their names across releases: an hour.
  app.use("*", async (c, next) => {
    await next();
    if (c.res.status !== 200 || c.res.headers.has("cache-control")) return;
    if (c.req.path.startsWith("/assets/")) {
      c.res.headers.set("Cache-Control", "public, max-age=31536000, immutable");
    } else if (c.get("staticFile")) {
      c.res.headers.set("Cache-Control", "public, max-age=3600");
    }
  });
  app.use(
    "*",
    serveStatic({
      root: clientDir,
      // The build writes .br and .gz copies of its text files (precompress.ts).
      precompressed: true,
      onFound: (_path, c) => {
        c.set("staticFile", true);
      },
    }),
  );

  // Pages, route data, sitemap.xml and robots.txt are compressed as they stream out. Form posts
  // are bounded before an action reads them (page-body-limit.ts).
  app.all("*", pageBodyLimit(), compress(), async (c) => {
    const context = new RouterContextProvider();
    context.set(requestContext, {
      services,
      nonce: c.get("nonce"),
      clientAddress: clientAddress(c, config.trustProxy),
    });
    return (await pageHandler())(c.req.raw, context);
  });

  app.onError((error, c) => {
    // A full disk is no fault of the request, wherever it shows (better-auth's writes too).
    if (isStorageFull(error)) return toApiErrorResponse(error, logger);
    logger.error(`${c.req.method} ${c.req.path} failed`, error);
    return c.json({ error: { code: "INTERNAL_ERROR", message: "Something went wrong." } }, 500);
  });

  return app;
}
