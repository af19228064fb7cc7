// Uploads and downloads through the API, in memory: immutability, name rules, size limits,
// Range / ETag / 304, download counting, SHA256SUMS and "latest".
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, onboardedUser, type TestApp } from "../../test/harness.ts";
import { collectLeftovers } from "../maintenance.ts";
import { StorageFullError } from "../platform/storage/blob-store.ts";

let app: TestApp;
let cookie: string;
const base = "/api/v1/projects/tool/releases";
const sha256 = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

beforeAll(async () => {
  app = await createTestApp({ MAX_UPLOAD_BYTES: "1000" });
  ({ cookie } = await onboardedUser(app, "maker"));
  const res = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "tool", name: "Tool" }),
    cookie,
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

const put = (version: string, filename: string, body: BodyInit, headers: Record<string, string> = {}) =>
  app.request(`${base}/${version}/files/${filename}`, { method: "PUT", body, headers, cookie });

async function counts() {
  const db = app.services.database.db;
  const files = await db
    .selectFrom("release_file")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const blobs = await db
    .selectFrom("blob")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const onDisk = readdirSync(app.services.config.blobDir, { recursive: true, withFileTypes: true }).filter(
    (d) => d.isFile(),
  ).length;
  return { files: Number(files.n), blobs: Number(blobs.n), onDisk };
}

describe(`uploads (${databaseKind})`, () => {
  it("PUT streams a file into a new release and reports its hashes", async () => {
    const res = await put("1.0.0", "tool-linux-amd64", "#!/bin/sh\necho tool\n");
    expect(res.status).toBe(201);
    const { file } = await res.json();
    expect(file).toMatchObject({
      filename: "tool-linux-amd64",
      size: 20,
      sha256: sha256("#!/bin/sh\necho tool\n"),
      kind: "binary",
      downloads: 0,
      url: "http://localhost:3000/dl/maker/tool/releases/1.0.0/tool-linux-amd64",
    });
    expect(file.sha512).toHaveLength(128);
    const release = await (await app.request(`${base}/1.0.0`, { cookie })).json();
    expect(release.release.id).toMatch(/^[A-Za-z0-9]{8}$/);
  });

  it("refuses a duplicate filename with 409 and keeps the original", async () => {
    const before = await counts();
    const res = await put("1.0.0", "tool-linux-amd64", "different content");
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("FILE_EXISTS");
    const files = (await (await app.request(`${base}/1.0.0/files`, { cookie })).json()).files;
    expect(files[0].sha256).toBe(sha256("#!/bin/sh\necho tool\n"));
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["a%2Fb", "/"],
    ["%00evil", "control"],
    ["line%0Abreak", "control"],
    ["esc%1B", "control"],
    [".hidden", "start with"],
    ["-rf", "start with"],
    ["SHA256SUMS", "generated"],
  ])("refuses the filename %s with 400 INVALID_FILENAME", async (name, message) => {
    const before = await counts();
    const res = await put("1.0.0", name, "x");
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe("INVALID_FILENAME");
    expect(error.message).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it("refuses '..' sent as a multipart filename", async () => {
    await app.request(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version: "mp" }),
      cookie,
    });
    const form = new FormData();
    form.append("file", new Blob(["x"]), "..");
    const res = await app.request(`${base}/mp/files`, { method: "POST", body: form, cookie });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("INVALID_FILENAME");
  });

  it("uploads several files in one multipart request", async () => {
    const form = new FormData();
    form.append("file", new Blob(["first file"]), "first.txt");
    form.append("file", new Blob(["second file"]), "second.zip");
    const res = await app.request(`${base}/mp/files`, { method: "POST", body: form, cookie });
    expect(res.status).toBe(201);
    const { files } = await res.json();
    expect(files.map((f: { filename: string; kind: string }) => [f.filename, f.kind])).toEqual([
      ["first.txt", "other"],
      ["second.zip", "archive"],
    ]);
  });

  it("refuses a declared size over the limit before reading, with 413 and nothing stored", async () => {
    const before = await counts();
    const res = await put("1.0.0", "big.bin", "x".repeat(2000), { "content-length": "2000" });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await counts()).toEqual(before);
  });

  it("refuses a streamed body that grows over the limit, with 413 and nothing stored", async () => {
    const before = await counts();
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(100));
        controller.close();
      },
    });
    const res = await app.request(`${base}/1.0.0/files/streamed.bin`, {
      method: "PUT",
      body,
      cookie,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await counts()).toEqual(before);
    expect(readdirSync(join(app.services.config.blobDir, "tmp"))).toEqual([]);
  });

  it("answers a full disk with 507 INSUFFICIENT_STORAGE and stores nothing", async () => {
    const before = await counts();
    const stage = app.services.blobs.stage;
    // The disk fills up while the body is being written.
    app.services.blobs.stage = async (body, options) => {
      const staged = await stage(body, options);
      await staged.discard();
      throw new StorageFullError(
        Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }),
      );
    };
    try {
      const res = await put("1.0.0", "full.bin", "will not fit");
      expect(res.status).toBe(507);
      expect((await res.json()).error).toEqual({
        code: "INSUFFICIENT_STORAGE",
        message: "The server is out of disk space",
      });
    } finally {
      app.services.blobs.stage = stage;
    }
    expect(await counts()).toEqual(before);
  });

  it("stores identical content once and frees it when the last file goes", async () => {
    await put("dedupe", "a.bin", "same bytes");
    await put("dedupe", "b.bin", "same bytes");
    const withBoth = await counts();
    await app.request(`${base}/dedupe/files/a.bin`, { method: "DELETE", cookie });
    expect((await counts()).onDisk).toBe(withBoth.onDisk);
    await app.request(`${base}/dedupe/files/b.bin`, { method: "DELETE", cookie });
    // The last file's rows are gone; its bytes go with the sweep after the grace (decision 022).
    expect(await counts()).toEqual({ ...withBoth, files: withBoth.files - 2 });
    expect((await collectLeftovers(app.services, 0)).unreferencedBlobs).toBe(1);
    const after = await counts();
    expect(after.onDisk).toBe(withBoth.onDisk - 1);
    expect(after.blobs).toBe(withBoth.blobs - 1);
  });

  it("validates JSON bodies with field messages", async () => {
    const res = await app.request(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version: "has space" }),
      cookie,
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({
      code: "VALIDATION_FAILED",
      details: { version: "Version may contain only letters, digits and . + ~ _ -" },
    });
    const dup = await app.request(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ version: "1.0.0" }),
      cookie,
    });
    expect(dup.status).toBe(409);
    expect((await dup.json()).error.code).toBe("VERSION_EXISTS");
    const bad = await app.request(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
      cookie,
    });
    expect(bad.status).toBe(400);
  });
});

