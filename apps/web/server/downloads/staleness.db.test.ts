// The serving cache is never stale: each download below is asked twice first, so the second
// answer comes from the cache (the fast path of downloads/fast-dl.ts for anonymous requests), then the
// state changes through the API and the very next request must see the change — a yank, a file
// deleted, a project made private, an API key revoked, a new publish. On SQLite and PostgreSQL.
// And download counts held in memory survive a SIGTERM.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestDeb } from "../../../../packages/formats/src/deb/test-deb-builder.ts";
import { createPostgresDatabase, databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { signedInCliUser, startServerProcess } from "../../test/server-process.ts";
import { servingCachesOf } from "./serve-cache.ts";

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function createProject(slug: string, visibility = "public") {
  const res = await pub.api("/api/v1/projects", json({ slug, name: slug, visibility }));
  expect(res.status).toBe(201);
  return ((await res.json()) as { project: { id: string } }).project.id;
}

async function put(slug: string, version: string, filename: string, body: Uint8Array | string) {
  const res = await pub.api(`/api/v1/projects/${slug}/releases/${version}/files/${filename}`, {
    method: "PUT",
    body: body as BodyInit,
  });
  expect(res.status).toBe(201);
}

/** GET as anonymous (or with headers); status and body text. */
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** Asked twice, so the cache holds the answer (the first request fills it). */
async function warm(path: string, headers: Record<string, string> = {}) {
  const first = await get(path, headers);
  const second = await get(path, headers);
  expect(second.status).toBe(first.status);
  return second;
}

function deb(name: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: 1.0.0
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for the serving cache test
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

beforeAll(async () => {
  server = await startLiveServer();
  pub = await publisher(server, "cacher");
});
afterAll(async () => {
  await server?.close();
});

describe(`the serving cache (${databaseKind})`, () => {
  it("is on, and answers a repeated anonymous download from memory", async () => {
    await createProject("warm");
    await put("warm", "1.0.0", "tool.txt", "tool 1.0.0");
    const caches = servingCachesOf(server.services.database.db);
    await expect.poll(() => caches.rows.enabled).toBe(true);
    expect((await warm("/dl/cacher/warm/releases/1.0.0/tool.txt")).body.toString()).toBe("tool 1.0.0");
    expect(caches.rows.size).toBeGreaterThan(0);
  });

  it("a yank moves latest at once; a deleted file is gone at once", async () => {
    await createProject("moving");
    await put("moving", "1.0.0", "tool.txt", "tool 1.0.0");
    await put("moving", "1.1.0", "tool.txt", "tool 1.1.0");
    const latest = "/dl/cacher/moving/releases/latest/tool.txt";
    expect((await warm(latest)).body.toString()).toBe("tool 1.1.0");

    const yank = await pub.api("/api/v1/projects/moving/releases/1.1.0/yank", json({ reason: "broken" }));
    expect(yank.status).toBe(200);
    expect((await get(latest)).body.toString()).toBe("tool 1.0.0");

    const fixed = "/dl/cacher/moving/releases/1.0.0/tool.txt";
    expect((await warm(fixed)).status).toBe(200);
    const deleted = await pub.api("/api/v1/projects/moving/releases/1.0.0/files/tool.txt", {
      method: "DELETE",
    });
    expect(deleted.status).toBe(204);
    expect((await get(fixed)).status).toBe(404);
    expect((await get(latest)).status).toBe(404);
  });

  it("a project made private answers 404 to anonymous at once, and to a revoked key", async () => {
    await createProject("closing");
    await put("closing", "1.0.0", "tool.txt", "tool");
    const path = "/dl/cacher/closing/releases/1.0.0/tool.txt";
    expect((await warm(path)).status).toBe(200);

    const patch = await pub.api("/api/v1/projects/closing", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visibility: "private" }),
    });
    expect(patch.status).toBe(200);
    expect((await get(path)).status).toBe(404);

    // A read key, as apt sends it (HTTP Basic), then revoked.
    const token = await pub.key({ projects: "*", access: "read" });
    const basic = { authorization: `Basic ${Buffer.from(`cacher:${token}`).toString("base64")}` };
    expect((await warm(path, basic)).status).toBe(200);
    const keys = (await (await pub.api("/api/v1/keys")).json()) as { keys: { id: string; name: string }[] };
    const readKey = keys.keys.find((k) => k.name === "read key")!;
    const revoked = await pub.api(`/api/v1/keys/${readKey.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    expect((await get(path, basic)).status).toBe(401);
  });

  it("a new publish is served at once: Packages, its InRelease and the new pool file", async () => {
    const projectId = await createProject("repo");
    await put("repo", "1.0.0", "first_1.0.0_amd64.deb", deb("first"));
    await server.services.repos.publish(projectId);
    const packagesGz = "/dl/cacher/repo/deb/dists/stable/main/binary-amd64/Packages.gz";
    const inRelease = "/dl/cacher/repo/deb/dists/stable/InRelease";
    const listed = (gz: Buffer) =>
      gunzipSync(gz)
        .toString()
        .match(/^Package: .*$/gm);
    expect(listed((await warm(packagesGz)).body)).toEqual(["Package: first"]);
    const before = (await warm(inRelease)).body.toString();

    await put("repo", "2.0.0", "second_1.0.0_amd64.deb", deb("second"));
    await server.services.repos.publish(projectId);
    expect(listed((await get(packagesGz)).body)?.sort()).toEqual(["Package: first", "Package: second"]);
    const after = (await get(inRelease)).body.toString();
    expect(after).not.toBe(before);
    const pool = /^Filename: (.*second.*)$/m.exec(gunzipSync((await get(packagesGz)).body).toString())![1]!;
    expect((await get(`/dl/cacher/repo/deb/${pool}`)).status).toBe(200);

    // The InRelease answer the fast path keeps per URL goes with its project.
    expect((await warm(inRelease)).body.toString()).toBe(after);
    expect((await get(inRelease)).body.toString()).toBe(after);
    expect((await pub.api("/api/v1/projects/repo", { method: "DELETE" })).status).toBe(204);
    expect((await get(inRelease)).status).toBe(404);
  });
});

describe.runIf(databaseKind === "postgres")("the serving cache across processes (postgres)", () => {
  it("a yank made by another server process reaches this one's cache by notification", async () => {
    await createProject("shared");
    await put("shared", "1.0.0", "tool.txt", "tool 1.0.0");
    await put("shared", "1.1.0", "tool.txt", "tool 1.1.0");
    const latest = "/dl/cacher/shared/releases/latest/tool.txt";
    expect((await warm(latest)).body.toString()).toBe("tool 1.1.0");
    const database = server.services.config.database;
    const other = await startLiveServer({ DATABASE_URL: database.kind === "postgres" ? database.url : "" });
    try {
      const yank = await fetch(`${other.url}/api/v1/projects/shared/releases/1.1.0/yank`, {
        ...json({ reason: "broken" }),
        headers: { "content-type": "application/json", authorization: `Bearer ${pub.token}` },
      });
      expect(yank.status).toBe(200);
      // The notification arrives after the other process's commit: within milliseconds.
      await expect.poll(async () => (await get(latest)).body.toString(), { interval: 20 }).toBe("tool 1.0.0");
    } finally {
      await other.close();
    }
  });
});

describe(`download counts and request log lines (${databaseKind})`, () => {
  it("counted in memory, they are written when the server stops on SIGTERM; no log line is lost", async () => {
    const pg = databaseKind === "postgres" ? await createPostgresDatabase() : undefined;
    // Request lines at info: written in batches (logger.ts), the last ones when the process exits.
    const env: Record<string, string> = { LOG_LEVEL: "info", ...(pg ? { DATABASE_URL: pg.url } : {}) };
    try {
      let proc = await startServerProcess(env);
      const owner = await publisherOf(proc.url, proc.dataDir, true, pg?.url);
      const created = await fetch(`${proc.url}/api/v1/projects`, {
        ...json({ slug: "counted", name: "counted", visibility: "public" }),
        headers: { "content-type": "application/json", ...owner },
      });
      expect(created.status).toBe(201);
      const upload = await fetch(`${proc.url}/api/v1/projects/counted/releases/1.0.0/files/tool.txt`, {
        method: "PUT",
        body: "tool",
        headers: owner,
      });
      expect(upload.status).toBe(201);
      for (let i = 0; i < 7; i++) {
        const res = await fetch(`${proc.url}/dl/${OWNER}/counted/releases/1.0.0/tool.txt`);
        expect(await res.text()).toBe("tool");
      }
      // An APT index: the second and later answers come from memory (fast-dl.ts's sendIndex).
      const debUpload = await fetch(
        `${proc.url}/api/v1/projects/counted/releases/1.0.0/files/counted_1.0.0_amd64.deb`,
        { method: "PUT", body: deb("counted") as BodyInit, headers: owner },
      );
      expect(debUpload.status).toBe(201);
      const inRelease = `/dl/${OWNER}/counted/deb/dists/stable/InRelease`;
      const indexAnswers: { id: string | null; bytes: number }[] = [];
      for (let i = 0; indexAnswers.length < 5; i++) {
        const res = await fetch(`${proc.url}${inRelease}`);
        const body = await res.arrayBuffer();
        if (res.status === 200)
          indexAnswers.push({ id: res.headers.get("x-request-id"), bytes: body.byteLength });
        else if (i > 200) throw new Error(`InRelease: ${res.status}`);
        else await new Promise((r) => setTimeout(r, 50)); // published in the background
      }
      // Stopped at once: the counts are in memory (written every 2 s), not yet in the database.
      expect(await proc.stop()).toBe(0);
      const requests = proc
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => JSON.parse(line) as { reqId: string; path?: string; status: number; bytes: number });
      const downloads = requests.filter(
        (line) => line.path === `/dl/${OWNER}/counted/releases/1.0.0/tool.txt`,
      );
      expect(downloads.map((line) => [line.status, line.bytes])).toEqual(Array(7).fill([200, 4]));
      // Each index answer logged once, with its request id and every byte it sent.
      expect(
        requests
          .filter((line) => line.path === inRelease && line.status === 200)
          .map((line) => ({ id: line.reqId, bytes: line.bytes })),
      ).toEqual(indexAnswers);
      proc = await startServerProcess({ ...env, DATA_DIR: proc.dataDir });
      try {
        const again = await publisherOf(proc.url, proc.dataDir, false);
        const stats = await fetch(`${proc.url}/api/v1/projects/counted/stats`, { headers: again });
        expect(stats.status).toBe(200);
        expect(
          ((await stats.json()) as { stats: { total: { downloads: number } } }).stats.total.downloads,
        ).toBe(7);
      } finally {
        await proc.stop();
      }
    } finally {
      await pg?.drop();
    }
  });
});

const OWNER = "counter";

/** The owner's session (made with the self-hoster CLI on first use, signed in again after). */
async function publisherOf(
  url: string,
  dataDir: string,
  create = true,
  databaseUrl?: string,
): Promise<Record<string, string>> {
  if (create) {
    // The CLI reads the same database as the server.
    if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
    try {
      const { cookie, origin } = await signedInCliUser({ url, dataDir }, OWNER);
      return { cookie, origin };
    } finally {
      delete process.env.DATABASE_URL;
    }
  }
  const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: `${OWNER}@example.com`, password: "a long test password" }),
  });
  expect(signIn.ok).toBe(true);
  const cookie = signIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { cookie, origin: url };
}
