// An import's bounds across attempts and time (decision 056), on a real server with its job
// queue: a job that has started IMPORT_ATTEMPTS times (the server died during each) is not
// resumed again but ends failed without reading its source; one with attempts left resumes and
// counts the attempt; an import past its time limit — from its first start, or while a
// repository hangs mid-answer — ends failed with TIMED_OUT. Runs on SQLite and PostgreSQL.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ImportInfo } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { stanza, writeHostileAptSuite } from "../../test/hostile-repository.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { type StaticServer, startStaticServer } from "../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { IMPORT_ATTEMPTS, queueImport, resumeUnfinishedImports, runImport } from "./run.ts";
import { createImportRow, updateImportRow } from "./store.ts";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let repository: StaticServer;
let hanging: Server;
let hangingUrl: string;

beforeAll(async () => {
  const root = makeTempDir("packyard-import-bounds-");
  await writeHostileAptSuite(root, [stanza("hello", "1.0-1")], "gzip");
  repository = await startStaticServer(root);
  // A repository that takes the connection and never answers.
  hanging = createServer(() => {});
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`;
  // The repositories are on 127.0.0.1.
  server = await startLiveServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  pub = await publisher(server, "bounded");
  const res = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "mirror", name: "Mirror" }),
  });
  expect(res.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await server?.close();
  await repository?.stop();
  hanging?.closeAllConnections();
  await new Promise((resolve) => hanging?.close(resolve));
  removeTempDirs();
});

/** An import of project "mirror" as a server that stopped mid-import left it. */
async function unfinishedImport(url: string, row: { attempts: number; startedAt: string }) {
  const db = server.services.database.db;
  const project = await db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "mirror")
    .executeTakeFirstOrThrow();
  const created = await createImportRow(db, {
    projectId: project.id,
    startedBy: pub.userId,
    source: {
      kind: "apt-repository",
      url,
      distribution: "stable",
      username: undefined,
      password: undefined,
      release: undefined,
    },
    serverSecret: server.services.config.secret,
  });
  await updateImportRow(db, created.id, { status: "running", startedAt: row.startedAt });
  await db.updateTable("import").set({ attempts: row.attempts }).where("id", "=", created.id).execute();
  return created.id;
}

/** What a restarted server does: SQLite queues unfinished imports; pg-boss retries the job. */
async function restart(id: string) {
  if (server.services.jobs.engine === "in-process")
    await resumeUnfinishedImports(server.services.database.db, server.services.jobs, server.services.logger);
  else await queueImport(server.services.jobs, id);
}

async function ended(id: string): Promise<ImportInfo & { attempts: number }> {
  for (let i = 0; i < 600; i++) {
    const res = await pub.api(`/api/v1/projects/mirror/imports/${id}`);
    const { import: current } = (await res.json()) as { import: ImportInfo };
    if (!["queued", "running"].includes(current.status)) {
      const { attempts } = await server.services.database.db
        .selectFrom("import")
        .select("attempts")
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      return { ...current, attempts: Number(attempts) };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`import ${id} did not end`);
}

async function versions(): Promise<string[]> {
  const res = await pub.api("/api/v1/projects/mirror/releases");
  return ((await res.json()) as { releases: { version: string }[] }).releases.map((r) => r.version);
}

describe(`an import's attempts and time are bounded (${databaseKind})`, () => {
  it("an import whose job started IMPORT_ATTEMPTS times is not resumed: it ends failed, its source unread", async () => {
    repository.requests.length = 0;
    const id = await unfinishedImport(repository.url, {
      attempts: IMPORT_ATTEMPTS,
      startedAt: new Date().toISOString(),
    });
    await restart(id);
    const done = await ended(id);
    expect(done.status).toBe("failed");
    expect(done.errors).toEqual([
      {
        version: null,
        code: "INTERNAL_ERROR",
        message: `The import was started ${IMPORT_ATTEMPTS} times without finishing (the server stopped while it ran); it is not tried again`,
        subject: null,
      },
    ]);
    expect(done.summary).toMatch(/^Import failed: INTERNAL_ERROR — The import was started 4 times/);
    expect(repository.requests).toEqual([]);
    expect(await versions()).toEqual([]);
    // A failed import stays failed at the next start.
    await restart(id);
    expect((await ended(id)).status).toBe("failed");
    expect(repository.requests).toEqual([]);
  });

  it("an import with attempts left resumes, and the attempt is counted", async () => {
    repository.requests.length = 0;
    const id = await unfinishedImport(repository.url, { attempts: 1, startedAt: new Date().toISOString() });
    await restart(id);
    const done = await ended(id);
    // The package's file is not on the mirror: its release fails, but the source was read.
    expect(done.errors.map((e) => [e.version, e.code])).toEqual([["1.0-1", "SOURCE_NOT_FOUND"]]);
    expect(repository.requests).toContain("/dists/stable/Release");
    expect(done.attempts).toBe(2);
  });

  it("an import started longer ago than its time limit ends failed with TIMED_OUT", async () => {
    const id = await unfinishedImport(repository.url, {
      attempts: 1,
      startedAt: new Date(Date.now() - 5 * 3600 * 1000).toISOString(),
    });
    await restart(id);
    const done = await ended(id);
    expect(done.status).toBe("failed");
    expect(done.errors).toEqual([
      {
        version: null,
        code: "TIMED_OUT",
        message:
          "The import did not finish within 4 hours; the releases it imported are kept, and importing again goes on from there",
        subject: null,
      },
    ]);
    expect(await versions()).toEqual([]);
  });

  it("an import reading a repository that never answers ends at its time limit, TIMED_OUT", async () => {
    const id = await unfinishedImport(hangingUrl, { attempts: 0, startedAt: new Date().toISOString() });
    await runImport({ ...server.services, db: server.services.database.db, timeLimitMs: 1000 }, id);
    const done = await ended(id);
    expect(done.status).toBe("failed");
    expect(done.errors).toMatchObject([{ version: null, code: "TIMED_OUT" }]);
    expect(done.errors[0]!.message).toMatch(/^The import did not finish within 1 second;/);
  });
});
