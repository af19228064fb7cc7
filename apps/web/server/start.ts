// Starts Packyard: config → listening socket → services → HTTP app. Used by main.ts and by tests
// that need a real listening server. Stopping closes the listener, lets in-flight requests
// finish, then closes the database.
//
// The socket listens first (decision 037): `/ok` (liveness) is answered from the moment the
// process listens, while the services (database, migrations, job queue) and the app are loaded
// behind it; any other request — `/readyz` included — waits until they are, then is handled as
// usual. The React Router build is loaded by the first page request, not at start.
import { existsSync } from "node:fs";
import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import type { Clock } from "./accounts/usernames.ts";
import type { Maintenance } from "./maintenance.ts";
import type { Config } from "./platform/config/config.ts";
import type { Services } from "./services.ts";

/** How long in-flight requests get to finish after SIGTERM. */
const SHUTDOWN_DEADLINE_MS = 25_000;

export const defaultBuildDir = resolve(import.meta.dirname, "..", "build");

const serverEntry = (buildDir: string) => join(buildDir, "server", "index.js");
const missingBuild = (entry: string) => `Cannot load the web build at ${entry}; run "npm run build" first.`;

export async function loadServerBuild(buildDir = defaultBuildDir): Promise<ServerBuild> {
  const entry = serverEntry(buildDir);
  try {
    return (await import(pathToFileURL(entry).href)) as ServerBuild;
  } catch (error) {
    throw new Error(missingBuild(entry), { cause: error });
  }
}

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  maintenance: Maintenance;
  stop(): Promise<void>;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Whether the request is a GET or HEAD of `path` (any query string). */
const isGet = (req: IncomingMessage, path: string) =>
  (req.method === "GET" || req.method === "HEAD") && req.url?.split("?", 1)[0] === path;

/** Liveness while the app loads: the same body the app's own `/ok` route sends. */
function answerLiveness(req: IncomingMessage, res: ServerResponse): boolean {
  if (!isGet(req, "/ok")) return false;
  const body = '{"ok":true}';
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(req.method === "HEAD" ? undefined : body);
  return true;
}

/** `/readyz` before the app is loaded: the same checks and answer as its route (platform/http/readiness.ts). */
function answerReadiness(services: Services, req: IncomingMessage, res: ServerResponse): boolean {
  if (!isGet(req, "/readyz")) return false;
  import("./platform/http/readiness.ts")
    .then(({ checkReadiness, notReadyMessage }) =>
      checkReadiness(services).then((result) => {
        if (!result.ok) services.logger.warn(notReadyMessage(result));
        const body = JSON.stringify(result);
        res.writeHead(result.ok ? 200 : 503, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "cache-control": "no-store",
        });
        res.end(req.method === "HEAD" ? undefined : body);
      }),
    )
    .catch((error: unknown) => {
      services.logger.error("readiness check failed", error);
      if (!res.headersSent) res.writeHead(503).end();
    });
  return true;
}

/**
 * node:http as CommonJS sees it: `import … from "node:http"` evaluates every export, and some
 * of them load undici and node:http2 (about 100 ms and 13 MB before the socket listens).
 */
const http = process.getBuiltinModule("node:http");

function listen(config: Config, listener: Listener): Promise<HttpServer> {
  return new Promise<HttpServer>((resolveServer, reject) => {
    const server = http.createServer(listener);
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolveServer(server);
    });
  });
}

/** Stops accepting, lets requests in flight finish (until the deadline), then resolves. */
function closeServer(server: HttpServer): Promise<void> {
  return new Promise<void>((done) => {
    // Connections finishing their last request turn idle while we drain: keep closing
    // them, and give up on stragglers after the deadline.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DEADLINE_MS);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      done();
    });
    server.closeIdleConnections();
  });
}

/**
 * What start-up imports, one part at a time (decision 037): evaluating a module graph
 * holds the event loop, so between them the loop turns and `/ok` is answered. The last entry
 * imports everything the services need (services.ts); the ones before it only split that work.
 */
const STARTUP_MODULES: (() => Promise<unknown>)[] = [
  () => import("kysely"),
  () => import("./platform/db/database.ts"),
  () => import("better-auth"),
  () => import("./auth/auth.ts"),
  () => import("./platform/jobs/engine.ts"),
  () => import("./repositories/publisher.ts"),
  () => import("./maintenance.ts"),
  () => import("./services.ts"),
];

/** Lets the event loop answer what arrived meanwhile (accept, read, respond take a few turns). */
async function yieldToRequests(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
}

export async function startServer(
  config: Config,
  options: { buildDir?: string; clock?: Clock } = {},
): Promise<RunningServer> {
  const buildDir = options.buildDir ?? defaultBuildDir;
  // The build is imported by the first page; a missing one still stops start-up, as before.
  const entry = serverEntry(buildDir);
  if (!existsSync(entry)) throw new Error(missingBuild(entry));

  // Until the services are up, /ok is answered here and every other request waits for them.
  // Once they are, /ok and /readyz are answered here until another request loads the app.
  let app: Listener | undefined;
  let services: Services | undefined;
  let loadApp: (() => Promise<Listener>) | undefined;
  const waiting: (() => void)[] = [];
  let failed = false;
  const handle: Listener = (req, res) => {
    if (app) return app(req, res);
    if (!services) {
      if (answerLiveness(req, res)) return;
      if (failed) {
        res.writeHead(503, { "content-type": "text/plain" }).end("Packyard failed to start.\n");
        return;
      }
      waiting.push(() => handle(req, res));
      return;
    }
    if (answerLiveness(req, res) || answerReadiness(services, req, res)) return;
    loadApp!().then(
      (listener) => listener(req, res),
      (error: unknown) => {
        services?.logger.error("loading the app failed", error);
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end("Packyard failed to load.\n");
      },
    );
  };
  const server = await listen(config, handle);
  const port = (server.address() as AddressInfo).port;

  try {
    for (const load of STARTUP_MODULES) {
      await yieldToRequests();
      await load();
    }
    const { createServices } = await import("./services.ts");
    services = await createServices(config, options.clock ? { clock: options.clock } : {});
  } catch (error) {
    failed = true;
    for (const release of waiting.splice(0)) release();
    await closeServer(server);
    throw error;
  }
  const ready = services;
  let loading: Promise<Listener> | undefined;
  loadApp = () =>
    (loading ??= (async () => {
      const [{ createApp }, { getRequestListener }, { withFastDownloads }] = await Promise.all([
        import("./platform/http/app.ts"),
        import("@hono/node-server"),
        import("./downloads/fast-dl.ts"),
      ]);
      const hono = createApp({
        services: ready,
        build: () => loadServerBuild(buildDir),
        clientDir: join(buildDir, "client"),
      });
      // Anonymous downloads the serving cache can answer skip the app (downloads/fast-dl.ts).
      app = withFastDownloads(ready, getRequestListener(hono.fetch, { hostname: config.host }));
      return app;
    })().catch((error: unknown) => {
      loading = undefined; // the next request tries again
      throw error;
    }));
  for (const release of waiting.splice(0)) release();

  const { startMaintenance } = await import("./maintenance.ts");
  // Repositories left behind by a crash are published, leftovers collected, in the background.
  const maintenance = startMaintenance(ready);
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services: ready,
    maintenance,
    stop() {
      stopping ??= (async () => {
        await closeServer(server);
        await maintenance.stop();
        await ready.close();
      })();
      return stopping;
    },
  };
}
