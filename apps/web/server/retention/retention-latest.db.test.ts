// Retention and the release `latest` resolves to (issue 38 item 5, decision 064), through the API
// and the retention job, on SQLite and PostgreSQL. A project has 1.0, 1.1 (latest) and a yanked
// 1.2-rc. With the default rules "keep 1" keeps 1.1; counting yanked releases does not delete it
// either; only "may delete the latest release" lets it go, and the dry run says it would. Rules
// stored before migration 0031 keep their values and are guarded the same way.
import type { RetentionPlan, RetentionSettings } from "@packyard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { migrations } from "../platform/db/migrations/index.ts";
import { applyRetention } from "./run.ts";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

async function api<T = Record<string, unknown>>(path: string, method = "GET", body?: unknown) {
  const res = await pub.api(path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const versions = async (slug: string) =>
  (await api<{ releases: { version: string }[] }>(`/api/v1/projects/${slug}/releases`)).body.releases.map(
    (r) => r.version,
  );
const latest = async (slug: string) => {
  const res = await api<{ release?: { version: string } }>(`/api/v1/projects/${slug}/releases/latest`);
  return res.status === 200 ? res.body.release?.version : res.status;
};
const dryRun = async (slug: string, rules: Record<string, unknown> = {}) =>
  (await api<{ plan: RetentionPlan }>(`/api/v1/projects/${slug}/retention/dry-run`, "POST", rules)).body.plan;
const saveRules = async (slug: string, rules: Record<string, unknown>) => {
  const res = await api<{ retention: RetentionSettings }>(`/api/v1/projects/${slug}/retention`, "PUT", rules);
  expect(res.status).toBe(200);
  return res.body.retention;
};
const outcomes = (plan: RetentionPlan) => ({
  keep: plan.keep.map((d) => [d.version, d.reason]),
  remove: plan.remove.map((d) => d.version),
  latest: plan.latest,
  deletesLatest: plan.deletesLatest,
});

const audit = (action: string, slug: string) =>
  server.services.database.db
    .selectFrom("audit_event")
    .select(["actor_kind", "target"])
    .where("action", "=", action)
    .where("project_slug", "=", slug)
    .orderBy("created_at")
    .execute();

const projectId = async (slug: string) =>
  (
    await server.services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", slug)
      .executeTakeFirstOrThrow()
  ).id;

/** What the retention job does, run here so the test knows it ran: the versions it deleted. */
const runRetention = async (slug: string) =>
  applyRetention(
    { db: server.services.database.db, clock: server.services.clock, logger: server.services.logger },
    await projectId(slug),
  );

/** Waits for the queued retention job to leave exactly these releases and record its `runs`-th run. */
async function settlesAt(slug: string, expected: string[], runs: number) {
  const deadline = Date.now() + 30_000;
  while (
    JSON.stringify(await versions(slug)) !== JSON.stringify(expected) ||
    (await audit("retention.run", slug)).length < runs
  ) {
    if (Date.now() > deadline) throw new Error(`releases are ${await versions(slug)}, not ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A project with 1.0, 1.1 and a yanked 1.2-rc, created a month apart (so `latest` is 1.1). */
async function project(slug: string) {
  expect((await api("/api/v1/projects", "POST", { slug, name: slug })).status).toBe(201);
  for (const version of ["1.0", "1.1", "1.2-rc"])
    expect((await api(`/api/v1/projects/${slug}/releases`, "POST", { version })).status).toBe(201);
  // Distinct creation times, so the order cannot hang on two releases made in the same millisecond.
  for (const [version, at] of [
    ["1.0", "2026-01-01T00:00:00.000Z"],
    ["1.1", "2026-02-01T00:00:00.000Z"],
    ["1.2-rc", "2026-03-01T00:00:00.000Z"],
  ] as const)
    await server.services.database.db
      .updateTable("release")
      .set({ created_at: at })
      .where("project_id", "=", await projectId(slug))
      .where("version", "=", version)
      .execute();
  const yank = await api(`/api/v1/projects/${slug}/releases/1.2-rc/yank`, "POST", { reason: "broken" });
  expect(yank.status).toBe(200);
  expect(await versions(slug)).toEqual(["1.2-rc", "1.1", "1.0"]);
  expect(await latest(slug)).toBe("1.1");
}

beforeAll(async () => {
  server = await startLiveServer();
  pub = await publisher(server, "guardian");
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe(`retention and the latest release (${databaseKind})`, () => {
  it("rules stored before migration 0031 keep their values, and the latest release stays", async () => {
    await project("stored");
    const db = server.services.database.db;
    // The table as it was before 0031, with a project's rules saved then: yanked counted, keep 1, on.
    await db.schema.alterTable("retention_policy").dropColumn("delete_latest").execute();
    await db
      .insertInto("retention_policy")
      .values({
        project_id: await projectId("stored"),
        enabled: 1,
        keep_releases: 1,
        keep_newest_per_major: 0,
        min_age_days: 0,
        count_yanked: 1,
        updated_at: "2026-04-01T00:00:00.000Z",
      } as never)
      .execute();
    await migrations["0031_retention_delete_latest"]?.up(db as never);

    const { body } = await api<{ retention: RetentionSettings }>("/api/v1/projects/stored/retention");
    expect(body.retention).toMatchObject({
      enabled: true,
      keepReleases: 1,
      countYanked: true,
      deleteLatest: false,
    });
    expect(await runRetention("stored")).toEqual(["1.0"]);
    expect(await versions("stored")).toEqual(["1.2-rc", "1.1"]);
    expect(await latest("stored")).toBe("1.1");
  });

  it("keep 1 with the default rules keeps the latest release, not only the yanked one", async () => {
    await project("guard");
    const { body } = await api<{ retention: RetentionSettings }>("/api/v1/projects/guard/retention");
    expect(body.retention).toEqual({
      enabled: false,
      keepReleases: 10,
      keepNewestPerMajor: false,
      minAgeDays: 0,
      countYanked: false,
      deleteLatest: false,
      keepImageTags: null,
      lastRun: null,
    });
    expect(outcomes(await dryRun("guard", { keepReleases: 1 }))).toEqual({
      keep: [
        ["1.2-rc", "yanked"],
        ["1.1", "newest"],
      ],
      remove: ["1.0"],
      latest: "1.1",
      deletesLatest: false,
    });
    await saveRules("guard", { enabled: true, keepReleases: 1 });
    await settlesAt("guard", ["1.2-rc", "1.1"], 1);
    expect(await latest("guard")).toBe("1.1");
  });

  it("with yanked releases counted the latest still stays, unless the rules may delete it; the dry run warns", async () => {
    await saveRules("guard", { countYanked: true });
    expect(outcomes(await dryRun("guard"))).toEqual({
      keep: [
        ["1.2-rc", "newest"],
        ["1.1", "latest"],
      ],
      remove: [],
      latest: "1.1",
      deletesLatest: false,
    });
    expect(await runRetention("guard")).toEqual([]);
    expect(await versions("guard")).toEqual(["1.2-rc", "1.1"]);
    expect(await latest("guard")).toBe("1.1");

    // The dry run of the explicit option, before it is saved, says that latest would go.
    expect(outcomes(await dryRun("guard", { deleteLatest: true }))).toEqual({
      keep: [["1.2-rc", "newest"]],
      remove: ["1.1"],
      latest: "1.1",
      deletesLatest: true,
    });
    expect(await versions("guard")).toEqual(["1.2-rc", "1.1"]);
    expect(await saveRules("guard", { deleteLatest: true })).toMatchObject({
      countYanked: true,
      deleteLatest: true,
    });
    await settlesAt("guard", ["1.2-rc"], 2);
    expect(await latest("guard")).toBe(404);
    // Each change of the rules and each run that deleted is one audit entry.
    expect(await audit("retention.run", "guard")).toEqual([
      { actor_kind: "system", target: "1.0" },
      { actor_kind: "system", target: "1.1" },
    ]);
    expect(await audit("retention.settings_changed", "guard")).toHaveLength(3);
  });
});
