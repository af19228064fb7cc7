// API keys checked once and answered from memory (decision 050): a key's row is not written on
// every request, its last use is; and a key deleted, disabled or expired is refused at once —
// changed by this process, by another process (SQLite: another connection; PostgreSQL: another
// server), or through the API. The rate limit counts each key's requests in fixed windows.
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { DomainError } from "../domain/errors.ts";
import { keyChecksOf } from "../http/actor.ts";
import { ServeCache, servingCachesOf } from "../serving/serve-cache.ts";
import { KeyChecks } from "./key-checks.ts";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  server = await startLiveServer();
  pub = await publisher(server, "keyholder");
});
afterAll(async () => {
  await server?.close();
});

const db = () => server.services.database.db;

/** A new read key and its id. */
async function readKey() {
  const token = await pub.key({ projects: "*", access: "read" });
  const row = await db()
    .selectFrom("apikey")
    .select(["id"])
    .where("referenceId", "=", pub.userId)
    .orderBy("createdAt", "desc")
    .executeTakeFirstOrThrow();
  return { token, id: row.id };
}

const asKey = (token: string) =>
  fetch(`${server.url}/api/v1/projects`, { headers: { authorization: `Bearer ${token}` } });

const lastRequest = async (id: string) =>
  (await db().selectFrom("apikey").select("lastRequest").where("id", "=", id).executeTakeFirstOrThrow())
    .lastRequest;

describe(`API key checks (${databaseKind})`, () => {
  it("checks a key once: later requests do not write its row, its last use is written every few seconds", async () => {
    const { token, id } = await readKey();
    expect((await asKey(token)).status).toBe(200);
    // The first check was better-auth's: it recorded the use.
    const first = await lastRequest(id);
    expect(first).not.toBeNull();
    expect(servingCachesOf(db()).keys.size).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 3; i++) expect((await asKey(token)).status).toBe(200);
    expect(await lastRequest(id)).toEqual(first);
    await keyChecksOf(server.services).flush();
    const flushed = await lastRequest(id);
    expect(new Date(flushed!).getTime()).toBeGreaterThan(new Date(first!).getTime());
  });

  it("refuses a key disabled, expired or deleted by this process at once", async () => {
    const disabled = await readKey();
    expect((await asKey(disabled.token)).status).toBe(200);
    await db().updateTable("apikey").set({ enabled: false }).where("id", "=", disabled.id).execute();
    expect((await asKey(disabled.token)).status).toBe(401);

    const expired = await readKey();
    expect((await asKey(expired.token)).status).toBe(200);
    await db()
      .updateTable("apikey")
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", expired.id)
      .execute();
    const refused = await asKey(expired.token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "This API key has expired",
    );

    const deleted = await readKey();
    expect((await asKey(deleted.token)).status).toBe(200);
    expect((await pub.api(`/api/v1/keys/${deleted.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await asKey(deleted.token)).status).toBe(401);
  });

  it.runIf(databaseKind === "sqlite")(
    "refuses a key another process disabled (SQLite: data_version)",
    async () => {
      const { token, id } = await readKey();
      expect((await asKey(token)).status).toBe(200);
      const config = server.services.config.database;
      if (config.kind !== "sqlite") throw new Error("sqlite only");
      const other = new DatabaseSync(config.path);
      try {
        other.prepare(`update "apikey" set "enabled" = 0 where "id" = ?`).run(id);
      } finally {
        other.close();
      }
      // data_version is read at most once per turn of the event loop: the next turn sees it.
      await new Promise((resolve) => setImmediate(resolve));
      expect((await asKey(token)).status).toBe(401);
    },
  );

  it.runIf(databaseKind === "postgres")(
    "refuses a key another server process deleted, by notification (PostgreSQL)",
    async () => {
      const { token, id } = await readKey();
      expect((await asKey(token)).status).toBe(200);
      const database = server.services.config.database;
      const other = await startLiveServer({ DATABASE_URL: database.kind === "postgres" ? database.url : "" });
      try {
        const deleted = await fetch(`${other.url}/api/v1/keys/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${pub.token}` },
        });
        expect(deleted.status).toBe(204);
        // The notification arrives after the other process's commit: within milliseconds.
        await expect.poll(async () => (await asKey(token)).status, { interval: 20 }).toBe(401);
      } finally {
        await other.close();
      }
    },
  );

  it.runIf(databaseKind === "postgres")(
    "refuses a key revoked on another server on the very next request there, 40 times out of 40 (PostgreSQL)",
    async () => {
      const database = server.services.config.database;
      const other = await startLiveServer({ DATABASE_URL: database.kind === "postgres" ? database.url : "" });
      try {
        const answers: number[] = [];
        for (let i = 0; i < 40; i++) {
          const { token, id } = await readKey();
          expect((await asKey(token)).status).toBe(200);
          const deleted = await fetch(`${other.url}/api/v1/keys/${id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${pub.token}` },
          });
          expect(deleted.status).toBe(204);
          answers.push((await asKey(token)).status);
        }
        expect(answers).toEqual(Array(40).fill(401));
      } finally {
        await other.close();
      }
    },
  );

  it.runIf(databaseKind === "postgres")(
    "refuses a key changed by a commit whose notification has not arrived (PostgreSQL)",
    async () => {
      // The notification of another server's commit comes a moment after it: here it never
      // comes (the trigger is off for the change), so only the request path can see the change.
      const database = server.services.config.database;
      if (database.kind !== "postgres") throw new Error("postgres only");
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const unnotified = async (statement: string, id: string) => {
        await client.query("begin");
        await client.query(`alter table "apikey" disable trigger "packyard_changed_apikey"`);
        await client.query(statement, [id]);
        await client.query(`alter table "apikey" enable trigger "packyard_changed_apikey"`);
        await client.query("commit");
      };
      try {
        const deleted = await readKey();
        const disabled = await readKey();
        const narrowed = await readKey();
        for (const key of [deleted, disabled, narrowed]) expect((await asKey(key.token)).status).toBe(200);
        await unnotified(`delete from "apikey" where "id" = $1`, deleted.id);
        await unnotified(`update "apikey" set "enabled" = false where "id" = $1`, disabled.id);
        await unnotified(
          `update "apikey" set "permissions" = '{"projects":["elsewhere"],"access":["read"]}' where "id" = $1`,
          narrowed.id,
        );
        expect((await asKey(deleted.token)).status).toBe(401);
        expect((await asKey(disabled.token)).status).toBe(401);
        // Still a key, but for one other project now: not account-wide data.
        const projects = await fetch(`${server.url}/api/v1/keys`, {
          headers: { authorization: `Bearer ${narrowed.token}` },
        });
        expect(projects.status).toBe(403);
        // An unchanged key is still answered (and from memory again once checked).
        expect((await asKey(pub.token)).status).toBe(200);
      } finally {
        await client.end();
      }
    },
  );

  it("limits each key's requests per window, and counts afresh in the next", async () => {
    const { token } = await readKey();
    let now = Date.now();
    const checks = new KeyChecks({
      auth: server.services.auth,
      db: db(),
      cache: new ServeCache(),
      rateLimit: { windowMs: 60_000, max: 3 },
      now: () => now,
    });
    try {
      for (let i = 0; i < 3; i++) expect((await checks.check(token)).kind).toBe("key");
      const refused = await checks.check(token).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe("RATE_LIMITED");
      // Another key has its own window.
      expect((await checks.check(pub.token)).kind).toBe("key");
      now += 60_000;
      expect((await checks.check(token)).kind).toBe("key");
    } finally {
      await checks.close();
    }
  });
});
