// GET /readyz: 200 with every check "ok" while the database answers and the blob storage takes
// a write; 503 naming the failing check otherwise, while /ok (liveness) still answers 200.
// Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { NodeSqliteDialect } from "@better-auth/kysely-adapter/node-sqlite-dialect";
import { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, type TestApp } from "../../../test/harness.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { checkReadiness } from "./readiness.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

/** A database handle whose every query fails, as when the server is unreachable. */
function unreachableDatabase() {
  const sqlite = new DatabaseSync(":memory:");
  sqlite.close();
  return new Kysely<never>({ dialect: new NodeSqliteDialect({ database: sqlite }) });
}

describe(`GET /readyz (${databaseKind})`, () => {
  it("answers 200 with both checks ok, and leaves nothing in storage", async () => {
    const res = await app.request("/readyz");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ ok: true, checks: { database: "ok", storage: "ok" } });
    const { blobDir } = app.services.config;
    expect(readdirSync(blobDir, { recursive: true }).filter((f) => String(f).endsWith(".part"))).toEqual([]);
    let stored = 0;
    for await (const _ of app.services.blobs.list()) stored++;
    expect(stored).toBe(0);
  });

  it("answers 503 naming the database when queries fail; /ok still answers", async () => {
    const { services } = app;
    const real = services.database;
    services.database = { ...real, db: unreachableDatabase() as never };
    try {
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false, checks: { database: "failed", storage: "ok" } });
      expect((await app.request("/ok")).status).toBe(200);
    } finally {
      services.database = real;
    }
  });

  it("answers 503 naming the storage when the blob directory cannot be written", async () => {
    const { blobDir } = app.services.config;
    rmSync(blobDir, { recursive: true, force: true });
    writeFileSync(blobDir, "not a directory");
    try {
      const res = await app.request("/readyz");
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false, checks: { database: "ok", storage: "failed" } });
      expect((await app.request("/ok")).status).toBe(200);
    } finally {
      rmSync(blobDir, { force: true });
      mkdirSync(blobDir, { recursive: true });
    }
    expect((await app.request("/readyz")).status).toBe(200);
  });

  it("reports a check that does not answer in time as a timeout", async () => {
    const hung = { stage: () => new Promise<never>(() => {}) } as unknown as BlobStore;
    const result = await checkReadiness({ database: app.services.database, blobs: hung }, 100);
    expect(result).toEqual({ ok: false, checks: { database: "ok", storage: "timeout" } });
  });
});
