// Installs counted apart from downloads, and distinct machines per day (decision 083), as the
// counts are written and read: a package manager's file is an install, anyone else's a
// download, a signature or checksum list neither; a machine counts once a day per project (and
// per entitlement token) however many batches and servers see it; the hashes of past days and
// old last-use addresses are forgotten while the counts stay; migration 0035 gives the tokens'
// days their machines counted so far. SQLite, and PostgreSQL when configured.
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { migrations } from "../platform/db/migrations/index.ts";
import { DownloadBatch, type Served, writeDownloadBatch } from "./counts.ts";
import { forgetMachinesAndAddresses, LAST_USE_ADDRESS_DAYS } from "./forget.ts";
import { projectStats } from "./stats.ts";

let app: TestApp;
let auth: Record<string, string>;
let ownerId: string;
let projectId: string;
const db = () => app.services.database.db;

const DAY1 = "2020-01-14";
const DAY2 = "2020-01-15";
const at = (day: string) => new Date(`${day}T12:00:00Z`);
const file = (filename: string, check = false) => ({
  id: `file-${filename}`,
  projectId,
  version: "1.0.0",
  filename,
  ...(check ? { check: true } : {}),
});

/** A whole file served to `client` from `machine`. */
const served = (filename: string, client: Served["client"], machine: string, check = false): Served => ({
  ownerId,
  bytes: 100,
  file: file(filename, check),
  download: true,
  client,
  machine,
});

async function write(day: string, ...all: Served[]) {
  const batch = new DownloadBatch();
  for (const s of all) batch.add(s, at(day));
  await writeDownloadBatch(db(), batch);
}

beforeAll(async () => {
  app = await createTestApp({ PLAN_LIMITS: "off", TRUST_PROXY: "true" });
  ({ auth, userId: ownerId } = await publishingProject(app, "counter", "meter"));
  projectId = (
    await db().selectFrom("project").select("id").where("slug", "=", "meter").executeTakeFirstOrThrow()
  ).id;
});
afterAll(async () => {
  await app?.close();
});

