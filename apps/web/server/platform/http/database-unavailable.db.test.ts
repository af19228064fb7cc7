// When PostgreSQL refuses connections (out of connection slots, or the role's limit reached),
// the API answers 503 SERVICE_UNAVAILABLE with Retry-After — never 401 "Invalid API key" for a
// valid key, and never a bare 500. A real server refusing real connections: the app connects
// as a role whose connection limit the test lowers to 0, then the test ends its sessions.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPostgresDatabase,
  createTestApp,
  databaseKind,
  publishingProject,
  type TestApp,
} from "../../../test/harness.ts";

describe.runIf(databaseKind === "postgres")("the database refusing connections (postgres)", () => {
  let app: TestApp;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let admin: pg.Client;
  const role = `limited_${randomBytes(4).toString("hex")}`;
  let auth: Record<string, string>;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    // The database's owner is the test's superuser; the app connects as an ordinary role.
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    const name = new URL(database.url).pathname.slice(1);
    await admin.query(`GRANT ALL ON DATABASE ${name} TO ${role}`);
    const owner = new pg.Client({ connectionString: database.url });
    await owner.connect();
    await owner.query(`GRANT ALL ON SCHEMA public TO ${role}`);
    await owner.end();
    const url = new URL(database.url);
    url.username = role;
    app = await createTestApp({ DATABASE_URL: url.toString() });
    ({ auth } = await publishingProject(app, "unavailable", "tools"));
    expect((await app.request("/api/v1/projects/tools", { headers: auth })).status).toBe(200);

    // No new connection for the role, and the ones it has are ended: the next query must
    // connect again, and PostgreSQL refuses it (SQLSTATE 53300).
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT 0`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, [role]);
    // The pool notices its ended clients asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }, 60_000);

  afterAll(async () => {
    await admin?.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
    await app?.close();
    await database?.drop();
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
  });

  it("answers a valid API key 503 SERVICE_UNAVAILABLE with Retry-After, not 401", async () => {
    // The first request may meet a pooled client the pool has not yet seen end (a 503 too).
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await app.request("/api/v1/projects/tools", { headers: auth });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(await res.json()).toEqual({
        error: {
          code: "SERVICE_UNAVAILABLE",
          message: "The service is busy. Please try again in 5 seconds.",
        },
      });
    }
  });

  it("answers again as soon as the database accepts connections", async () => {
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT -1`);
    const res = await app.request("/api/v1/projects/tools", { headers: auth });
    expect(res.status).toBe(200);
    // A key that does not exist is still refused as such.
    const wrong = await app.request("/api/v1/projects/tools", {
      headers: { authorization: "Bearer pky_not_a_key" },
    });
    expect(wrong.status).toBe(401);
  });
});
