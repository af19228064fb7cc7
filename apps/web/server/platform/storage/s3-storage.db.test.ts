// Packyard with S3_* set, against s3rver (started here on 127.0.0.1): a .deb and an .rpm are
// uploaded, downloaded whole and by range (206, ETag, 304), the APT and YUM repositories are
// published and served, maintenance lists the bucket, and nothing of a blob or an index is
// written under DATA_DIR (only the SQLite database and the mail outbox may be there).
import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buffer } from "node:stream/consumers";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../../test/harness.ts";
import { loadS3rver, startS3rver, type TestS3 } from "../../../test/s3rver.ts";
import { flushDownloadCounts } from "../../billing/usage.ts";
import { collectLeftovers } from "../../maintenance.ts";
import { createS3Client } from "./s3-blob-store.ts";

const s3rverModule = await loadS3rver();
const hasRpmbuild = requireTools(["rpmbuild"]);

let s3: TestS3 | undefined;
let app: TestApp | undefined;
let auth: Record<string, string>;
const deb = buildTestDeb();
let rpm: { name: string; bytes: Uint8Array } | undefined;

beforeAll(async () => {
  if (!s3rverModule) return;
  s3 = await startS3rver(s3rverModule);
  app = await createTestApp({ ...s3.env, S3_PREFIX: "packyard" });
  ({ auth } = await publishingProject(app, "bucketeer", "widget"));
  if (hasRpmbuild) {
    const rpms = buildTestRpms();
    rpm = { name: rpms.alpha.split("/").pop()!, bytes: readFileSync(rpms.alpha) };
    rpms.cleanup();
  }
});
afterAll(async () => {
  await app?.close();
  await s3?.stop();
});

const put = (name: string, body: Uint8Array) =>
  app!.request(`/api/v1/projects/widget/releases/1.0.0/files/${name}`, {
    method: "PUT",
    headers: auth,
    body: Buffer.from(body),
  });

/** Every file under DATA_DIR, relative to it. */
const dataDirFiles = () =>
  readdirSync(app!.dataDir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(app!.dataDir, join(d.parentPath, d.name)));

async function bucketKeys(): Promise<string[]> {
  const client = createS3Client(s3!.settings);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: s3!.settings.bucket, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) keys.push(o.Key!);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  client.destroy();
  return keys;
}