describe(`installs, downloads and machines (${databaseKind})`, () => {
  it("count a package manager's files as installs, others' as downloads, signatures as neither; each machine once a day", async () => {
    // Day one, two batches (two servers' flushes): machine A (apt) installs twice, B (curl)
    // downloads and fetches a signature, C (a browser) downloads; A again in the second batch.
    await write(
      DAY1,
      served("meter_1.0.0_amd64.deb", "apt", "a"),
      served("meter_1.0.0_amd64.deb", "apt", "a"),
      served("meter-1.0.0.tar.gz", "curl", "b"),
      served("meter-1.0.0.tar.gz.asc", "curl", "b", true),
    );
    await write(
      DAY1,
      served("meter_1.0.0_amd64.deb", "apt", "a"),
      served("meter-1.0.0.tar.gz", "browser", "c"),
    );
    // Day two: A again (another day, counted again), D (zypper) installs an rpm, E (dnf) only a
    // part of one (bytes, no install, no machine), F fetches only a signature (no machine).
    await write(
      DAY2,
      served("meter_1.0.0_amd64.deb", "apt", "a"),
      served("meter-1.0.0-1.x86_64.rpm", "zypper", "d"),
      { ...served("meter-1.0.0-1.x86_64.rpm", "dnf", "e"), download: false },
      served("SHA256SUMS.asc", "curl", "f", true),
    );

    const period = { from: DAY1, to: DAY2 };
    const byDay = await projectStats(db(), projectId, { ...period, by: "day" });
    expect(byDay.rows).toEqual([
      { key: DAY1, installs: 3, downloads: 2, bytes: 600, machines: 3 },
      { key: DAY2, installs: 2, downloads: 0, bytes: 400, machines: 2 },
    ]);
    expect(byDay.total).toEqual({ installs: 5, downloads: 2, bytes: 1000, machines: 5 });

    const byClient = await projectStats(db(), projectId, { ...period, by: "client" });
    expect(byClient.rows).toEqual([
      { key: "apt", installs: 4, downloads: 0, bytes: 400, machines: 2 },
      { key: "curl", installs: 0, downloads: 1, bytes: 300, machines: 1 },
      { key: "browser", installs: 0, downloads: 1, bytes: 100, machines: 1 },
      { key: "zypper", installs: 1, downloads: 0, bytes: 100, machines: 1 },
      { key: "dnf", installs: 0, downloads: 0, bytes: 100, machines: 0 },
    ]);

    // Files: the signature is there with its bytes and no count; no machines per file.
    const byFile = await projectStats(db(), projectId, { ...period, by: "file" });
    expect(byFile.rows.find((r) => r.key === "meter-1.0.0.tar.gz.asc")).toEqual({
      key: "meter-1.0.0.tar.gz.asc",
      version: "1.0.0",
      installs: 0,
      downloads: 0,
      bytes: 100,
    });
    expect(byFile.total.machines).toBe(5);
    // Machines are the project's: a release's figures have none.
    const release = await projectStats(db(), projectId, { ...period, by: "day", version: "1.0.0" });
    expect(release.total).toEqual({ installs: 5, downloads: 2, bytes: 1000 });
    expect(release.rows[0]).not.toHaveProperty("machines");

    // The owner's month counts installs and downloads, not signatures.
    const month = await db()
      .selectFrom("download_month")
      .select("downloads")
      .where("owner_id", "=", ownerId)
      .where("month", "=", "2020-01")
      .executeTakeFirstOrThrow();
    expect(Number(month.downloads)).toBe(7);
  });

  it("tell machines apart by address and client through /dl, and a package manager by its User-Agent", async () => {
    const put = await app.request("/api/v1/projects/meter/releases/2.0.0/files/meter-2.0.0.tar.gz", {
      method: "PUT",
      headers: auth,
      body: "meter 2.0.0\n",
    });
    expect(put.status).toBe(201);
    const get = async (address: string, userAgent: string) => {
      const res = await app.request("/dl/counter/meter/releases/2.0.0/meter-2.0.0.tar.gz", {
        headers: { "x-forwarded-for": address, "user-agent": userAgent },
      });
      expect(await res.text()).toBe("meter 2.0.0\n");
    };
    await get("198.51.100.1", "curl/8.5.0");
    await get("198.51.100.1", "curl/8.5.0");
    await get("198.51.100.2", "curl/8.5.0");
    await get("198.51.100.2", "ZYpp 17.31.15 (curl 8.6.0) openSUSE-Tumbleweed-x86_64");
    const today = new Date().toISOString().slice(0, 10);
    const stats = await projectStats(db(), projectId, { from: today, to: today, by: "client" });
    expect(stats.rows).toEqual([
      { key: "curl", installs: 0, downloads: 3, bytes: 36, machines: 2 },
      { key: "zypper", installs: 1, downloads: 0, bytes: 12, machines: 1 },
    ]);
    const byDistribution = await projectStats(db(), projectId, {
      from: today,
      to: today,
      by: "distribution",
    });
    expect(byDistribution.rows.map((r) => r.key)).toEqual(["", "openSUSE-Tumbleweed-x86_64"]);
    // The hashes are kept, never the addresses.
    const kept = await db().selectFrom("download_machine").selectAll().where("day", "=", today).execute();
    expect(kept).toHaveLength(3);
    expect(JSON.stringify(kept)).not.toContain("198.51.100");
  });

  it("count a token's machines once a day across batches", async () => {
    const created = await app.request("/api/v1/projects/meter/entitlements", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "Counted" }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()).entitlement;
    const use = (machine: string, client: Served["client"]): Served => ({
      ...served("meter_1.0.0_amd64.deb", client, machine),
      entitlement: { id, machine, address: "192.0.2.1", userAgent: "Debian APT-HTTP/1.3 (2.6.1)" },
    });
    await write(DAY2, use("m1", "apt"), use("m1", "apt"));
    await write(DAY2, use("m1", "apt"), use("m2", "curl"));
    const usage = await db()
      .selectFrom("entitlement_usage")
      .select(["installs", "downloads", "machines"])
      .where("entitlement_id", "=", id)
      .executeTakeFirstOrThrow();
    expect([usage.installs, usage.downloads, usage.machines].map(Number)).toEqual([3, 1, 2]);
  });

  it("forget the machine hashes of past days and last-use addresses after 30 days; the counts stay", async () => {
    const now = new Date(`${DAY2}T00:10:00Z`);
    const yesterday = DAY1;
    const before = "2020-01-13";
    await write(before, served("meter-1.0.0.tar.gz", "curl", "old"));
    const { id } = await db().selectFrom("entitlement").select("id").executeTakeFirstOrThrow();
    await db()
      .insertInto("entitlement_machine")
      .values([
        { entitlement_id: id, day: before, machine: "old" },
        { entitlement_id: id, day: yesterday, machine: "recent" },
      ])
      .execute();
    const lastUse = (daysAgo: number) =>
      db()
        .updateTable("entitlement")
        .set({
          last_used_at: new Date(now.getTime() - daysAgo * 86_400_000).toISOString(),
          last_used_address: "192.0.2.1",
        })
        .where("id", "=", id)
        .execute();
    const address = async () =>
      (
        await db()
          .selectFrom("entitlement")
          .select("last_used_address")
          .where("id", "=", id)
          .executeTakeFirst()
      )?.last_used_address;
    const statsBefore = await projectStats(db(), projectId, { from: before, to: DAY2, by: "day" });

    await lastUse(LAST_USE_ADDRESS_DAYS - 1);
    expect(await forgetMachinesAndAddresses(db(), now)).toEqual({ machines: 2, addresses: 0 });
    expect(await address()).toBe("192.0.2.1");
    const days = async (table: "download_machine" | "entitlement_machine") =>
      [...new Set((await db().selectFrom(table).select("day").execute()).map((r) => r.day))].sort();
    expect(await days("download_machine")).toEqual(
      [yesterday, DAY2, new Date().toISOString().slice(0, 10)].sort(),
    );
    expect(await days("entitlement_machine")).toEqual([yesterday, DAY2].sort());
    // The numbers read the same without the hashes.
    expect(await projectStats(db(), projectId, { from: before, to: DAY2, by: "day" })).toEqual(statsBefore);
    expect(statsBefore.rows[0]).toMatchObject({ key: before, downloads: 1, machines: 1 });

    await lastUse(LAST_USE_ADDRESS_DAYS + 1);
    expect(await forgetMachinesAndAddresses(db(), now)).toEqual({ machines: 0, addresses: 1 });
    expect(await address()).toBeNull();
    const row = await db()
      .selectFrom("entitlement")
      .select(["last_used_at"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });

  it("migration 0035 counts the machines tokens' days had before it", async () => {
    const { id } = await db().selectFrom("entitlement").select("id").executeTakeFirstOrThrow();
    await db().deleteFrom("entitlement_usage").execute();
    await db().deleteFrom("entitlement_machine").execute();
    // The schema as 0033 left it, with a day of use by two machines and a day by none.
    await db().schema.dropTable("download_machine").execute();
    await db().schema.dropTable("download_machine_day").execute();
    await db().schema.dropIndex("entitlement_machine_by_day").execute();
    await db().schema.alterTable("entitlement_usage").dropColumn("machines").execute();
    const old = db() as unknown as Kysely<{
      entitlement_usage: { entitlement_id: string; day: string; downloads: number };
    }>;
    await old
      .insertInto("entitlement_usage")
      .values([
        { entitlement_id: id, day: DAY1, downloads: 3 },
        { entitlement_id: id, day: DAY2, downloads: 1 },
      ])
      .execute();
    await db()
      .insertInto("entitlement_machine")
      .values([
        { entitlement_id: id, day: DAY1, machine: "x" },
        { entitlement_id: id, day: DAY1, machine: "y" },
      ])
      .execute();
    await migrations["0035_installs"]!.up(db() as unknown as Kysely<unknown>);
    const days = await db()
      .selectFrom("entitlement_usage")
      .select(["day", "downloads", "machines"])
      .orderBy("day")
      .execute();
    expect(days.map((d) => [d.day, Number(d.downloads), Number(d.machines)])).toEqual([
      [DAY1, 3, 2],
      [DAY2, 1, 0],
    ]);
    // The new tables are there and written to.
    await write(DAY2, served("meter-1.0.0.tar.gz", "curl", "after"));
    expect(
      (await projectStats(db(), projectId, { from: DAY2, to: DAY2, by: "day" })).rows[0]!.machines,
    ).toBeGreaterThan(0);
  });
});
