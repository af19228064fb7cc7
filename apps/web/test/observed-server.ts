// Packyard on a real port (its requests go through @hono/node-server as in production) whose
// log lines are captured: the pino logger writes to a stream of the test's instead of stderr.
// Also callable in memory (request), like the harness. SQLite, or a throwaway PostgreSQL database
// when TEST_DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { loadConfig } from "../server/platform/config/config.ts";
import { createApp } from "../server/platform/http/app.ts";
import { createLogger } from "../server/platform/observability/logger.ts";
import { createServices, type Services } from "../server/services.ts";
import { defaultBuildDir, loadServerBuild } from "../server/start.ts";
import { createPostgresDatabase, databaseKind } from "./harness.ts";

export type LogLine = Record<string, unknown> & { level: string; msg: string };

export interface ObservedServer {
  services: Services;
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Every line logged so far, parsed. */
  lines: LogLine[];
  /** The request lines logged so far. */
  requestLines(): LogLine[];
  /** Waits for a request line matching `match` (lines are written when a response is over). */
  waitForRequestLine(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** In memory, as the harness does: no connection. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startObservedServer(env: Record<string, string> = {}): Promise<ObservedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "packyard-observed-"));
  const pgDb = databaseKind === "postgres" ? await createPostgresDatabase() : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: "0.0.0.0",
    PORT: "0",
    BASE_URL: "http://127.0.0.1:3000",
    SECRET: "observed-server-secret-observed-server-0",
    LOG_LEVEL: "info",
    AUTH_RATE_LIMIT: "false",
    NODE_ENV: "test",
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
    ...env,
  });
  const lines: LogLine[] = [];
  const logger = createLogger(config.logLevel, {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line) lines.push(JSON.parse(line) as LogLine);
    },
  });
  const services = await createServices(config, { logger });
  const build = await loadServerBuild(defaultBuildDir);
  const app = createApp({ services, build, clientDir: join(defaultBuildDir, "client") });
  const server = await new Promise<HttpServer>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: config.host, port: 0 }, () => resolve(s as HttpServer));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const requestLines = () => lines.filter((l) => l.msg === "request");
  return {
    services,
    url: `http://127.0.0.1:${port}`,
    port,
    lines,
    requestLines,
    async waitForRequestLine(match, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requestLines().find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error("no matching request line was logged");
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    request: (path, init) => Promise.resolve(app.request(`${config.baseUrl}${path}`, init)),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A verified, onboarded user with a publish key and a project: `api` calls the server with it. */
export async function publishingUser(server: ObservedServer, username: string, slug: string) {
  const { services } = server;
  const ctx = await services.auth.$context;
  const user = await ctx.internalAdapter.createUser(
    { email: `${username}@example.com`, name: username, emailVerified: true, username },
    { method: "admin" },
  );
  const created = await services.auth.api.createApiKey({
    body: {
      userId: user.id,
      name: "publish key",
      expiresIn: null,
      permissions: { projects: ["*"], access: ["publish"] },
    },
  });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${created.key}`, ...(init.headers ?? {}) },
    });
  const res = await api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug }),
  });
  if (res.status !== 201)
    throw new Error(`creating project ${slug} failed: ${res.status} ${await res.text()}`);
  return { userId: user.id, token: created.key, api };
}
