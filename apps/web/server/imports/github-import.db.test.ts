// Importing from GitHub Releases through the API, against a fake GitHub API at its HTTP boundary
// (test/fake-github.ts): releases with their titles and notes, assets as files (a .deb that
// apt-get then installs from the project's repository), drafts and prereleases, a re-run that
// adds only what is new, and each failure: a release whose asset answers 500 is absent entirely
// while the others arrive, a wrong token, a missing repository. Runs on SQLite and PostgreSQL.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImportInfo } from "@packyard/contract";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot } from "../../test/apt-client.ts";
import { type FakeGithub, type FakeRelease, startFakeGithub } from "../../test/fake-github.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";
import { importJob, queueImport, resumeUnfinishedImports } from "./run.ts";
import { createImportRow, updateImportRow } from "./store.ts";

const hasApt = requireTools(["apt-get", "apt-cache", "dpkg", "gpgv"]);
const bytes = (text: string) => new TextEncoder().encode(text);

function deb(name: string, version: string) {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} imported from GitHub
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

let github: FakeGithub;
let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
const releases: FakeRelease[] = [];

const json = { "content-type": "application/json" };

async function start(source: Record<string, unknown>, project = "tool"): Promise<Response> {
  return pub.api(`/api/v1/projects/${project}/imports`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ source }),
  });
}

/** An import of project "fourth" stored as running, as a server that stopped mid-import left it. */
async function runningImport(
  repository: string,
  options: { token: string | undefined; includePrereleases: boolean },
) {
  const db = server.services.database.db;
  const project = await db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "fourth")
    .executeTakeFirstOrThrow();
  const row = await createImportRow(db, {
    projectId: project.id,
    startedBy: pub.userId,
    source: { kind: "github-releases", repository, includeDrafts: false, ...options },
    serverSecret: server.services.config.secret,
  });
  await updateImportRow(db, row.id, { status: "running", startedAt: new Date().toISOString() });
  return row;
}

/** Starts an import and waits until it ended; its final state. */
async function imported(source: Record<string, unknown>, project = "tool"): Promise<ImportInfo> {
  const res = await start(source, project);
  expect(res.status, await res.clone().text()).toBe(202);
  const { import: queued } = (await res.json()) as { import: ImportInfo };
  expect(queued.status).toBe("queued");
  for (let i = 0; i < 600; i++) {
    const got = await pub.api(`/api/v1/projects/${project}/imports/${queued.id}`);
    expect(got.status).toBe(200);
    const { import: current } = (await got.json()) as { import: ImportInfo };
    if (["succeeded", "failed", "partial"].includes(current.status)) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`import ${queued.id} did not end`);
}

async function versions(project = "tool"): Promise<string[]> {
  const res = await pub.api(`/api/v1/projects/${project}/releases`);
  const body = (await res.json()) as { releases: { version: string }[] };
  return body.releases.map((r) => r.version).sort();
}

