// S3_PRESIGNED_DOWNLOADS against s3rver (started here on 127.0.0.1): a release file GET is a 302
// to a presigned URL of the bucket that a real HTTP client (fetch) follows to exactly the bytes,
// with the file's Content-Type and Content-Disposition, a Range honoured there too; counted once
// per redirect by the rule of a streamed download. HEAD, 304 and the other conditional requests,
// SHA256SUMS, APT index and pool files, and a private project's file for an anonymous request are
// answered by the server as before; the URL expires; without the flag the bytes are streamed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { loadS3rver, startS3rver, type TestS3 } from "../../test/s3rver.ts";
import { flushDownloadCounts } from "../billing/usage.ts";

const s3rverModule = await loadS3rver();
const hasCurl = requireTools(["curl"]);

let s3: TestS3 | undefined;
let app: TestApp | undefined;
let plain: TestApp | undefined;
let auth: Record<string, string>;
let plainAuth: Record<string, string>;

const FILE = "widget-1.0.0_linux-amd64.tar.gz";
const DEB = "hello-world_2.10-3_amd64.deb";
/** 64 KiB of varied bytes: a range cut in the wrong place would show. */
const bytes = new Uint8Array(64 * 1024).map((_, i) => (i * 31 + (i >> 8)) & 0xff);
const deb = buildTestDeb();

const put = (to: TestApp, headers: Record<string, string>, project: string, name: string, body: Uint8Array) =>
  to.request(`/api/v1/projects/${project}/releases/1.0.0/files/${name}`, {
    method: "PUT",
    headers,
    body: Buffer.from(body),
  });

beforeAll(async () => {
  if (!s3rverModule) return;
  s3 = await startS3rver(s3rverModule);
  app = await createTestApp({
    ...s3.env,
    S3_PREFIX: "presigned",
    S3_PRESIGNED_DOWNLOADS: "true",
    S3_PRESIGNED_EXPIRES_SECONDS: "120",
  });
  ({ auth } = await publishingProject(app, "presigner", "widget"));
  const vault = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ slug: "vault", name: "vault", visibility: "private" }),
  });
  expect(vault.status).toBe(201);
  expect((await put(app, auth, "widget", FILE, bytes)).status).toBe(201);
  expect((await put(app, auth, "widget", DEB, deb)).status).toBe(201);
  expect((await put(app, auth, "vault", FILE, bytes)).status).toBe(201);

  // The same bucket, another prefix, no flag.
  plain = await createTestApp({ ...s3.env, S3_PREFIX: "plain" });
  ({ auth: plainAuth } = await publishingProject(plain, "streamer", "widget"));
  expect((await put(plain, plainAuth, "widget", FILE, bytes)).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await app?.close();
  await plain?.close();
  await s3?.stop();
});

const url = (project: string, name = FILE, version = "1.0.0") =>
  `/dl/presigner/${project}/releases/${version}/${name}`;

async function fileRow(to: TestApp, project: string, name: string) {
  await flushDownloadCounts(to.services.database.db);
  return to.services.database.db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select(["release_file.download_count", "release_file.content_type", "project.owner_id"])
    .where("project.slug", "=", project)
    .where("release_file.filename", "=", name)
    .executeTakeFirstOrThrow();
}

