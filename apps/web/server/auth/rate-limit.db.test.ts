// better-auth's per-address rate limits are kept in the database on PostgreSQL (decision 020),
// so every server of one database counts the same requests: sign-in attempts spent on one
// server are refused by another. (better-auth's memory store is one per process and these two
// apps share a process, so the test also shows the count is the database's: removing its row
// frees the address.) SQLite keeps them in memory — one process — and has no rateLimit table.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../test/harness.ts";

let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  const env = { AUTH_RATE_LIMIT: "true", TRUST_PROXY: "true" };
  first = await createTestApp(env);
  const config = first.services.config;
  // The second server: same database (and, for SQLite, the same data directory).
  second = await createTestApp({
    ...env,
    ...(config.database.kind === "postgres"
      ? { DATABASE_URL: config.database.url }
      : { DATA_DIR: config.dataDir }),
  });
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

let attempt = 0;
function signIn(app: TestApp, address: string) {
  attempt++;
  return app.request("/api/auth/sign-in/email", {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": address },
    body: JSON.stringify({ email: `nobody-${attempt}@example.com`, password: "not the password" }),
  });
}

describe(`auth rate limits (${databaseKind})`, () => {
  it.skipIf(databaseKind !== "postgres")(
    "two servers on one PostgreSQL database share an address's sign-in limit",
    async () => {
      const address = "10.77.0.1";
      // better-auth allows 3 sign-in attempts per address in 10 seconds: two here, one there...
      expect((await signIn(first, address)).status).toBe(401);
      expect((await signIn(second, address)).status).toBe(401);
      expect((await signIn(first, address)).status).toBe(401);
      // ...and the fourth is refused by either server.
      const refused = await signIn(second, address);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("x-retry-after"))).toBeGreaterThan(0);
      expect((await signIn(first, address)).status).toBe(429);
      // Another address is not affected.
      expect((await signIn(second, "10.77.0.2")).status).toBe(401);

      // The count is the database's row.
      const db = second.services.database.db;
      const { rows } = await sql<{ key: string; count: number }>`
        select "key", "count" from "rateLimit" where "key" like ${`%${address}%`}`.execute(db);
      expect(rows).toEqual([{ key: expect.stringContaining("/sign-in/email"), count: 3 }]);
      await sql`delete from "rateLimit" where "key" like ${`%${address}%`}`.execute(db);
      expect((await signIn(second, address)).status).toBe(401);
    },
  );

  it.skipIf(databaseKind !== "sqlite")("keeps SQLite's counts in memory: no rateLimit table", async () => {
    expect((await signIn(first, "10.78.0.1")).status).toBe(401);
    const tables = await first.services.database.db.introspection.getTables();
    expect(tables.map((t) => t.name)).not.toContain("rateLimit");
  });
});
