// A fresh Packyard for each test file, called in memory (no port): its own data directory and
// its own database — SQLite by default, a throwaway PostgreSQL database when
// TEST_DATABASE_URL names a server (the CI's second lane).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { loadConfig } from "../server/platform/config/config.ts";
import { createApp } from "../server/platform/http/app.ts";
import { createServices, type Services } from "../server/services.ts";
import { defaultBuildDir, loadServerBuild } from "../server/start.ts";

export const TEST_ORIGIN = "http://localhost:3000";
export const TEST_PASSWORD = "correct horse battery";

export const databaseKind = process.env.TEST_DATABASE_URL ? "postgres" : "sqlite";

/** Creates an empty PostgreSQL database on the TEST_DATABASE_URL server; returns its URL and a drop(). */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_DATABASE_URL is not set");
  const name = `packyard_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface OutboxMessage {
  to: string;
  subject: string;
  text: string;
  links: string[];
}

/** Reads every .eml in the outbox, oldest first, with quoted-printable bodies decoded. */
export function readOutbox(outboxDir: string): OutboxMessage[] {
  let files: string[];
  try {
    files = readdirSync(outboxDir)
      .filter((f) => f.endsWith(".eml"))
      .sort();
  } catch {
    return [];
  }
  return files.map((file) => parseEml(readFileSync(join(outboxDir, file), "utf8")));
}

export function parseEml(raw: string): OutboxMessage {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const header = (name: string) => head.match(new RegExp(`^${name}: (.*)$`, "mi"))?.[1]?.trim() ?? "";
  const decoded = rest
    .join("\n\n")
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const links = [...new Set(decoded.match(/https?:\/\/[^\s"<>]+/g) ?? [])];
  return { to: header("To"), subject: header("Subject"), text: decoded, links };
}

export interface TestApp {
  services: Services;
  dataDir: string;
  request(path: string, init?: RequestInit & { cookie?: string }): Promise<Response>;
  outbox(): OutboxMessage[];
  close(): Promise<void>;
}

export async function createTestApp(
  env: Record<string, string> = {},
  options: { clock?: () => Date } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "packyard-test-"));
  const pgDb = databaseKind === "postgres" ? await createPostgresDatabase() : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    BASE_URL: TEST_ORIGIN,
    SECRET: "test-secret-test-secret-test-secret-0123",
    LOG_LEVEL: "silent",
    AUTH_RATE_LIMIT: "false",
    NODE_ENV: "test",
    ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
    ...env,
  });
  const services = await createServices(config, options.clock ? { clock: options.clock } : {});
  const build = await loadServerBuild(defaultBuildDir);
  const app = createApp({ services, build, clientDir: join(defaultBuildDir, "client") });
  return {
    services,
    dataDir,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.cookie) headers.set("cookie", init.cookie);
      if (init.method && init.method !== "GET" && !headers.has("origin")) headers.set("origin", TEST_ORIGIN);
      return Promise.resolve(app.request(`${TEST_ORIGIN}${path}`, { ...init, headers }));
    },
    outbox: () => readOutbox(config.outboxDir),
    async close() {
      await services.close();
      await pgDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `name=value` pairs of a response's Set-Cookie headers, ready for a Cookie header. */
export function cookiesFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

export function postJson(app: TestApp, path: string, body: unknown, cookie?: string) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    cookie,
  });
}

/** Signs up, follows the verification link from the outbox, and returns the session cookie. */
export async function signUpVerified(
  app: TestApp,
  user: { email: string; name?: string; password?: string },
): Promise<string> {
  const password = user.password ?? TEST_PASSWORD;
  const signUp = await postJson(app, "/api/auth/sign-up/email", {
    email: user.email,
    name: user.name ?? "Test User",
    password,
    callbackURL: "/dashboard",
  });
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const message = app.outbox().findLast((m) => m.to.includes(user.email) && /verify/i.test(m.subject));
  const link = message?.links.find((l) => l.includes("/verify-email"));
  if (!link) throw new Error("no verification link in the outbox");
  const url = new URL(link);
  const verified = await app.request(`${url.pathname}${url.search}`);
  const cookie = cookiesFrom(verified);
  if (!cookie.includes("session_token")) throw new Error(`verification did not sign in (${verified.status})`);
  return cookie;
}

/** A verified, onboarded user: session cookie and id. */
export async function onboardedUser(
  app: TestApp,
  username: string,
): Promise<{ cookie: string; userId: string; username: string }> {
  const email = `${username}@example.com`;
  const cookie = await signUpVerified(app, { email, name: username });
  const res = await app.request("/onboarding", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ name: `${username} user`, username }).toString(),
    cookie,
  });
  if (res.status !== 302) throw new Error(`onboarding failed: ${res.status}`);
  const user = await app.services.database.db
    .selectFrom("user")
    .select("id")
    .where("email", "=", email)
    .executeTakeFirstOrThrow();
  return { cookie, userId: user.id, username };
}

/** An API key for a user, created the way the /api-keys page does. */
export async function createApiKey(
  app: TestApp,
  userId: string,
  scope: { projects: "*" | string[]; access: "read" | "publish" },
  options: { expiresIn?: number | null } = {},
): Promise<string> {
  const created = await app.services.auth.api.createApiKey({
    body: {
      userId,
      name: `test ${scope.access}`,
      expiresIn: options.expiresIn ?? null,
      permissions: { projects: scope.projects === "*" ? ["*"] : scope.projects, access: [scope.access] },
    },
  });
  return created.key;
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** A user with a publish key for all projects, and one project of theirs: what upload tests start from. */
export async function publishingProject(
  app: TestApp,
  username: string,
  slug: string,
): Promise<{ auth: Record<string, string>; userId: string }> {
  const user = await onboardedUser(app, username);
  const auth = bearer(await createApiKey(app, user.userId, { projects: "*", access: "publish" }));
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ slug, name: slug }),
  });
  if (res.status !== 201) throw new Error(`creating project ${slug} failed: ${res.status}`);
  return { auth, userId: user.userId };
}

type CountedTable = "release_file" | "blob" | "release" | "deb_package" | "yum_package" | "repo_generation";

/** How many rows each table has, and how many blobs are on disk: "nothing changed" checks. */
export async function storedState(app: TestApp, tables: CountedTable[]): Promise<Record<string, number>> {
  const db = app.services.database.db;
  const state: Record<string, number> = {};
  for (const table of tables) {
    const { n } = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    state[table] = Number(n);
  }
  let onDisk = 0;
  for await (const _key of app.services.blobs.list()) onDisk++;
  state.blobsOnDisk = onDisk;
  return state;
}