async function monthBytes(to: TestApp, ownerId: string): Promise<number> {
  await flushDownloadCounts(to.services.database.db);
  const row = await to.services.database.db
    .selectFrom("download_month")
    .select("bytes")
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** A 302 to the bucket, private and uncacheable. */
function expectRedirect(res: Response): URL {
  expect(res.status).toBe(302);
  expect(res.headers.get("cache-control")).toBe("private, no-store");
  const location = new URL(res.headers.get("location")!);
  expect(location.origin).toBe(s3!.endpoint);
  return location;
}

const expectServedHere = (res: Response) => expect(res.headers.get("location")).toBeNull();

describe.skipIf(!s3rverModule)(`presigned downloads from S3 (${databaseKind})`, () => {
  it("redirects a release file to the bucket, which serves the bytes, the type and the name; a range too", async () => {
    const row = await fileRow(app!, "widget", FILE);
    const before = await monthBytes(app!, row.owner_id);
    const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(FILE)}`;

    const location = expectRedirect(await app!.request(url("widget")));
    expect(location.searchParams.get("X-Amz-Expires")).toBe("120");
    expect(location.pathname).toMatch(/\/presigned\/blobs\/sha256\/[0-9a-f]{64}$/);
    const whole = await fetch(location);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe(row.content_type);
    expect(whole.headers.get("content-disposition")).toBe(disposition);
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    // The client sends its Range again to the new location (fetch does, as curl and browsers).
    const range = { range: "bytes=10-109" };
    const partLocation = expectRedirect(await app!.request(url("widget"), { headers: range }));
    const part = await fetch(partLocation, { headers: range });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-109/${bytes.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bytes.subarray(10, 110)))).toBe(true);

    // A range ending at the last byte ("resume") counts as a download, as when streamed.
    expectRedirect(await app!.request(url("widget"), { headers: { range: "bytes=-7" } }));
    // "latest" is redirected too.
    expectRedirect(await app!.request(url("widget", FILE, "latest")));

    // Counted once per redirect: whole, suffix and latest are downloads, the middle range is not.
    await vi.waitFor(async () =>
      expect(Number((await fileRow(app!, "widget", FILE)).download_count)).toBe(3),
    );
    expect((await monthBytes(app!, row.owner_id)) - before).toBe(2 * bytes.byteLength + 100 + 7);
  });

  it("answers HEAD, 304, 416 and the other conditional requests itself, and counts them as before", async () => {
    const row = await fileRow(app!, "widget", FILE);
    const countBefore = Number(row.download_count);
    const bytesBefore = await monthBytes(app!, row.owner_id);

    const head = await app!.request(url("widget"), { method: "HEAD" });
    expect(head.status).toBe(200);
    expectServedHere(head);
    const etag = head.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(head.headers.get("content-length")).toBe(String(bytes.byteLength));

    const notModified = await app!.request(url("widget"), { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expectServedHere(notModified);

    const unsatisfiable = await app!.request(url("widget"), { headers: { range: "bytes=999999-" } });
    expect(unsatisfiable.status).toBe(416);
    expectServedHere(unsatisfiable);

    // If-Range names our ETag (the sha256), which the bucket does not know: streamed here.
    const ifRange = await app!.request(url("widget"), { headers: { range: "bytes=0-9", "if-range": etag } });
    expect(ifRange.status).toBe(206);
    expectServedHere(ifRange);
    expect(Buffer.from(await ifRange.arrayBuffer()).equals(Buffer.from(bytes.subarray(0, 10)))).toBe(true);

    // If-Modified-Since: as without the flag (streamed whole here), never judged by the bucket.
    const ims = await app!.request(url("widget"), {
      headers: { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() },
    });
    expect(ims.status).toBe(200);
    expectServedHere(ims);
    expect((await ims.arrayBuffer()).byteLength).toBe(bytes.byteLength);

    // Several ranges: not one we redirect (the server sends the whole file, as before).
    const multi = await app!.request(url("widget"), { headers: { range: "bytes=0-1,5-6" } });
    expect(multi.status).toBe(200);
    expectServedHere(multi);
    expect((await multi.arrayBuffer()).byteLength).toBe(bytes.byteLength);

    // HEAD, 304, 416 count nothing; the If-Range part counts its bytes; the two whole ones count.
    await vi.waitFor(async () =>
      expect(Number((await fileRow(app!, "widget", FILE)).download_count)).toBe(countBefore + 2),
    );
    expect((await monthBytes(app!, row.owner_id)) - bytesBefore).toBe(10 + 2 * bytes.byteLength);
  });

  it("redirects a private project's file only after the same authorization as a streamed one", async () => {
    const anonymous = await app!.request(url("vault"));
    expect(anonymous.status).toBe(404);
    expectServedHere(anonymous);
    expect((await app!.request(url("vault"), { method: "HEAD" })).status).toBe(404);
    expect(Number((await fileRow(app!, "vault", FILE)).download_count)).toBe(0);

    const owner = expectRedirect(await app!.request(url("vault"), { headers: auth }));
    // The presigned URL is the credential: no Authorization header goes to the bucket.
    const res = await fetch(owner);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    await vi.waitFor(async () => expect(Number((await fileRow(app!, "vault", FILE)).download_count)).toBe(1));
  });

  it("serves SHA256SUMS, APT index files and pool packages itself", async () => {
    const sums = await app!.request(url("widget", "SHA256SUMS"));
    expect(sums.status).toBe(200);
    expectServedHere(sums);
    expect(await sums.text()).toContain(FILE);

    // The .deb is a release file like any other at its /releases URL...
    expectRedirect(await app!.request(url("widget", DEB)));

    // ...but apt's URLs are served here (indexes always; pool packages: see decision 021).
    const project = await app!.services.database.db
      .selectFrom("project")
      .select("id")
      .where("slug", "=", "widget")
      .executeTakeFirstOrThrow();
    await app!.services.repos.publish(project.id);
    const inRelease = await app!.request("/dl/presigner/widget/deb/dists/stable/InRelease");
    expect(inRelease.status).toBe(200);
    expectServedHere(inRelease);
    const packages = await app!.request("/dl/presigner/widget/deb/dists/stable/main/binary-amd64/Packages");
    expect(packages.status).toBe(200);
    expectServedHere(packages);
    const text = await packages.text();
    const poolPath = /^Filename: (.+)$/m.exec(text)?.[1];
    expect(poolPath).toMatch(/^pool\//);
    const pool = await app!.request(`/dl/presigner/widget/deb/${poolPath}`);
    expect(pool.status).toBe(200);
    expectServedHere(pool);
    expect(Buffer.from(await pool.arrayBuffer()).equals(Buffer.from(deb))).toBe(true);
  });

  it("signs URLs that expire", async () => {
    const sha256 = (await app!.request(url("widget"), { method: "HEAD" })).headers.get("x-checksum-sha256")!;
    const blobs = app!.services.blobs;
    const short = new URL(await blobs.presignGet!(sha256, { expiresSeconds: 1 }));
    expect(short.searchParams.get("X-Amz-Expires")).toBe("1");
    // X-Amz-Date has whole seconds: 1 s of validity ends at most 2 s after signing.
    const signedAt = Date.now();
    const fresh = await fetch(short);
    expect(fresh.status).toBe(200);
    await fresh.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt + 2100 - Date.now())));
    const expired = await fetch(short);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain("Request has expired");
  });

  it("streams the bytes as before without the flag", async () => {
    expect(plain!.services.config.s3?.presignedDownloads).toBeUndefined();
    const res = await plain!.request(`/dl/streamer/widget/releases/1.0.0/${FILE}`);
    expect(res.status).toBe(200);
    expectServedHere(res);
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    await vi.waitFor(async () =>
      expect(Number((await fileRow(plain!, "widget", FILE)).download_count)).toBe(1),
    );
  });
});

describe.skipIf(!s3rverModule)(
  `presigned downloads over HTTP, clients following the redirect (${databaseKind})`,
  () => {
    let live: LiveServer | undefined;
    afterAll(async () => {
      await live?.close();
    });

    it("fetch and curl -L download a private project's file with its token, which they do not send to the bucket", async () => {
      live = await startLiveServer({ ...s3!.env, S3_PREFIX: "live", S3_PRESIGNED_DOWNLOADS: "true" });
      const pub = await publisher(live, "courier");
      const created = await pub.api("/api/v1/projects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ slug: "crate", name: "crate", visibility: "private" }),
      });
      expect(created.status).toBe(201);
      const up = await pub.api(`/api/v1/projects/crate/releases/2.0.0/files/${FILE}`, {
        method: "PUT",
        body: Buffer.from(bytes),
      });
      expect(up.status).toBe(201);
      const path = `${live.url}/dl/courier/crate/releases/2.0.0/${FILE}`;
      const token = { authorization: `Bearer ${pub.token}` };

      const manual = await fetch(path, { headers: token, redirect: "manual" });
      expect(manual.status).toBe(302);
      expect(manual.headers.get("location")!.startsWith(`${s3!.endpoint}/`)).toBe(true);
      expect(new URL(manual.headers.get("location")!).searchParams.get("X-Amz-Expires")).toBe("300");

      // fetch drops Authorization on a cross-origin redirect; the bucket would refuse a request
      // carrying both a header and a query signature.
      const followed = await fetch(path, { headers: token });
      expect(followed.status).toBe(200);
      expect(followed.redirected).toBe(true);
      expect(followed.url.startsWith(`${s3!.endpoint}/`)).toBe(true);
      expect(followed.headers.get("content-disposition")).toBe(
        `attachment; filename*=UTF-8''${encodeURIComponent(FILE)}`,
      );
      expect(Buffer.from(await followed.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

      const ranged = await fetch(path, { headers: { ...token, range: "bytes=100-199" } });
      expect(ranged.status).toBe(206);
      expect(Buffer.from(await ranged.arrayBuffer()).equals(Buffer.from(bytes.subarray(100, 200)))).toBe(
        true,
      );

      if (hasCurl) {
        // curl -L with the key as HTTP Basic (what apt and dnf send): not sent on to another host.
        // (Asynchronously: the server answering it runs in this process.)
        const { stdout } = await promisify(execFile)("curl", ["-fsSL", "-u", `token:${pub.token}`, path], {
          encoding: "buffer",
          maxBuffer: 1 << 20,
          timeout: 20_000,
        });
        expect(Buffer.from(stdout).equals(Buffer.from(bytes))).toBe(true);
      }

      // Anonymous: 404 from the server, nothing to follow.
      const anonymous = await fetch(path, { redirect: "manual" });
      expect(anonymous.status).toBe(404);
      expect(anonymous.headers.get("location")).toBeNull();

      const count = async () => {
        await flushDownloadCounts(live!.services.database.db);
        return Number(
          (
            await live!.services.database.db
              .selectFrom("release_file")
              .select("download_count")
              .where("filename", "=", FILE)
              .executeTakeFirstOrThrow()
          ).download_count,
        );
      };
      // manual, followed, curl: three whole downloads; the middle range is bytes only.
      await vi.waitFor(async () => expect(await count()).toBe(hasCurl ? 3 : 2));
    }, 60_000);
  },
);
