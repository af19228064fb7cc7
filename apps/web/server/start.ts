// Starts Packyard: config → services → HTTP server. Used by main.ts and by tests that need a
// real listening server. Stopping closes the listener, lets in-flight requests finish, then
// closes the database.
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type RequestListener,
  type ServerOptions,
} from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import type { ServerBuild } from "react-router";
import type { Config } from "./config.ts";
import type { Clock } from "./domain/usernames.ts";
import { createApp } from "./http/app.ts";
import { withFastDownloads } from "./http/fast-dl.ts";
import { type Maintenance, startMaintenance } from "./maintenance.ts";
import { createServices, type Services } from "./services.ts";

/** How long in-flight requests get to finish after SIGTERM. */
const SHUTDOWN_DEADLINE_MS = 25_000;

export const defaultBuildDir = resolve(import.meta.dirname, "..", "build");

export async function loadServerBuild(buildDir = defaultBuildDir): Promise<ServerBuild> {
  const entry = join(buildDir, "server", "index.js");
  try {
    return (await import(pathToFileURL(entry).href)) as ServerBuild;
  } catch (error) {
    throw new Error(`Cannot load the web build at ${entry}; run "npm run build" first.`, { cause: error });
  }
}

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  maintenance: Maintenance;
  stop(): Promise<void>;
}

export async function startServer(
  config: Config,
  options: { buildDir?: string; clock?: Clock } = {},
): Promise<RunningServer> {
  const buildDir = options.buildDir ?? defaultBuildDir;
  const build = await loadServerBuild(buildDir);
  const services = await createServices(config, options.clock ? { clock: options.clock } : {});
  const app = createApp({ services, build, clientDir: join(buildDir, "client") });
  const server = await new Promise<HttpServer>((resolveServer, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: config.host,
        port: config.port,
        // Anonymous downloads the serving cache can answer skip the app (http/fast-dl.ts).
        createServer: ((options: ServerOptions, listener: RequestListener) =>
          createHttpServer(options, withFastDownloads(services, listener))) as typeof createHttpServer,
      },
      () => resolveServer(s as HttpServer),
    );
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  // Repositories left behind by a crash are published, leftovers collected, in the background.
  const maintenance = startMaintenance(services);
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    services,
    maintenance,
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((done) => {
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
        await maintenance.stop();
        await services.close();
      })();
      return stopping;
    },
  };
}