describe(`downloads (${databaseKind})`, () => {
  const url = "/dl/maker/tool/releases/1.0.0/tool-linux-amd64";
  const content = "#!/bin/sh\necho tool\n";
  const downloads = async () =>
    (await (await app.request(`${base}/1.0.0/files`, { cookie })).json()).files.find(
      (f: { filename: string }) => f.filename === "tool-linux-amd64",
    ).downloads;

  it("serves the file with type, length, strong ETag and Last-Modified, and counts it", async () => {
    const before = await downloads();
    const res = await app.request(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(content);
    expect(res.headers.get("content-length")).toBe(String(content.length));
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("etag")).toBe(`"${sha256(content)}"`);
    expect(new Date(res.headers.get("last-modified")!).getTime()).toBeGreaterThan(0);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(await downloads()).toBe(before + 1);
  });

  it("answers HEAD without a body and without counting", async () => {
    const before = await downloads();
    const res = await app.request(url, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(content.length));
    expect(await res.text()).toBe("");
    expect(await downloads()).toBe(before);
  });

  it("answers If-None-Match with 304", async () => {
    const before = await downloads();
    const res = await app.request(url, { headers: { "if-none-match": `W/"nope", "${sha256(content)}"` } });
    expect(res.status).toBe(304);
    expect(res.headers.get("etag")).toBe(`"${sha256(content)}"`);
    expect(await downloads()).toBe(before);
  });

  it.each([
    ["bytes=0-8", 206, "#!/bin/sh", "bytes 0-8/20"],
    ["bytes=10-", 206, "echo tool\n", "bytes 10-19/20"],
    ["bytes=-5", 206, "tool\n", "bytes 15-19/20"],
    ["bytes=15-100", 206, "tool\n", "bytes 15-19/20"],
  ])("serves Range %s with %i", async (range, status, body, contentRange) => {
    const res = await app.request(url, { headers: { range } });
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(body);
    expect(res.headers.get("content-range")).toBe(contentRange);
    expect(res.headers.get("content-length")).toBe(String(body.length));
  });

  it("answers an unsatisfiable Range with 416", async () => {
    const res = await app.request(url, { headers: { range: "bytes=20-30" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */20");
  });

  it("counts a ranged download only when it reaches the last byte", async () => {
    // A count is written once its response has ended: earlier tests' may still be on the way.
    const settled = async () => {
      let last = await downloads();
      for (;;) {
        await new Promise((r) => setTimeout(r, 150));
        const now = await downloads();
        if (now === last) return now;
        last = now;
      }
    };
    const before = await settled();
    await (await app.request(url, { headers: { range: "bytes=0-4" } })).text();
    expect(await settled()).toBe(before);
    await (await app.request(url, { headers: { range: "bytes=5-" } })).text();
    expect(await settled()).toBe(before + 1);
  });

  it("serves SHA256SUMS for the release, revalidated since adding a file changes it", async () => {
    const url = "/dl/maker/tool/releases/1.0.0/SHA256SUMS";
    const res = await app.request(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`${sha256(content)}  tool-linux-amd64\n`);
    // Not "immutable" like the files of a fixed version: the list grows with the release.
    expect(res.headers.get("cache-control")).toBe("public, max-age=30, must-revalidate");
    const etag = res.headers.get("etag")!;
    expect((await app.request(url, { headers: { "if-none-match": etag } })).status).toBe(304);
    await put("1.0.0", "tool-linux-arm64", "another build");
    const grown = await app.request(url, { headers: { "if-none-match": etag } });
    expect(grown.status).toBe(200);
    expect(await grown.text()).toContain("tool-linux-arm64");
  });

  it("moves latest past yanked releases and back on unyank", async () => {
    await put("2.0.0", "tool-linux-amd64", "version two");
    const latest = () => app.request("/dl/maker/tool/releases/latest/tool-linux-amd64").then((r) => r.text());
    const latestApi = () => app.request("/api/p/maker/tool/latest").then((r) => r.json());
    expect(await latest()).toBe("version two");
    expect((await latestApi()).release.version).toBe("2.0.0");
    const yank = await app.request(`${base}/2.0.0/yank`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken build" }),
      cookie,
    });
    expect((await yank.json()).release).toMatchObject({ yanked: true, yankedReason: "broken build" });
    // mp and dedupe were created after 1.0.0 and before 2.0.0: latest is the newest unyanked.
    expect((await latestApi()).release.version).toBe("dedupe");
    // A yanked release's files stay downloadable by exact URL.
    expect(await app.request("/dl/maker/tool/releases/2.0.0/tool-linux-amd64").then((r) => r.text())).toBe(
      "version two",
    );
    const list = await (await app.request("/api/p/maker/tool")).json();
    expect(list.releases.find((r: { version: string }) => r.version === "2.0.0")).toMatchObject({
      yanked: true,
    });
    await app.request(`${base}/2.0.0/unyank`, { method: "POST", cookie });
    expect(await latest()).toBe("version two");
  });

  it("answers 404 for latest when every release is yanked or none exists", async () => {
    await app.request("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug: "empty", name: "Empty" }),
      cookie,
    });
    const res = await app.request("/api/p/maker/empty/latest");
    expect(res.status).toBe(404);
    const project = await app.request("/api/p/maker/empty");
    expect(project.status).toBe(200);
    expect((await project.json()).releases).toEqual([]);
  });
});
