// Usage against the plan (usage.ts, decision 018): storage counts every file of the owner's
// projects (identical bytes in two releases count twice); the month's downloaded bytes grow by
// what each /dl response actually sent — whole files, ranges, APT and YUM packages and indexes;
// at 80 % and 100 % of the allowance the owner gets one mail each, downloads never fail; an
// operator's plan moves the allowance and PLAN_LIMITS=off sends nothing. SQLite and PostgreSQL.

import { readFileSync } from "node:fs";
import { plans } from "@packyard/contract/plans.ts";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  publishingProject,
  type TestApp,
} from "../../test/harness.ts";
import { currentMonth } from "../downloads/counts.ts";
import { clearOperatorPlan, setOperatorPlan } from "./plan.ts";
import { downloadAlert, FLUSH_MS, flushDownloadCounts, usageSummary } from "./usage.ts";

const hasRpmTools = requireTools(["rpmbuild"]);
const allowance = plans.basic.downloadBytesPerMonth;
const content = "0123456789abcdefghij"; // 20 bytes

let app: TestApp;
let auth: Record<string, string>;
let userId: string;
const db = () => app.services.database.db;

async function put(slug: string, version: string, filename: string, body: BodyInit) {
  const res = await app.request(`/api/v1/projects/${slug}/releases/${version}/files/${filename}`, {
    method: "PUT",
    headers: auth,
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** The owner's bytes this month, once what waits in memory is written. */
async function monthBytes(ownerId = userId): Promise<number> {
  await flushDownloadCounts(db());
  const row = await db()
    .selectFrom("download_month")
    .select("bytes")
    .where("owner_id", "=", ownerId)
    .where("month", "=", currentMonth())
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** Waits until the month's counter moved past `before`: counting runs after delivery, and bytes
 * wait in memory until written (every FLUSH_MS, or now). */
async function bytesAfter(before: number, expected: number): Promise<void> {
  await vi.waitFor(async () => expect(await monthBytes()).toBe(before + expected), { timeout: 5000 });
}

async function seedMonth(bytes: number, ownerId = userId) {
  await db()
    .insertInto("download_month")
    .values({ owner_id: ownerId, month: currentMonth(), bytes })
    .onConflict((oc) => oc.columns(["owner_id", "month"]).doUpdateSet({ bytes }))
    .execute();
}

const allowanceMails = (to = "meter@example.com") =>
  app.outbox().filter((m) => m.to.includes(to) && /download allowance/.test(m.subject));

async function download(path = "/dl/meter/tool/releases/1.0.0/tool.bin", init: RequestInit = {}) {
  const res = await app.request(path, init);
  expect(res.status).toBeLessThan(300);
  return res.text();
}

beforeAll(async () => {
  app = await createTestApp();
  ({ auth, userId } = await publishingProject(app, "meter", "tool"));
  await put("tool", "1.0.0", "tool.bin", content);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe(`usage (${databaseKind})`, () => {
  it("counts storage by the owner's files: the same bytes in two releases count twice", async () => {
    await put("tool", "1.1.0", "tool.bin", content);
    const summary = await usageSummary(db(), app.services.config, userId);
    expect(summary.storageBytes).toEqual({ used: 2 * content.length, limit: plans.basic.storageBytes });
    expect(summary.privateProjects).toEqual({ used: 0, limit: 1 });
    expect(summary.downloadBytes.limit).toBe(allowance);
    expect(summary).toMatchObject({ plan: "basic", planName: "Basic", limited: true, month: currentMonth() });
    // Stored once on disk all the same.
    const blobs = await db().selectFrom("blob").select("sha256").execute();
    expect(blobs).toHaveLength(1);
  });

  it("adds what each download sent: whole files, ranges by their bytes", async () => {
    let before = await monthBytes();
    expect(await download()).toBe(content);
    await bytesAfter(before, 20);

    before = await monthBytes();
    expect(await download(undefined, { headers: { range: "bytes=0-4" } })).toBe("01234");
    await bytesAfter(before, 5);

    before = await monthBytes();
    expect(await download(undefined, { headers: { range: "bytes=-3" } })).toBe("hij");
    await bytesAfter(before, 3);

    // A HEAD or a 304 sends no body: nothing counted.
    before = await monthBytes();
    await download(undefined, { method: "HEAD" });
    const tag = (await app.request("/dl/meter/tool/releases/1.0.0/tool.bin", { method: "HEAD" })).headers.get(
      "etag",
    )!;
    expect(
      (await app.request("/dl/meter/tool/releases/1.0.0/tool.bin", { headers: { "if-none-match": tag } }))
        .status,
    ).toBe(304);
    await download();
    await bytesAfter(before, 20);
  });

  it("writes batched bytes by itself within a few seconds, one write per owner", async () => {
    const before = await monthBytes();
    for (let i = 0; i < 5; i++) await download(undefined, { headers: { range: "bytes=0-1" } });
    const row = () =>
      db()
        .selectFrom("download_month")
        .select("bytes")
        .where("owner_id", "=", userId)
        .where("month", "=", currentMonth())
        .executeTakeFirstOrThrow();
    expect(Number((await row()).bytes)).toBe(before);
    await vi.waitFor(async () => expect(Number((await row()).bytes)).toBe(before + 10), {
      timeout: FLUSH_MS + 3000,
      interval: 200,
    });
  });

  it("counts APT packages and indexes in the owner's bytes", async () => {
    const deb = buildTestDeb({
      control:
        "Package: metered\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: metered\n metered\n",
    });
    await put("tool", "2.0.0", "metered_1.0.0_amd64.deb", Buffer.from(deb));
    let inRelease = "";
    await vi.waitFor(
      async () => {
        const res = await app.request("/dl/meter/tool/deb/dists/stable/InRelease");
        inRelease = await res.text();
        expect(res.status).toBe(200);
        expect(inRelease).toContain("Packages");
      },
      { timeout: 15_000 },
    );
    let before = await monthBytes();
    const index = await download("/dl/meter/tool/deb/dists/stable/InRelease");
    await bytesAfter(before, Buffer.byteLength(index));
    // The uncompressed Packages file is served decompressed from the stored .gz: counted too.
    before = await monthBytes();
    const packages = await download("/dl/meter/tool/deb/dists/stable/main/binary-amd64/Packages");
    await bytesAfter(before, Buffer.byteLength(packages));
    const pool = /^Filename: (.+)$/m.exec(packages)![1]!;
    before = await monthBytes();
    const res = await app.request(`/dl/meter/tool/deb/${pool}`);
    expect(Buffer.from(await res.arrayBuffer()).length).toBe(deb.length);
    await bytesAfter(before, deb.length);
  });

  it.runIf(hasRpmTools)("counts YUM packages and repodata in the owner's bytes", async () => {
    const rpms = buildTestRpms();
    try {
      await put("tool", "3.0.0", "packyard-beta.rpm", readFileSync(rpms.beta));
      let repomd = "";
      await vi.waitFor(
        async () => {
          const res = await app.request("/dl/meter/tool/rpm/repodata/repomd.xml");
          repomd = await res.text();
          expect(res.status).toBe(200);
        },
        { timeout: 15_000 },
      );
      const before = await monthBytes();
      const again = await download("/dl/meter/tool/rpm/repodata/repomd.xml");
      await bytesAfter(before, Buffer.byteLength(again));
      expect(repomd.length).toBeGreaterThan(0);
    } finally {
      rpms.cleanup();
    }
  });

  it("mails the owner once at 80 % and once at 100 % of the month's allowance, and never stops a download", async () => {
    expect(allowanceMails()).toHaveLength(0);
    await seedMonth(allowance * 0.8 - 10);
    expect(await downloadAlert(db(), app.services.config, userId)).toBeUndefined();
    expect(await download()).toBe(content);
    await vi.waitFor(() => expect(allowanceMails()).toHaveLength(1), { timeout: 5000 });
    const warning = allowanceMails()[0]!;
    expect(warning.subject).toBe("You have used 80% of this month's Packyard download allowance");
    expect(warning.text).toContain("80% of the 20 GB your Basic plan includes each month");
    expect(warning.text).toContain("Nothing is cut off");
    expect(warning.links).toContain("http://localhost:3000/pricing");
    expect(await downloadAlert(db(), app.services.config, userId)).toMatchObject({
      percent: 80,
      planName: "Basic",
    });

    // Further downloads under 100 %: no second mail.
    const before = await monthBytes();
    for (let i = 0; i < 3; i++) expect(await download()).toBe(content);
    await bytesAfter(before, 60);
    expect(allowanceMails()).toHaveLength(1);

    await seedMonth(allowance - 10);
    expect(await download()).toBe(content);
    await vi.waitFor(() => expect(allowanceMails()).toHaveLength(2), { timeout: 5000 });
    expect(allowanceMails()[1]!.subject).toBe("You have used this month's Packyard download allowance");
    expect(allowanceMails()[1]!.text).toContain("all of the 20 GB your Basic plan includes");

    // Past the allowance downloads go on, whole, and no more mail is sent this month.
    const after = await monthBytes();
    for (let i = 0; i < 3; i++) expect(await download()).toBe(content);
    expect(await download(undefined, { headers: { range: "bytes=10-" } })).toBe("abcdefghij");
    await bytesAfter(after, 70);
    expect(allowanceMails()).toHaveLength(2);
    expect(await downloadAlert(db(), app.services.config, userId)).toMatchObject({ percent: 100 });
    const summary = await usageSummary(db(), app.services.config, userId);
    expect(summary.downloadBytes.used).toBeGreaterThan(allowance);
  });

  it("an operator's plan moves the allowance: Basic's 100 % is under Starter's 80 %", async () => {
    const other = await onboardedUser(app, "bigger");
    await setOperatorPlan(db(), other.userId, "starter");
    await seedMonth(allowance * 2, other.userId);
    expect(await downloadAlert(db(), app.services.config, other.userId)).toBeUndefined();
    const summary = await usageSummary(db(), app.services.config, other.userId);
    expect(summary).toMatchObject({
      plan: "starter",
      privateProjects: { used: 0, limit: 10 },
      downloadBytes: { used: allowance * 2, limit: plans.starter.downloadBytesPerMonth },
    });
    // Back on Basic the same bytes are over the allowance.
    await clearOperatorPlan(db(), other.userId);
    expect(await downloadAlert(db(), app.services.config, other.userId)).toMatchObject({ percent: 100 });
    await setOperatorPlan(db(), other.userId, "pro");
    expect((await usageSummary(db(), app.services.config, other.userId)).privateProjects.limit).toBeNull();
  });
});

describe(`usage with PLAN_LIMITS=off (${databaseKind})`, () => {
  let free: TestApp;
  beforeAll(async () => {
    free = await createTestApp({ PLAN_LIMITS: "off" });
  }, 60_000);
  afterAll(async () => {
    await free?.close();
  });

  it("counts the bytes, shows no limit and sends no mail past the allowance", async () => {
    const { auth: key, userId: owner } = await publishingProject(free, "unmetered", "tool");
    const res = await free.request("/api/v1/projects/tool/releases/1.0.0/files/tool.bin", {
      method: "PUT",
      headers: key,
      body: content,
    });
    expect(res.status).toBe(201);
    const fdb = free.services.database.db;
    await fdb
      .insertInto("download_month")
      .values({ owner_id: owner, month: currentMonth(), bytes: allowance * 3 })
      .execute();
    for (let i = 0; i < 2; i++) {
      const dl = await free.request("/dl/unmetered/tool/releases/1.0.0/tool.bin");
      expect(await dl.text()).toBe(content);
    }
    // Whole files wait in memory too (decision 033): written now.
    await flushDownloadCounts(fdb);
    const summary = await usageSummary(fdb, free.services.config, owner);
    await vi.waitFor(async () =>
      expect((await usageSummary(fdb, free.services.config, owner)).downloadBytes.used).toBe(
        allowance * 3 + 40,
      ),
    );
    expect(summary.limited).toBe(false);
    expect(summary.storageBytes.limit).toBeNull();
    expect(summary.privateProjects.limit).toBeNull();
    expect(await downloadAlert(fdb, free.services.config, owner)).toBeUndefined();
    expect(free.outbox().filter((m) => /download allowance/.test(m.subject))).toHaveLength(0);
  });
});
