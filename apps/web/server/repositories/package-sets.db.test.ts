// The change log and the in-memory package sets built on it: every way the listed packages change
// — upload, yank, unyank, file delete, release delete, an upload into a yanked release — reaches
// a set that reads only the releases named since its revision, and the set always equals a full
// read. The sets here are not the server's own: like another process sharing the database, they
// learn of changes only through the log. Runs on SQLite and on PostgreSQL.
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { type DebRow, loadDebs } from "../formats/apt/builder.ts";
import { PACKAGE_INDEX_CHANGES_KEPT, recordPackageIndexChange } from "./changes.ts";
import { MemoryBudget } from "./memory-budget.ts";
import { type PackageLoader, PackageSets } from "./package-sets.ts";

describe(`package sets follow the change log (${databaseKind})`, () => {
  let app: TestApp;
  let auth: Record<string, string>;
  let projectId: string;
  /** The release ids each load asked for (undefined: everything). */
  const loads: (readonly string[] | undefined)[] = [];

  /** The APT builder's loader, recording what it is asked for. */
  const load: PackageLoader<DebRow> = (db, project, releaseIds) => {
    loads.push(releaseIds);
    return loadDebs(db, project, releaseIds);
  };

  /** Package sets charging 100 bytes a row to `budget`. */
  const setsWithin = (budget: MemoryBudget) =>
    new PackageSets(load, { budget, name: "apt", weigh: () => 100 });

  /** name@version in set order, from the long-lived set and from a brand-new one (a full read). */
  async function listed(sets: PackageSets<DebRow>) {
    const db = app.services.database.db;
    const incremental = (await sets.current(db, projectId)).map((r) => `${r.name}@${r.version}`);
    const fresh = setsWithin(new MemoryBudget(1024 * 1024));
    const full = (await fresh.current(db, projectId)).map((r) => `${r.name}@${r.version}`);
    expect(incremental).toEqual(full);
    return incremental;
  }

  async function upload(version: string, name: string) {
    const deb = buildTestDeb({
      control: `Package: ${name}\nVersion: ${version}\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: ${name}\n`,
      dataFiles: [{ name: `./usr/bin/${name}`, data: "#!/bin/sh\n" }],
    });
    const res = await app.request(
      `/api/v1/projects/sets/releases/${version}/files/${name}_${version}_amd64.deb`,
      {
        method: "PUT",
        headers: auth,
        body: Buffer.from(deb),
      },
    );
    expect(res.status).toBe(201);
  }

  const post = (path: string, body?: unknown) =>
    app.request(`/api/v1/projects/sets/releases/${path}`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const remove = (path: string) =>
    app.request(`/api/v1/projects/sets/releases/${path}`, { method: "DELETE", headers: auth });

  beforeAll(async () => {
    app = await createTestApp();
    ({ auth } = await publishingProject(app, "sets", "sets"));
    const project = await app.services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "sets")
      .executeTakeFirstOrThrow();
    projectId = project.id;
  });

  afterAll(async () => {
    await app?.close();
  });

  it("applies uploads, yanks, unyanks and deletes by re-reading only the releases they touched", async () => {
    const sets = setsWithin(new MemoryBudget(1024 * 1024));
    await upload("1.0.0", "alpha");
    await upload("1.0.0", "beta");
    await upload("2.0.0", "alpha");
    loads.length = 0;
    expect(await listed(sets)).toEqual(["alpha@2.0.0", "beta@1.0.0", "alpha@1.0.0"]);
    expect(sets.stats).toEqual({ reloads: 1, updates: 0 });

    const releaseId = async (version: string) =>
      (
        await app.services.database.db
          .selectFrom("release")
          .select("id")
          .where("project_id", "=", projectId)
          .where("version", "=", version)
          .executeTakeFirstOrThrow()
      ).id;

    loads.length = 0;
    await upload("3.0.0", "gamma");
    expect(await listed(sets)).toEqual(["gamma@3.0.0", "alpha@2.0.0", "beta@1.0.0", "alpha@1.0.0"]);
    // The long-lived set read one release; the fresh one everything.
    expect(loads).toEqual([[await releaseId("3.0.0")], undefined]);

    expect((await post("2.0.0/yank", { reason: "broken" })).status).toBe(200);
    expect(await listed(sets)).toEqual(["gamma@3.0.0", "beta@1.0.0", "alpha@1.0.0"]);
    // An upload into a yanked release changes the log but lists nothing.
    await upload("2.0.0", "delta");
    expect(await listed(sets)).toEqual(["gamma@3.0.0", "beta@1.0.0", "alpha@1.0.0"]);
    expect((await post("2.0.0/unyank")).status).toBe(200);
    expect(await listed(sets)).toEqual([
      "gamma@3.0.0",
      "delta@2.0.0",
      "alpha@2.0.0",
      "beta@1.0.0",
      "alpha@1.0.0",
    ]);

    expect((await remove("1.0.0/files/beta_1.0.0_amd64.deb")).status).toBe(204);
    expect(await listed(sets)).toEqual(["gamma@3.0.0", "delta@2.0.0", "alpha@2.0.0", "alpha@1.0.0"]);
    expect((await remove("2.0.0")).status).toBe(204);
    expect(await listed(sets)).toEqual(["gamma@3.0.0", "alpha@1.0.0"]);

    // Several changes between two builds: one read of the releases they name.
    loads.length = 0;
    await upload("4.0.0", "epsilon");
    expect((await post("3.0.0/yank", { reason: "superseded" })).status).toBe(200);
    await upload("4.0.0", "zeta");
    expect(await listed(sets)).toEqual(["zeta@4.0.0", "epsilon@4.0.0", "alpha@1.0.0"]);
    expect(loads[0]).toHaveLength(2);
    expect(sets.stats.reloads).toBe(1);
  });

  it("keeps a bounded log, and a set further behind than it reads everything again", async () => {
    const db = app.services.database.db;
    const sets = setsWithin(new MemoryBudget(1024 * 1024));
    await listed(sets);
    const releaseId = (
      await db
        .selectFrom("release")
        .select("id")
        .where("project_id", "=", projectId)
        .executeTakeFirstOrThrow()
    ).id;
    for (let i = 0; i < PACKAGE_INDEX_CHANGES_KEPT + 70; i++) {
      await db.transaction().execute((tx) => recordPackageIndexChange(tx, projectId, releaseId));
    }
    const { n } = await db
      .selectFrom("package_index_change")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBeLessThan(PACKAGE_INDEX_CHANGES_KEPT + 64);
    expect(Number(n)).toBeGreaterThanOrEqual(PACKAGE_INDEX_CHANGES_KEPT - 1);
    const before = sets.stats.reloads;
    await listed(sets);
    expect(sets.stats.reloads).toBe(before + 1);
  });

  it("forgets the least recently used set when the budget is full, and keeps none that does not fit", async () => {
    const db = app.services.database.db;
    const budget = new MemoryBudget(1000);
    const sets = setsWithin(budget);
    await listed(sets);
    expect(sets.stats.reloads).toBe(1);
    await listed(sets);
    expect(sets.stats.reloads).toBe(1);
    // Something else used since takes the room: the set is read whole again, then kept.
    budget.set("blocks/apt/elsewhere", {}, 900);
    await listed(sets);
    expect(sets.stats.reloads).toBe(2);
    await sets.current(db, projectId);
    expect(sets.stats.reloads).toBe(2);
    // Larger than the whole budget: never kept, every build reads everything, still right.
    const tight = setsWithin(new MemoryBudget(100));
    await listed(tight);
    await listed(tight);
    expect(tight.stats.reloads).toBe(2);
  });
});