describe.skipIf(!s3rverModule)(`blobs and indexes on S3 (${databaseKind})`, () => {
  it("uploads, serves ranges and repositories from the bucket, and keeps nothing under DATA_DIR", async () => {
    const files: [string, Uint8Array][] = [["hello-world_2.10-3_amd64.deb", deb]];
    expect((await put(files[0]![0], deb)).status).toBe(201);
    if (rpm) {
      const res = await put(rpm.name, rpm.bytes);
      expect(res.status).toBe(201);
      // The stored .rpm is the signed one: compare downloads with the stored bytes.
      const row = await app!.services.database.db
        .selectFrom("release_file")
        .select("sha256")
        .where("filename", "=", rpm.name)
        .executeTakeFirstOrThrow();
      files.push([rpm.name, new Uint8Array(await buffer(await app!.services.blobs.open(row.sha256)))]);
    }

    for (const [name, bytes] of files) {
      const url = `/dl/bucketeer/widget/releases/1.0.0/${name}`;
      const whole = await app!.request(url);
      expect(whole.status).toBe(200);
      const etag = whole.headers.get("etag")!;
      const body = new Uint8Array(await whole.arrayBuffer());
      expect(Buffer.from(body).equals(Buffer.from(bytes))).toBe(true);

      const part = await app!.request(url, { headers: { range: "bytes=10-109" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes 10-109/${bytes.byteLength}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bytes.subarray(10, 110)))).toBe(true);

      const tail = await app!.request(url, { headers: { range: "bytes=-7" } });
      expect(tail.status).toBe(206);
      expect(Buffer.from(await tail.arrayBuffer()).equals(Buffer.from(bytes.subarray(-7)))).toBe(true);

      const first = await app!.request(url, { headers: { range: "bytes=0-0" } });
      expect(first.status).toBe(206);
      expect(Buffer.from(await first.arrayBuffer())).toEqual(Buffer.from(bytes.subarray(0, 1)));

      expect((await app!.request(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    }
    // A download counts when the file's last byte is delivered: the whole file and the suffix
    // range ("resumed"), not the other ranges or the 304.
    await vi.waitFor(async () => {
      await flushDownloadCounts(app!.services.database.db);
      const counts = await app!.services.database.db
        .selectFrom("release_file")
        .select(["filename", "download_count"])
        .execute();
      expect(counts).toHaveLength(files.length);
      for (const row of counts) expect(Number(row.download_count), row.filename).toBe(2);
    });

    const project = await app!.services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "widget")
      .executeTakeFirstOrThrow();
    await app!.services.repos.publish(project.id);
    const inRelease = await app!.request("/dl/bucketeer/widget/deb/dists/stable/InRelease");
    expect(inRelease.status).toBe(200);
    expect(await inRelease.text()).toContain("main/binary-amd64/Packages");
    const packages = await app!.request("/dl/bucketeer/widget/deb/dists/stable/main/binary-amd64/Packages");
    expect(packages.status).toBe(200);
    expect(await packages.text()).toContain("Package: hello-world");
    if (rpm) {
      const repomd = await app!.request("/dl/bucketeer/widget/rpm/repodata/repomd.xml");
      expect(repomd.status).toBe(200);
      const primaryHref = /href="(repodata\/[^"]*primary[^"]*)"/.exec(await repomd.text())?.[1];
      expect(primaryHref).toBeDefined();
      expect((await app!.request(`/dl/bucketeer/widget/rpm/${primaryHref}`)).status).toBe(200);
    }

    // Maintenance lists the bucket (a page at a time) and finds nothing to remove.
    expect(await collectLeftovers(app!.services, 0)).toEqual({
      temporaryFiles: 0,
      unreferencedBlobs: 0,
      orphanBlobs: 0,
      orphanIndexFiles: 0,
      imageBlobsReleased: 0,
      imageUploadsForgotten: 0,
    });
    expect((await app!.request(`/dl/bucketeer/widget/releases/1.0.0/${files[0]![0]}`)).status).toBe(200);

    const keys = await bucketKeys();
    expect(keys.filter((k) => k.startsWith("packyard/blobs/sha256/"))).toHaveLength(files.length);
    expect(keys.filter((k) => k.startsWith("packyard/indexes/sha256/")).length).toBeGreaterThan(3);
    expect(keys.filter((k) => !/^packyard\/(blobs|indexes)\/sha256\/[0-9a-f]{64}$/.test(k))).toEqual([]);

    const onDisk = dataDirFiles();
    expect(
      onDisk.filter((p) => !/^(packyard\.sqlite(-wal|-shm|-journal)?|secret|outbox\/.*)$/.test(p)),
    ).toEqual([]);
  });

  it("keeps container image blobs and manifests in the bucket: a chunked push, a pull back by digest", async () => {
    const sha = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    const before = new Set(dataDirFiles());
    const layer = randomBytes(300_000);
    const start = await app!.request("/v2/bucketeer/widget/blobs/uploads/", {
      method: "POST",
      headers: auth,
    });
    expect(start.status).toBe(202);
    const location = start.headers.get("location")!;
    for (const [from, to] of [
      [0, 200_000],
      [200_000, 300_000],
    ] as const) {
      const res = await app!.request(location, {
        method: "PATCH",
        headers: { ...auth, "content-range": `${from}-${to - 1}` },
        body: layer.subarray(from, to),
      });
      expect(res.status).toBe(202);
    }
    expect(
      (await app!.request(`${location}?digest=${sha(layer)}`, { method: "PUT", headers: auth })).status,
    ).toBe(201);
    const config = Buffer.from("{}");
    expect(
      (
        await app!.request(`/v2/bucketeer/widget/blobs/uploads/?digest=${sha(config)}`, {
          method: "POST",
          headers: auth,
          body: config,
        })
      ).status,
    ).toBe(201);
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: sha(config), size: 2 },
      layers: [
        { mediaType: "application/vnd.oci.image.layer.v1.tar", digest: sha(layer), size: layer.length },
      ],
    });
    const pushed = await app!.request("/v2/bucketeer/widget/manifests/1.0.0", {
      method: "PUT",
      headers: { ...auth, "content-type": "application/vnd.oci.image.manifest.v1+json" },
      body: manifest,
    });
    expect(pushed.status).toBe(201);
    const keys = await bucketKeys();
    for (const digest of [sha(layer), sha(config), sha(manifest)])
      expect(keys).toContain(`packyard/blobs/sha256/${digest.slice(7)}`);
    const pulled = await app!.request(`/v2/bucketeer/widget/blobs/${sha(layer)}`);
    expect(Buffer.from(await pulled.arrayBuffer()).equals(layer)).toBe(true);
    expect(await (await app!.request(`/v2/bucketeer/widget/manifests/${sha(manifest)}`)).text()).toBe(
      manifest,
    );
    // Nothing of an image is written under DATA_DIR.
    expect(dataDirFiles().filter((f) => !before.has(f) && !/\.(db|sqlite)(-wal|-shm)?$/.test(f))).toEqual([]);
  });
});
