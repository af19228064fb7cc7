// promoteRelease called directly, on SQLite and PostgreSQL: a caller who does not reach the
// project copies nothing and leaves no entry; a copy into another project is one entry in the
// source's log naming who promoted it, and the target hears of its new release once, after the
// commit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { type DomainEvent, onDomainEvent } from "../platform/core/changes.ts";
import { promoteRelease } from "./use-cases.ts";

let app: TestApp;
let ownerId: string;
let strangerId: string;

beforeAll(async () => {
  app = await createTestApp();
  const owner = await publishingProject(app, "promoter", "staging");
  ownerId = owner.userId;
  ({ userId: strangerId } = await publishingProject(app, "bystander", "own"));
  for (const [path, body] of [
    ["/api/v1/projects", { slug: "stable", name: "stable" }],
    ["/api/v1/projects/staging/releases", { version: "1.0.0" }],
  ] as const) {
    const res = await app.request(path, {
      method: "POST",
      headers: { ...owner.auth, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, path).toBe(201);
  }
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
const deps = () => ({
  db: db(),
  blobs: app.services.blobs,
  keys: app.services.keys,
  limits: app.services.config,
});
const person = (userId: string) => ({
  actor: { kind: "session" as const, userId },
  address: "203.0.113.200",
});
const entries = () =>
  db().selectFrom("audit_event").selectAll().where("action", "=", "release.promoted").execute();
const copies = () =>
  db()
    .selectFrom("release")
    .innerJoin("project", "project.id", "release.project_id")
    .select("project.slug")
    .where("project.slug", "=", "stable")
    .execute();

describe(`promoteRelease (${databaseKind})`, () => {
  it("refuses a caller who does not reach the project: nothing copied, no entry", async () => {
    await expect(
      promoteRelease(deps(), person(strangerId), {
        project: "promoter/staging",
        version: "1.0.0",
        promotion: { project: "stable" },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await copies()).toHaveLength(0);
    expect(await entries()).toHaveLength(0);
  });

  it("copies into another project: one entry by the promoter, the new release announced once", async () => {
    const heard: DomainEvent[] = [];
    const stop = onDomainEvent(db(), (event) => {
      heard.push(event);
    });
    try {
      const result = await promoteRelease(deps(), person(ownerId), {
        project: "promoter/staging",
        version: "1.0.0",
        promotion: { project: "stable" },
      });
      expect(result).toMatchObject({ project: "stable", version: "1.0.0", mode: "copied", files: [] });
    } finally {
      stop();
    }
    expect(await copies()).toHaveLength(1);
    const found = await entries();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      actor_kind: "user",
      actor_user_id: ownerId,
      address: "203.0.113.200",
      project_slug: "staging",
      target: "1.0.0",
    });
    expect(heard.map((e) => e.type)).toEqual(["changed", "release.created"]);
  });
});
