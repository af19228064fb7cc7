// Index builds through the job queue: a server that committed a package change and died before
// serving the new index leaves it to the queue. The queued per-project check (sent before the
// in-process build) and the scheduled lagging-repository pass each publish it, on whichever
// server's worker runs them: pg-boss on PostgreSQL, in-process on SQLite.
// Runs on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { PUBLISH_LAGGING_JOB } from "../maintenance.ts";
import { onProjectEvent } from "../platform/core/changes.ts";
import { PUBLISH_JOB } from "./publish-job.ts";

let app: TestApp;
let auth: Record<string, string>;

const deb = (name: string) =>
  buildTestDeb({
    control: `Package: ${name}\nVersion: 1.0.0\nArchitecture: all\nMaintainer: Tests <t@example.com>\nDescription: ${name}\n`,
  });

beforeAll(async () => {
  app = await createTestApp();
  ({ auth } = await publishingProject(app, "crashy", "relay"));
  // This server "dies" between committing a change and publishing it: its listener does nothing.
  onProjectEvent(app.services.database.db, async () => {});
});
afterAll(async () => {
  await app?.close();
});

async function project() {
  return app.services.database.db
    .selectFrom("project")
    .select(["id", "index_revision", "published_revision"])
    .where("slug", "=", "relay")
    .executeTakeFirstOrThrow();
}

async function indexed(): Promise<string> {
  const res = await app.request("/dl/crashy/relay/deb/dists/stable/main/binary-all/Packages");
  return res.status === 200 ? res.text() : "";
}

async function uploadUnpublished(name: string) {
  const res = await app.request(`/api/v1/projects/relay/releases/1.0.0/files/${name}_1.0.0_all.deb`, {
    method: "PUT",
    headers: auth,
    body: Buffer.from(deb(name)),
  });
  expect(res.status).toBe(201);
  const row = await project();
  expect(Number(row.index_revision)).toBeGreaterThan(Number(row.published_revision));
  expect(await indexed()).not.toContain(`Package: ${name}`);
  return row.id;
}

describe(`publishing through the job queue (${databaseKind}, ${databaseKind === "postgres" ? "pg-boss" : "in-process"})`, () => {
  it("the queued per-project check publishes a change its server never published", async () => {
    const projectId = await uploadUnpublished("orphan-one");
    await app.services.jobs.send(PUBLISH_JOB, { projectId }, { key: projectId });
    await vi.waitFor(async () => expect(await indexed()).toContain("Package: orphan-one"), {
      timeout: 15_000,
      interval: 100,
    });
    const row = await project();
    expect(Number(row.published_revision)).toBe(Number(row.index_revision));
  });

  it("the scheduled lagging-repository pass publishes a change no job was queued for", async () => {
    await uploadUnpublished("orphan-two");
    await app.services.jobs.send(PUBLISH_LAGGING_JOB, {});
    await vi.waitFor(async () => expect(await indexed()).toContain("Package: orphan-two"), {
      timeout: 15_000,
      interval: 100,
    });
    expect(await indexed()).toContain("Package: orphan-one");
  });

  it("a check for a project already published does nothing", async () => {
    const { id } = await project();
    const builds = app.services.repos.builds.get(id) ?? 0;
    await app.services.jobs.send(PUBLISH_JOB, { projectId: id }, { key: id });
    await new Promise((r) => setTimeout(r, 3_000));
    expect(app.services.repos.builds.get(id) ?? 0).toBe(builds);
  });
});
