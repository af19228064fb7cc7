// Packyard listening on a real loopback port, in this process, with its own data directory and
// database (SQLite, or a throwaway PostgreSQL database when TEST_DATABASE_URL is set): for
// tests whose client is another program (apt-get, dnf, curl).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../server/platform/config/config.ts";
import { type RunningServer, startServer } from "../server/start.ts";
import { createPostgresDatabase, databaseKind } from "./harness.ts";
import { freePort } from "./server-process.ts";

export interface LiveServer extends RunningServer {
  dataDir: string;
  close(): Promise<void>;
}

export async function startLiveServer(
  env: Record<string, string> = {},
  options: { clock?: () => Date } = {},
): Promise<LiveServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "packyard-live-"));
  const pgDb = databaseKind === "postgres" ? await createPostgresDatabase() : undefined;
  const port = await freePort();
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    SECRET: "live-server-secret-live-server-secret-00",
    LOG_LEVEL: "warn",
    AUTH_RATE_LIMIT: "false",
    NODE_ENV: "test",
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
    ...env,
  });
  const server = await startServer(config, options);
  return {
    ...server,
    dataDir,
    async close() {
      await server.stop();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A verified, onboarded user with a publish key for all projects, made through the real API. */
export async function publisher(server: LiveServer, username: string) {
  const { services } = server;
  const ctx = await services.auth.$context;
  const user = await ctx.internalAdapter.createUser(
    { email: `${username}@example.com`, name: username, emailVerified: true, username },
    { method: "admin" },
  );
  const key = async (scope: { projects: "*" | string[]; access: "read" | "publish" }) =>
    (
      await services.auth.api.createApiKey({
        body: {
          userId: user.id,
          name: `${scope.access} key`,
          expiresIn: null,
          permissions: { projects: scope.projects === "*" ? ["*"] : scope.projects, access: [scope.access] },
        },
      })
    ).key;
  const token = await key({ projects: "*", access: "publish" });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
    });
  return { userId: user.id, username, token, key, api };
}
