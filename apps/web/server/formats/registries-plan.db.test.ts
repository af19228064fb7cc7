// npm and Python packages as the rest of the product sees them (issue 42, decision 086): their
// files count in the owner's plan storage, and an upload past it is refused with PLAN_LIMIT in
// each registry's own shape, nothing kept; a tarball fetched by npm counts as an npm install in
// the project's statistics; each publish is a file.uploaded webhook delivery.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { flushDownloadCounts, storageBytes } from "../billing/usage.ts";
import { newRowId } from "../platform/core/ids.ts";
import { npmPublishRequest } from "./npm/test-publish.ts";
import { buildWheel, digestsOf, uploadForm } from "./pypi/test-distributions.ts";

const NPM_AGENT = "npm/11.19.1 node/v24.21.0 linux x64 workspaces/false";
let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

function npmPublish(version: string) {
  const request = npmPublishRequest(`${server.url}/npm/counted/sdk/`, "@counted/sdk", version);
  const sent = fetch(request.url, {
    method: "PUT",
    headers: { authorization: `Bearer ${pub.token}`, "content-type": "application/json" },
    body: request.body,
  });
  return { sent, size: request.size, file: request.file };
}

function pypiUpload(version: string) {
  const spec = { name: "counted-sdk", version };
  const wheel = buildWheel(spec);
  const sent = fetch(`${server.url}/pypi/counted/sdk/`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`__token__:${pub.token}`).toString("base64")}` },
    body: uploadForm(wheel, {
      name: spec.name,
      version,
      filetype: "bdist_wheel",
      pyversion: "py3",
      ...digestsOf(wheel.bytes),
    }),
  });
  return { sent, size: wheel.bytes.length };
}

beforeAll(async () => {
  // Webhooks may point at the loopback: the deliveries are queued whether or not anyone answers.
  server = await startLiveServer({ PLAN_LIMITS: "on", WEBHOOK_ALLOW_PRIVATE: "true" });
  pub = await publisher(server, "counted");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "sdk", name: "SDK", visibility: "public" }),
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
});

describe(`npm and Python packages in the plan, the statistics and webhooks (${databaseKind})`, () => {
  const db = () => server.services.database.db;

  it("counts each package's file in the owner's storage", async () => {
    const before = await storageBytes(db(), pub.userId);
    const npm = npmPublish("1.0.0");
    expect((await npm.sent).status).toBeLessThan(300);
    const python = pypiUpload("1.0.0");
    expect((await python.sent).status).toBe(200);
    expect(await storageBytes(db(), pub.userId)).toBe(before + npm.size + python.size);
  });

  it("counts a tarball fetched by npm as an npm install", async () => {
    const installs = async () => {
      await flushDownloadCounts(db());
      const res = await pub.api("/api/v1/projects/sdk/stats?by=client");
      const body = (await res.json()) as { stats: { rows: { key: string; installs: number }[] } };
      return body.stats.rows.find((row) => row.key === "npm")?.installs ?? 0;
    };
    const before = await installs();
    const res = await fetch(`${server.url}/npm/counted/sdk/@counted/sdk/-/counted-sdk-1.0.0.tgz`, {
      headers: { "user-agent": NPM_AGENT },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await installs();
    }
    expect(after).toBe(before + 1);
  });

  it("queues a file.uploaded delivery for each publish to a project with a webhook", async () => {
    const hook = await pub.api("/api/v1/projects/sdk/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: "http://127.0.0.1:9/packyard", events: ["file.uploaded"] }),
    });
    expect(hook.status, await hook.clone().text()).toBe(201);
    expect((await npmPublish("1.1.0").sent).status).toBeLessThan(300);
    expect((await pypiUpload("1.1.0").sent).status).toBe(200);
    const deliveries = await db()
      .selectFrom("webhook_delivery")
      .select(["event", "body"])
      .where("event", "=", "file.uploaded")
      .execute();
    const files = deliveries.map(
      (d) => (JSON.parse(d.body) as { data: { file: { filename: string } } }).data.file.filename,
    );
    expect(files).toEqual(
      expect.arrayContaining(["counted-sdk-1.1.0.tgz", "counted_sdk-1.1.0-py3-none-any.whl"]),
    );
  });

  it("refuses a publish past the plan's storage with PLAN_LIMIT, in each registry's shape, keeping nothing", async () => {
    // What the account holds already: a file as large as the free plan's 2 GiB of storage.
    const project = await db()
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "sdk")
      .executeTakeFirstOrThrow();
    const now = new Date().toISOString();
    const sha256 = "f".repeat(64);
    await db()
      .insertInto("blob")
      .values({ sha256, size: 2 * 1024 ** 3, created_at: now })
      .execute();
    const release = await pub.api("/api/v1/projects/sdk/releases", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version: "0.0.1" }),
    });
    expect(release.status).toBe(201);
    const { id: releaseId } = await db()
      .selectFrom("release")
      .select("id")
      .where("project_id", "=", project.id)
      .where("version", "=", "0.0.1")
      .executeTakeFirstOrThrow();
    await db()
      .insertInto("release_file")
      .values({
        id: newRowId(),
        release_id: releaseId,
        filename: "held.bin",
        size: 2 * 1024 ** 3,
        sha256,
        sha512: "",
        md5: "",
        sha1: "",
        kind: "binary",
        content_type: "application/octet-stream",
        download_count: 0,
        created_at: now,
      })
      .execute();
    const npm = await npmPublish("2.0.0").sent;
    expect(npm.status).toBe(403);
    expect(await npm.json()).toMatchObject({ code: "PLAN_LIMIT" });
    const python = await pypiUpload("2.0.0").sent;
    expect(python.status).toBe(403);
    expect(python.headers.get("x-packyard-error-code")).toBe("PLAN_LIMIT");
    expect(await python.text()).toMatch(/storage/i);
    for (const version of ["2.0.0"])
      expect((await pub.api(`/api/v1/projects/sdk/releases/${version}`)).status).toBe(404);
  });
});