async function release(version: string, project = "tool") {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}`);
  return {
    status: res.status,
    body: (await res.json()) as {
      release: {
        title: string | null;
        notes: string | null;
        files: { filename: string; url: string; createdAt: string }[];
      };
    },
  };
}

beforeAll(async () => {
  github = await startFakeGithub();
  releases.push(
    {
      tag: "v1.0.0",
      name: "Hello 1.0",
      body: "The first release.\n\n- greets",
      publishedAt: "2024-01-01T00:00:00Z",
      assets: [
        { name: "hello_1.0.0_amd64.deb", bytes: deb("hello", "1.0.0") },
        { name: "hello-1.0.0.tar.gz", bytes: bytes("source of 1.0.0") },
      ],
    },
    {
      tag: "v1.1.0-rc.1",
      name: "Release candidate",
      prerelease: true,
      publishedAt: "2024-02-01T00:00:00Z",
      assets: [{ name: "hello-1.1.0-rc.1.tar.gz", bytes: bytes("rc") }],
    },
    {
      tag: "v1.2.0",
      name: "Broken download",
      publishedAt: "2024-03-01T00:00:00Z",
      assets: [
        { name: "hello-1.2.0.tar.gz", bytes: bytes("fine") },
        { name: "hello-1.2.0.zip", bytes: bytes("zip"), broken: true },
      ],
    },
    { tag: "v2.0.0", name: "Draft", draft: true, publishedAt: "2024-04-01T00:00:00Z", assets: [] },
  );
  github.repositories.set("acme/hello", { releases });
  github.repositories.set("acme/secret", {
    token: "ghp_right_token",
    releases: [
      { tag: "v0.9.0", name: "Private", publishedAt: "2024-01-01T00:00:00Z", assets: [] },
      { tag: "v4.0.0", name: "Draft", draft: true, publishedAt: "2024-02-01T00:00:00Z", assets: [] },
    ],
  });
  // The fake GitHub is on 127.0.0.1.
  server = await startLiveServer({ GITHUB_API_URL: github.url, WEBHOOK_ALLOW_PRIVATE: "true" });
  pub = await publisher(server, "importer");
  for (const slug of ["tool", "other", "third", "fourth"]) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ slug, name: slug }),
    });
    expect(res.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  await github?.close();
  removeTempDirs();
});

describe(`importing GitHub Releases (${databaseKind})`, () => {
  it("imports releases with titles, notes and assets; a release whose asset fails is absent entirely", async () => {
    const done = await imported({ kind: "github-releases", repository: "acme/hello" });
    expect(done.status).toBe("partial");
    expect(done.progress).toMatchObject({
      releasesTotal: 3,
      releasesDone: 2,
      releasesSkipped: 0,
      releasesFailed: 1,
      filesDone: 3,
    });
    expect(done.errors).toEqual([
      {
        version: "1.2.0",
        code: "SOURCE_UNREACHABLE",
        message: expect.stringMatching(/500/),
        subject: "hello-1.2.0.zip",
      },
    ]);
    expect(done.summary).toBe(
      "Imported 2 releases (3 files, 631 B); 1 failed: 1.2.0 — SOURCE_UNREACHABLE: GitHub answered 500 for hello-1.2.0.zip",
    );
    expect(done.source).toEqual({
      kind: "github-releases",
      repository: "acme/hello",
      includePrereleases: true,
      includeDrafts: false,
      authenticated: false,
    });
    expect(done.startedBy).toBe("importer");

    // The draft is not imported, the prerelease is, 1.2.0 not at all (not even its good file).
    expect(await versions()).toEqual(["1.0.0", "1.1.0-rc.1"]);
    expect((await release("1.2.0")).status).toBe(404);
    const first = (await release("1.0.0")).body.release;
    expect(first.title).toBe("Hello 1.0");
    expect(first.notes).toBe("The first release.\n\n- greets");
    expect(first.files.map((f) => f.filename)).toEqual(["hello-1.0.0.tar.gz", "hello_1.0.0_amd64.deb"]);
    const download = await fetch(first.files.find((f) => f.filename === "hello-1.0.0.tar.gz")!.url);
    expect(await download.text()).toBe("source of 1.0.0");

    // The .deb landed in the project's APT repository.
    const index = await fetch(`${server.url}/dl/importer/tool/deb/dists/stable/main/binary-amd64/Packages`);
    expect(await index.text()).toMatch(/^Package: hello\nVersion: 1\.0\.0$/m);
  });

  it.runIf(hasApt)("apt-get installs the imported .deb from the project's repository", async () => {
    const apt = aptRoot();
    const keyring = join(apt.root, "tool.gpg");
    writeFileSync(
      keyring,
      Buffer.from(await (await fetch(`${server.url}/dl/importer/tool/keyring.gpg`)).arrayBuffer()),
    );
    writeFileSync(
      join(apt.root, "etc/apt/sources.list"),
      `deb [signed-by=${keyring}] ${server.url}/dl/importer/tool/deb stable main\n`,
    );
    await apt.update();
    await apt.install("hello");
    const show = await apt.run("dpkg-query", `--admindir=${apt.root}/var/lib/dpkg`, "-W", "hello");
    expect(show.stdout.trim()).toBe("hello\t1.0.0");
  });

  it("a re-run adds only what is new: new releases, missing files, the release that failed before", async () => {
    const before = (await release("1.0.0")).body.release.files;
    releases.push({
      tag: "v1.3.0",
      name: "Newer",
      body: "Added later.",
      publishedAt: "2024-05-01T00:00:00Z",
      assets: [{ name: "hello-1.3.0.tar.gz", bytes: bytes("1.3.0") }],
    });
    releases[0]!.assets.push({ name: "SHA512SUMS", bytes: bytes("sums") });
    releases[2]!.assets[1]!.broken = false;

    const done = await imported({ kind: "github-releases", repository: "acme/hello" });
    expect(done.status).toBe("succeeded");
    expect(done.errors).toEqual([]);
    expect(done.progress).toMatchObject({
      releasesTotal: 4,
      releasesDone: 3,
      releasesSkipped: 1,
      filesDone: 4,
    });
    expect(done.summary).toMatch(/^Imported 3 releases \(4 files, [\d.]+ B\); skipped 1 already present$/);
    expect(await versions()).toEqual(["1.0.0", "1.1.0-rc.1", "1.2.0", "1.3.0"]);
    expect((await release("1.3.0")).body.release).toMatchObject({ title: "Newer", notes: "Added later." });
    expect((await release("1.2.0")).body.release.files.map((f) => f.filename)).toEqual([
      "hello-1.2.0.tar.gz",
      "hello-1.2.0.zip",
    ]);
    // 1.0.0 kept its files as they were and gained the missing one.
    const after = (await release("1.0.0")).body.release.files;
    expect(after.map((f) => f.filename)).toEqual([
      "SHA512SUMS",
      "hello-1.0.0.tar.gz",
      "hello_1.0.0_amd64.deb",
    ]);
    for (const file of before)
      expect(after.find((f) => f.filename === file.filename)?.createdAt).toBe(file.createdAt);

    // Nothing new: everything skipped.
    const again = await imported({ kind: "github-releases", repository: "acme/hello" });
    expect(again.status).toBe("succeeded");
    expect(again.summary).toMatch(/^Imported 0 releases \(0 files, 0 B\); skipped 4 already present$/);
  });

  it("leaves prereleases out when asked", async () => {
    const done = await imported(
      { kind: "github-releases", repository: "acme/hello", includePrereleases: false },
      "other",
    );
    expect(done.status).toBe("succeeded");
    expect(await versions("other")).toEqual(["1.0.0", "1.2.0", "1.3.0"]);
  });

  it("reads a private repository and its drafts with the right token, never answering with it", async () => {
    const done = await imported(
      { kind: "github-releases", repository: "acme/secret", token: "ghp_right_token", includeDrafts: true },
      "other",
    );
    expect(done.status).toBe("succeeded");
    expect(done.source).toMatchObject({ authenticated: true, includeDrafts: true });
    expect(await versions("other")).toEqual(["0.9.0", "1.0.0", "1.2.0", "1.3.0", "4.0.0"]);
    const list = await (await pub.api("/api/v1/projects/other/imports")).text();
    expect(list).not.toContain("ghp_right_token");
    // Kept sealed while the import ran, dropped when it ended.
    const rows = await server.services.database.db
      .selectFrom("import")
      .select(["credentials", "source"])
      .execute();
    for (const row of rows) {
      expect(row.credentials).toBeNull();
      expect(row.source).not.toContain("ghp_right_token");
    }
  });

  it("fails clearly: a wrong token, a missing repository", async () => {
    const wrong = await imported({ kind: "github-releases", repository: "acme/secret", token: "ghp_wrong" });
    expect(wrong.status).toBe("failed");
    expect(wrong.errors).toEqual([
      {
        version: null,
        code: "SOURCE_AUTH_FAILED",
        message: expect.stringMatching(/refused the token/),
        subject: "acme/secret",
      },
    ]);
    expect(wrong.summary).toMatch(/^Import failed: SOURCE_AUTH_FAILED — GitHub refused the token/);

    const missing = await imported({ kind: "github-releases", repository: "acme/nowhere" });
    expect(missing.status).toBe("failed");
    expect(missing.errors[0]).toMatchObject({ version: null, code: "SOURCE_NOT_FOUND" });
    expect(missing.summary).toMatch(/no public repository acme\/nowhere/);

    // A repository nothing answers at fails like any other source would.
    const apt = await imported({
      kind: "apt-repository",
      url: "http://127.0.0.1:1/",
      distribution: "stable",
    });
    expect(apt.status).toBe("failed");
    expect(apt.errors[0]).toMatchObject({ code: "SOURCE_UNREACHABLE" });
  });

  it("fails each release that cannot be imported whole, with its code, and keeps nothing of it", async () => {
    github.repositories.set("acme/bad", {
      releases: [
        {
          tag: "v1.0.0",
          publishedAt: "2024-01-01T00:00:00Z",
          assets: [{ name: "-oops.tar.gz", bytes: bytes("x") }],
        },
        {
          tag: "v2.0.0",
          publishedAt: "2024-02-01T00:00:00Z",
          assets: [{ name: "short.tar.gz", bytes: bytes("abc"), statedSize: 99 }],
        },
        {
          tag: "v3.0.0",
          publishedAt: "2024-03-01T00:00:00Z",
          assets: [
            { name: "readme.txt", bytes: bytes("fine") },
            { name: "broken_3.0.0_amd64.deb", bytes: bytes("not a deb") },
          ],
        },
        { tag: "v4 beta", publishedAt: "2024-04-01T00:00:00Z", assets: [] },
      ],
    });
    const done = await imported({ kind: "github-releases", repository: "acme/bad" }, "third");
    expect(done.status).toBe("failed");
    expect(done.errors.map((e) => [e.version, e.code, e.subject])).toEqual([
      ["1.0.0", "FILE_REFUSED", "-oops.tar.gz"],
      ["2.0.0", "CHECKSUM_MISMATCH", "short.tar.gz"],
      ["3.0.0", "FILE_REFUSED", "broken_3.0.0_amd64.deb"],
      ["4 beta", "SOURCE_INVALID", "4 beta"],
    ]);
    expect(done.errors[0]!.message).toBe("-oops.tar.gz: Filename may not start with . or -");
    expect(done.errors[2]!.message).toMatch(/^broken_3\.0\.0_amd64\.deb: .*\(DEB_[A-Z_]+\)$/);
    expect(done.summary).toMatch(/^Imported 0 releases \(0 files, 0 B\); 4 failed: 1\.0\.0 — FILE_REFUSED/);
    // 3.0.0 was created and its readme uploaded before the .deb was refused: both are gone.
    expect(await versions("third")).toEqual([]);
  });

  it("an import a crash left running resumes: what arrived before is kept, the rest is imported", async () => {
    // The crash came while 1.0.0 was being uploaded: the release is there with one of its files.
    const put = await pub.api("/api/v1/projects/fourth/releases/1.0.0/files/hello-1.0.0.tar.gz", {
      method: "PUT",
      body: "source of 1.0.0",
    });
    expect(put.status).toBe(201);
    const db = server.services.database.db;
    const row = await runningImport("acme/hello", { token: undefined, includePrereleases: false });
    // What a restarted server does: SQLite queues unfinished imports at start-up; on PostgreSQL
    // pg-boss retries the job, which is the same job sent again.
    if (server.services.jobs.engine === "in-process")
      await resumeUnfinishedImports(db, server.services.jobs, server.services.logger);
    else await queueImport(server.services.jobs, row.id);

    let done: ImportInfo | undefined;
    for (let i = 0; i < 600 && !done; i++) {
      const { import: current } = (await (
        await pub.api(`/api/v1/projects/fourth/imports/${row.id}`)
      ).json()) as {
        import: ImportInfo;
      };
      if (current.status !== "running" && current.status !== "queued") done = current;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(done?.status).toBe("succeeded");
    expect(done?.progress).toMatchObject({ releasesDone: 3, releasesSkipped: 0 });
    expect(await versions("fourth")).toEqual(["1.0.0", "1.2.0", "1.3.0"]);
    expect((await release("1.0.0", "fourth")).body.release.files.map((f) => f.filename)).toEqual([
      "SHA512SUMS",
      "hello-1.0.0.tar.gz",
      "hello_1.0.0_amd64.deb",
    ]);
  });

  it("an import whose every attempt failed ends as failed, saying why, and forgets its token", async () => {
    const db = server.services.database.db;
    const row = await runningImport("acme/private", { token: "ghp_secret", includePrereleases: true });
    // What the job queue does after the last attempt failed.
    const job = importJob({ ...server.services, db });
    await job.giveUp!({ importId: row.id }, new Error("sorry, too many clients already"));

    const { import: ended } = (await (await pub.api(`/api/v1/projects/fourth/imports/${row.id}`)).json()) as {
      import: ImportInfo;
    };
    expect(ended.status).toBe("failed");
    expect(ended.errors).toEqual([
      {
        version: null,
        code: "INTERNAL_ERROR",
        message: "The import stopped after 4 attempts: sorry, too many clients already",
        subject: null,
      },
    ]);
    expect(ended.summary).toBe(
      "Import failed: INTERNAL_ERROR — The import stopped after 4 attempts: sorry, too many clients already",
    );
    expect(ended.finishedAt).not.toBeNull();
    const stored = await db
      .selectFrom("import")
      .select("credentials")
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(stored.credentials).toBeNull();
  });

  it("checks the request and who may import", async () => {
    const bad = await start({ kind: "github-releases", repository: "not a repo", includeDrafts: true });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; details?: Record<string, string> } };
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(Object.values(body.error.details ?? {}).join(" ")).toMatch(/owner\/repo/);
    const drafts = await start({ kind: "github-releases", repository: "acme/hello", includeDrafts: true });
    expect(
      ((await drafts.json()) as { error: { details?: Record<string, string> } }).error.details,
    ).toMatchObject({
      "source.includeDrafts": "Drafts are only visible with a token: give one, or leave drafts out",
    });
    expect((await start({ kind: "svn" })).status).toBe(400);

    const readKey = await pub.key({ projects: "*", access: "read" });
    const refused = await fetch(`${server.url}/api/v1/projects/tool/imports`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${readKey}` },
      body: JSON.stringify({ source: { kind: "github-releases", repository: "acme/hello" } }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("KEY_SCOPE");
    const listed = await fetch(`${server.url}/api/v1/projects/tool/imports`, {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(listed.status).toBe(200);
    const { imports } = (await listed.json()) as { imports: ImportInfo[] };
    expect(imports.length).toBeGreaterThanOrEqual(4);
    expect(imports[0]!.createdAt >= imports.at(-1)!.createdAt).toBe(true);
    expect(
      (
        await fetch(`${server.url}/api/v1/projects/tool/imports/nope`, {
          headers: { authorization: `Bearer ${readKey}` },
        })
      ).status,
    ).toBe(404);
  });
});
