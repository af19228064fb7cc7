// The running server's APT builder keeps each suite's indexes, blocks and hash midstates between
// publishes and applies only what changed (suite-indexes.ts, decision 042). After every kind of
// change — an upload, a yank and unyank, a file and a release deleted, the same package uploaded
// again in a newer release, Architecture: all, another suite and another component — what it
// publishes is byte for byte what a builder starting from nothing publishes. The server's
// builder stores Packages.xz's changed blocks and compresses them after the publish (decision
// 049): its Packages.xz holds the same text, and Release lists the file it made; every other
// file is byte for byte the same.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { isStoredXzBlock } from "@packyard/formats/compress/xz-stored.ts";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../../test/harness.ts";
import { aptReleaseSettings } from "../../projects/repository-settings.ts";
import { MemoryBudget } from "../../repositories/memory-budget.ts";
import type { FormatBuilder } from "../../repositories/publisher.ts";
import { createAptBuilder } from "./builder.ts";
import { splitXzStream } from "./xz-blocks.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let app: TestApp;
let auth: Record<string, string>;
let projectId: string;

function deb(name: string, version: string, arch: string) {
  return buildTestDeb({
    control: `Package: ${name}\nVersion: ${version}\nArchitecture: ${arch}\nMaintainer: Tests <t@example.com>\nDescription: ${name}\n one script\n`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name} ${version}\n` }],
  });
}

async function upload(
  release: string,
  name: string,
  options: { version?: string; arch?: string; query?: string } = {},
) {
  const version = options.version ?? "1.0.0";
  const arch = options.arch ?? "amd64";
  const res = await app.request(
    `/api/v1/projects/steps/releases/${release}/files/${name}_${version}_${arch}.deb${options.query ?? ""}`,
    { method: "PUT", headers: auth, body: Buffer.from(deb(name, version, arch)) },
  );
  expect(res.status).toBe(201);
}

const post = (path: string, body?: unknown) =>
  app.request(`/api/v1/projects/steps/releases/${path}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const remove = (path: string) =>
  app.request(`/api/v1/projects/steps/releases/${path}`, { method: "DELETE", headers: auth });

/** One signing time for both builders: set once the project (and its key) exists. */
let date: Date;
/** Kept for the whole test, like the server's: its memory follows every change. */
const kept = createAptBuilder(new MemoryBudget(64 * 1024 * 1024), { thread: null, xzStoredUpTo: 0 });
/** The same, storing Packages.xz's changed blocks as the server does. */
const storing = createAptBuilder(new MemoryBudget(64 * 1024 * 1024), { thread: null });
/** Stored xz blocks in what `storing` built: the scenario must meet some. */
let storedBlocks = 0;

function unxz(bytes: Uint8Array): Buffer {
  const out = spawnSync("xz", ["-dc"], { input: bytes });
  expect(out.status, out.stderr.toString()).toBe(0);
  return out.stdout;
}

/**
 * The files a build makes: path → sha256 (Release: its text). With `xzText`, a Packages.xz is
 * named by the text it decompresses to, after checking that Release lists it as it is, and
 * Release's lines for it are left out.
 */
async function build(builder: FormatBuilder, xzText = false) {
  const db = app.services.database.db;
  const project = await db
    .selectFrom("project")
    .selectAll()
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  const { signers } = await app.services.keys.active(project, date);
  const repositories = await builder.build({
    db,
    project: { ...project, username: "stepper", apt: aptReleaseSettings(project, "stepper") },
    keys: app.services.keys,
    signers,
    date,
    published: ["stable", "testing"],
  });
  const out: Record<string, string> = {};
  for (const { name, files, listed } of repositories) {
    const release = Buffer.from(files.get("Release")!).toString();
    // Signatures are salted (OpenPGP.js): Release, which they sign, is compared instead.
    for (const [path, bytes] of files) {
      if (path === "InRelease" || path === "Release.gpg") continue;
      if (xzText && path.endsWith(".xz")) {
        expect(release).toContain(` ${sha256(bytes)} ${bytes.byteLength} ${path}\n`);
        storedBlocks += splitXzStream(Buffer.from(bytes)).filter((b) => isStoredXzBlock(b.block)).length;
        out[`${name}/${path}`] = `text ${sha256(unxz(bytes))}`;
      } else
        out[`${name}/${path}`] =
          path !== "Release"
            ? sha256(bytes)
            : xzText
              ? release.replace(/^ \S+ +\d+ \S+\.xz\n/gm, "")
              : release;
    }
    for (const entry of listed ?? []) out[`${name}/${entry.path}`] = JSON.stringify(entry);
  }
  return out;
}

/** The long-lived builders publish what a builder starting from nothing publishes. */
async function expectSameAsFresh(): Promise<Record<string, string>> {
  const scratch = () =>
    createAptBuilder(new MemoryBudget(64 * 1024 * 1024), { thread: null, xzStoredUpTo: 0 });
  const incremental = await build(kept);
  const fresh = await build(scratch());
  expect(Object.keys(incremental).sort()).toEqual(Object.keys(fresh).sort());
  for (const path of Object.keys(fresh)) expect(incremental[path], path).toBe(fresh[path]);
  const stored = await build(storing, true);
  const freshText = await build(scratch(), true);
  expect(Object.keys(stored).sort()).toEqual(Object.keys(freshText).sort());
  for (const path of Object.keys(freshText)) expect(stored[path], path).toBe(freshText[path]);
  // Its stored blocks compressed before the next change, as on a server between publishes.
  await storing.settled();
  return incremental;
}

describe(`incremental APT builds equal builds from scratch (${databaseKind})`, () => {
  beforeAll(async () => {
    app = await createTestApp();
    ({ auth } = await publishingProject(app, "stepper", "steps"));
    projectId = (
      await app.services.database.db
        .selectFrom("project")
        .select("id")
        .where("slug", "=", "steps")
        .executeTakeFirstOrThrow()
    ).id;
    date = new Date(Date.now() + 1000);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it("after uploads, yanks, deletes, re-adds, Architecture: all, other suites and components", async () => {
    const check = async () => {
      const built = await expectSameAsFresh();
      return built;
    };
    // pkg-004, pkg-127 and pkg-141 start blocks (their names hash to 0 modulo 32).
    for (let i = 0; i < 40; i++) await upload("1.0.0", `pkg-${String(i).padStart(3, "0")}`);
    const first = await check();
    expect(Object.keys(first)).toContain("stable/main/binary-amd64/Packages.gz");
    await upload("1.1.0", "aaa-first");
    await check();
    await upload("1.1.0", "pkg-127");
    await check();
    // The same package, name, version and architecture, in a newer release: that copy is listed.
    await upload("2.0.0", "pkg-010");
    await check();
    expect((await post("2.0.0/yank", { reason: "broken" })).status).toBe(200);
    await check();
    expect((await post("2.0.0/unyank")).status).toBe(200);
    await check();
    await upload("2.1.0", "everywhere", { arch: "all" });
    await check();
    await upload("2.2.0", "tester", { query: "?distribution=testing" });
    await upload("2.2.0", "extras", { query: "?distribution=testing&component=contrib" });
    await check();
    await upload("2.3.0", "armed", { arch: "arm64" });
    await check();
    expect((await remove("1.0.0/files/pkg-020_1.0.0_amd64.deb")).status).toBe(204);
    await check();
    expect((await remove("2.0.0")).status).toBe(204);
    await check();
    // Back again after its release was deleted; and a whole suite emptied.
    await upload("3.0.0", "pkg-020");
    expect((await remove("2.2.0")).status).toBe(204);
    await check();
    expect((await post("1.0.0/yank", { reason: "old" })).status).toBe(200);
    await check();
    expect(storedBlocks).toBeGreaterThan(0);
  }, 120_000);
});
