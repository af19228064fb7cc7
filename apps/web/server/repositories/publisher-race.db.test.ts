// Two builders racing on one project — two RepositoryPublisher instances on one database, as two
// server processes are. The first reads revision N and builds, and is held before it commits;
// meanwhile the project moves to N+1 and the second publishes it. Released, the first must not
// replace the newer generation: the served index never goes backwards. A build of the revision
// already served still commits (a key rotation re-signs without a package change). On
// PostgreSQL the switch also waits for the project's advisory lock. Runs on SQLite, and on
// PostgreSQL when TEST_DATABASE_URL is set.
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate, settlesWithin } from "../../test/gate.ts";
import { createTestApp, databaseKind, onboardedUser, postJson, type TestApp } from "../../test/harness.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { createLocalBlobStore } from "../platform/storage/blob-store.ts";
import { recordPackageIndexChange } from "./changes.ts";
import { type FormatBuilder, PUBLISH_LOCK_NAMESPACE, RepositoryPublisher } from "./publisher.ts";

let app: TestApp;
let projectId: string;
beforeAll(async () => {
  app = await createTestApp();
  const { cookie } = await onboardedUser(app, "racer");
  const res = await postJson(app, "/api/v1/projects", { slug: "raced", name: "raced" }, cookie);
  expect(res.status).toBe(201);
  projectId = ((await res.json()) as { project: { id: string } }).project.id;
});
afterAll(async () => {
  await app?.close();
  removeTempDirs();
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A stand-in format: one file naming the revision it was built from, read as a builder does. */
function builder(hold?: () => Promise<void>): FormatBuilder {
  return {
    format: "apt",
    async build(context) {
      const { index_revision } = await context.db
        .selectFrom("project")
        .select("index_revision")
        .where("id", "=", context.project.id)
        .executeTakeFirstOrThrow();
      const files = new Map([["index", new TextEncoder().encode(`revision ${index_revision}`)]]);
      await hold?.();
      return [{ name: "stable", files }];
    },
  };
}

function publisherWith(store: ReturnType<typeof createLocalBlobStore>, format: FormatBuilder) {
  const { services } = app;
  return new RepositoryPublisher(
    { db: services.database.db, store, keys: services.keys, logger: services.logger, builders: [format] },
    { graceMs: 60_000, keepGenerations: 3 },
  );
}

/** A package change, as an upload records it: the project's revision goes up by one. */
function change() {
  return app.services.database.db
    .transaction()
    .execute((tx) => recordPackageIndexChange(tx, projectId, "release-x"));
}

async function served() {
  const db = app.services.database.db;
  const { published_revision } = await db
    .selectFrom("project")
    .select("published_revision")
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  const generations = await db
    .selectFrom("repo_generation")
    .select("number")
    .where("project_id", "=", projectId)
    .where("format", "=", "apt")
    .execute();
  return { revision: Number(published_revision), generations: generations.length };
}

describe(`a stale build never replaces a newer generation (${databaseKind})`, () => {
  it("holds the first builder after it read revision N while the second publishes N+1", async () => {
    const store = createLocalBlobStore(makeTempDir("packyard-race-store-"));
    const held = gate();
    let holdNext = true;
    const slow = publisherWith(
      store,
      builder(async () => {
        if (!holdNext) return;
        holdNext = false;
        await held.wait();
      }),
    );
    const fast = publisherWith(store, builder());

    const n = await change();
    const stale = slow.publish(projectId);
    await held.reached; // built from revision N, not yet committed

    const newer = await change(); // N + 1
    expect(newer).toBe(n + 1);
    await fast.publish(projectId);
    expect(await served()).toEqual({ revision: n + 1, generations: 1 });
    expect((await fast.currentFile(projectId, "apt", "stable", "index"))?.sha256).toBe(
      sha256(`revision ${n + 1}`),
    );

    held.open();
    await stale;
    expect((await slow.currentFile(projectId, "apt", "stable", "index"))?.sha256).toBe(
      sha256(`revision ${n + 1}`),
    );
    expect(await served()).toEqual({ revision: n + 1, generations: 1 });
    expect(slow.superseded.get(projectId)).toBe(1);

    // A build of the revision served still commits (re-signing after a key rotation).
    await slow.publish(projectId);
    expect(slow.superseded.get(projectId)).toBe(1);
    expect(await served()).toEqual({ revision: n + 1, generations: 2 });
  });

  it.skipIf(databaseKind !== "postgres")(
    "commits only while holding the project's advisory lock",
    async () => {
      const store = createLocalBlobStore(makeTempDir("packyard-race-store-"));
      const publisher = publisherWith(store, builder());
      const before = await served();
      await change();
      const config = app.services.config;
      const holder = new pg.Client({
        connectionString: config.database.kind === "postgres" ? config.database.url : "",
      });
      await holder.connect();
      try {
        await holder.query("select pg_advisory_lock($1, hashtext($2))", [PUBLISH_LOCK_NAMESPACE, projectId]);
        const publishing = publisher.publish(projectId);
        expect(await settlesWithin(publishing, 500)).toBe(false);
        expect(await served()).toEqual(before);
        await holder.query("select pg_advisory_unlock($1, hashtext($2))", [
          PUBLISH_LOCK_NAMESPACE,
          projectId,
        ]);
        await publishing;
        expect(await served()).toEqual({
          revision: before.revision + 1,
          generations: before.generations + 1,
        });
      } finally {
        await holder.end();
      }
    },
  );
});
