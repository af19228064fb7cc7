// API keys verified by better-auth's plugin with a memory in front (decision 073): each request
// records the key's use in its row, the plugin is asked again only when the row changed; a key
// deleted, disabled or expired is refused at once — changed by this process, by another process
// (SQLite: another connection; PostgreSQL: another server), or through the API. The rate limit
// counts each key's requests in fixed windows, in the key's row, so every server sees the count.
import { DatabaseSync } from "node:sqlite";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { DomainError } from "../platform/core/errors.ts";
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
  it("records every use of a key in its row, and asks the plugin again only when the row changed", async () => {
    const { token, id } = await readKey();
    // The plugin writes updatedAt each time it verifies a key; a use alone does not.
    const updatedAt = async () =>
      (await sql<{ updatedAt: unknown }>`select "updatedAt" from "apikey" where "id" = ${id}`.execute(db()))
        .rows[0]!.updatedAt;
    const time = (value: unknown) => new Date(value as string).getTime();
    expect((await asKey(token)).status).toBe(200);
    const verified = await updatedAt();
    let used = await lastRequest(id);
    expect(used).not.toBeNull();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await asKey(token)).status).toBe(200);
      const next = await lastRequest(id);
      expect(time(next)).toBeGreaterThan(time(used));
      used = next;
    }
    expect(await updatedAt()).toEqual(verified);
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

  it.runIf(databaseKind === "postgres")(
    "refuses a key another server process deleted, on the next request (PostgreSQL)",
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
        expect((await asKey(token)).status).toBe(401);
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

  it("refuses a key deleted, disabled or narrowed by another connection's commit that announced nothing", async () => {
    // No domain event, no notification: only the request path can see the change.
    const database = server.services.config.database;
    const client =
      database.kind === "postgres" ? new pg.Client({ connectionString: database.url }) : undefined;
    const file = database.kind === "sqlite" ? new DatabaseSync(database.path) : undefined;
    await client?.connect();
    const outside = async (statement: string, id: string) => {
      if (client) await client.query(statement.replace("?", "$1"), [id]);
      else file!.prepare(statement).run(id);
    };
    try {
      const deleted = await readKey();
      const disabled = await readKey();
      const narrowed = await readKey();
      for (const key of [deleted, disabled, narrowed]) expect((await asKey(key.token)).status).toBe(200);
      await outside(`delete from "apikey" where "id" = ?`, deleted.id);
      await outside(`update "apikey" set "enabled" = false where "id" = ?`, disabled.id);
      await outside(
        `update "apikey" set "permissions" = '{"projects":["elsewhere"],"access":["read"]}' where "id" = ?`,
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
      await client?.end();
      file?.close();
    }
  });

  it("limits each key's requests per window, and counts afresh in the next", async () => {
    const { token } = await readKey();
    const another = await readKey();
    let now = Date.now();
    const checks = new KeyChecks({
      auth: server.services.auth,
      db: db(),
      rateLimit: { windowMs: 60_000, max: 3 },
      now: () => now,
    });
    try {
      for (let i = 0; i < 3; i++) expect((await checks.check(token)).kind).toBe("key");
      now += 59_000;
      const refused = await checks.check(token).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe("RATE_LIMITED");
      // The window started with the first request: it ends in a second.
      expect((refused as DomainError).retryAfterSeconds).toBe(1);
      // Another key has its own window.
      expect((await checks.check(another.token)).kind).toBe("key");
      now += 1_000;
      expect((await checks.check(token)).kind).toBe("key");
    } finally {
      await checks.close();
    }
  });

  it("counts a key's requests to every server in one window: another server sees the count", async () => {
    const { token } = await readKey();
    const database = server.services.config.database;
    // PostgreSQL: another server on the same database. SQLite (one process): another set of
    // checks, with a memory of its own.
    const other =
      database.kind === "postgres" ? await startLiveServer({ DATABASE_URL: database.url }) : undefined;
    const limit = { windowMs: 60_000, max: 4 };
    const here = new KeyChecks({ auth: server.services.auth, db: db(), rateLimit: limit });
    const there = new KeyChecks({
      auth: (other ?? server).services.auth,
      db: (other ?? server).services.database.db,
      rateLimit: limit,
    });
    try {
      for (const checks of [here, there, here, there]) expect((await checks.check(token)).kind).toBe("key");
      for (const checks of [here, there]) {
        const refused = await checks.check(token).catch((error: unknown) => error);
        expect((refused as DomainError).code).toBe("RATE_LIMITED");
      }
    } finally {
      await here.close();
      await there.close();
      await other?.close();
    }
  });
});
