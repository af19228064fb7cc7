// A full disk while writing (issue 37 item 10): create a release, yank one, sign in, create a
// release from the dashboard — each answers 507 INSUFFICIENT_STORAGE, not 500 with a rollback
// error in the log, and once space is freed the same writes work. SQLite is filled for real:
// `PRAGMA max_page_count` caps the database at the pages it has and its free pages are used up,
// so a write that needs a new page fails with SQLITE_FULL, as on a full disk; each write here
// stores a value larger than a page so that it needs one. (PostgreSQL's disk_full, 53100, is
// mapped in api-errors.test.ts: a server's disk cannot be filled from a test.)
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  TEST_PASSWORD,
  type TestApp,
} from "../../../test/harness.ts";

let app: TestApp;
let auth: Record<string, string>;
let cookie: string;
const logged: string[] = [];
/** More than fits in one page of the database, so that storing it needs a new page. */
let pageFiller: string;

beforeAll(async () => {
  app = await createTestApp();
  const user = await onboardedUser(app, "fuller");
  cookie = user.cookie;
  auth = bearer(await createApiKey(app, user.userId, { projects: "*", access: "publish" }));
  const project = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ slug: "fuller", name: "Fuller" }),
  });
  expect(project.status).toBe(201);
  const db = app.services.database.db;
  if (databaseKind === "sqlite") {
    const { page_size } = (await sql<{ page_size: number }>`PRAGMA page_size`.execute(db)).rows[0]!;
    pageFiller = "n".repeat(Number(page_size) + 100);
  }
  const logger = app.services.logger;
  const error = logger.error.bind(logger);
  logger.error = (...args: Parameters<typeof logger.error>) => {
    logged.push(
      args.map((a) => (a instanceof Error ? `${a.message} ${String(a.cause ?? "")}` : String(a))).join(" "),
    );
    error(...args);
  };
});
afterAll(async () => {
  await app?.close();
});

/** Caps the database at the pages it has and uses up its free pages: the disk is full. */
async function fillDisk() {
  const db = app.services.database.db;
  await sql`CREATE TABLE IF NOT EXISTS test_filler (bytes BLOB)`.execute(db);
  const { page_count } = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(db)).rows[0]!;
  await sql.raw(`PRAGMA max_page_count = ${Number(page_count)}`).execute(db);
  for (;;) {
    try {
      await sql`INSERT INTO test_filler VALUES (randomblob(1000))`.execute(db);
    } catch (error) {
      expect(String(error)).toMatch(/database or disk is full/);
      return;
    }
  }
}

/** Space again: the cap lifted, the filler gone. */
async function freeDisk() {
  const db = app.services.database.db;
  await sql.raw("PRAGMA max_page_count = 4294967294").execute(db);
  await sql`DROP TABLE test_filler`.execute(db);
}

const createRelease = (version: string) =>
  app.request("/api/v1/projects/fuller/releases", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ version, notes: pageFiller }),
  });

const yank = (version: string) =>
  app.request(`/api/v1/projects/fuller/releases/${version}/yank`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ reason: "r".repeat(500) }),
  });

const signIn = () =>
  app.request("/api/auth/sign-in/email", {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": pageFiller },
    body: JSON.stringify({ email: "fuller@example.com", password: TEST_PASSWORD }),
  });

const createReleaseInDashboard = (version: string) =>
  app.request("/projects/fuller/releases", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "create", version, notes: pageFiller }).toString(),
    cookie,
  });

async function expectInsufficientStorage(res: Response) {
  expect(res.status).toBe(507);
  expect((await res.json()).error).toEqual({
    code: "INSUFFICIENT_STORAGE",
    message: "The server is out of disk space",
  });
}

describe.skipIf(databaseKind !== "sqlite")(`writes on a full disk (${databaseKind})`, () => {
  it("answer 507 INSUFFICIENT_STORAGE, and work again once space is freed", async () => {
    // A release to yank: its row fills a page, so the reason needs a new one.
    expect((await createRelease("0.9.0")).status).toBe(201);

    await fillDisk();
    const before = logged.length;
    await expectInsufficientStorage(await createRelease("1.0.0"));
    await expectInsufficientStorage(await yank("0.9.0"));
    await expectInsufficientStorage(await signIn());
    const page = await createReleaseInDashboard("1.1.0");
    expect(page.status).toBe(507);
    // The failure logged is the full disk, not a failed rollback over it.
    expect(logged.slice(before).join("\n")).not.toMatch(/cannot rollback/);
    expect(logged.slice(before).join("\n")).toMatch(/database or disk is full/);

    await freeDisk();
    expect((await createRelease("1.0.0")).status).toBe(201);
    const yanked = await yank("0.9.0");
    expect(yanked.status).toBe(200);
    expect((await yanked.json()).release.yanked).toBe(true);
    expect((await signIn()).status).toBe(200);
    expect((await createReleaseInDashboard("1.1.0")).status).toBe(302);
  });
});
