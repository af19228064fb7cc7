// Promotion as a publisher and an installer see it (decision 035), on SQLite and PostgreSQL: a
// release promoted from `testing` to `stable` installs from `stable` with apt-get; an .rpm
// promoted into another project is served signed with that project's key (rpmkeys -K) and the
// .deb keeps its bytes (one blob, shared); the errors a caller can meet have stable codes. Each
// promotion is one `release.promoted` entry in the source project's audit log, by the key.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { PromotionResult } from "@packyard/contract";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot, runCommand } from "../../test/apt-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";

const hasTools = requireTools(["apt-get", "dpkg", "gpgv", "rpmbuild", "rpmkeys"]);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;

const hello = buildTestDeb({
  control:
    "Package: promoted-hello\nVersion: 1.0.0\nArchitecture: all\nMaintainer: Packyard Tests <tests@example.com>\nDescription: promoted for Packyard's tests\n It installs one script.\n",
  dataFiles: [{ name: "./usr/bin/promoted-hello", data: "#!/bin/sh\necho promoted\n" }],
});

async function api<T = Record<string, unknown>>(
  path: string,
  method = "GET",
  body?: unknown,
  token = pub.token,
) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function upload(project: string, version: string, filename: string, bytes: Uint8Array, query = "") {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${filename}${query}`, {
    method: "PUT",
    body: Buffer.from(bytes),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

const promote = (project: string, version: string, body: unknown, token?: string) =>
  api<{ promotion: PromotionResult; error: { code: string } }>(
    `/api/v1/projects/${project}/releases/${version}/promote`,
    "POST",
    body,
    token,
  );

async function aptClient(project: string, suite: string) {
  const apt = aptRoot();
  const keyring = join(apt.root, `${project}.gpg`);
  const key = await fetch(`${server.url}/dl/${pub.username}/${project}/keyring.gpg`);
  writeFileSync(keyring, Buffer.from(await key.arrayBuffer()));
  writeFileSync(
    join(apt.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${server.url}/dl/${pub.username}/${project}/deb ${suite} main\n`,
  );
  return apt;
}

const download = async (path: string) =>
  new Uint8Array(await (await fetch(`${server.url}/dl/${pub.username}/${path}`)).arrayBuffer());

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer();
  pub = await publisher(server, "promoter");
  for (const slug of ["staging", "public-site"]) {
    expect((await api("/api/v1/projects", "POST", { slug, name: slug })).status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`promotion (${databaseKind})`, () => {
  it("promotes a release from testing to stable: apt-get installs it from stable", async () => {
    await upload("staging", "1.0.0", "promoted-hello_1.0.0_all.deb", hello, "?distribution=testing");
    const before = await api<{ release: { files: { url: string }[] } }>(
      "/api/v1/projects/staging/releases/1.0.0",
    );

    const moved = await promote("staging", "1.0.0", { distribution: "stable" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.promotion).toMatchObject({
      project: "staging",
      mode: "moved",
      files: [{ filename: "promoted-hello_1.0.0_all.deb", target: "stable/main", resigned: false }],
    });
    const stable = await aptClient("staging", "stable");
    await stable.update();
    await stable.install("promoted-hello");
    expect(readFileSync(join(stable.root, "usr/bin/promoted-hello"), "utf8")).toContain("promoted");
    // The release's download URL is the same as before.
    const after = await api<{ release: { files: { url: string }[] } }>(
      "/api/v1/projects/staging/releases/1.0.0",
    );
    expect(after.body.release.files[0]!.url).toBe(before.body.release.files[0]!.url);

    const entries = await server.services.database.db
      .selectFrom("audit_event")
      .select(["actor_kind", "project_slug", "target", "details"])
      .where("action", "=", "release.promoted")
      .execute();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor_kind: "key", project_slug: "staging", target: "1.0.0" });
    expect(JSON.parse(entries[0]!.details)).toMatchObject({ mode: "moved", to: { distribution: "stable" } });

    // Already there: a clear conflict.
    const again = await promote("staging", "1.0.0", { distribution: "stable" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("PROMOTION_SAME_TARGET");
  });

  it("copies a release into another project: the .rpm verifies with that project's key, the .deb is the same blob", async () => {
    await upload("staging", "2.0.0", basename(rpms.alpha), readFileSync(rpms.alpha));
    await upload("staging", "2.0.0", "promoted-hello_2.0.0_all.deb", hello);
    const copied = await promote("staging", "2.0.0", { project: "public-site" });
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    const { promotion } = copied.body;
    expect(promotion.mode).toBe("copied");
    const rpm = promotion.files.find((f) => f.filename.endsWith(".rpm"))!;
    const debFile = promotion.files.find((f) => f.filename.endsWith(".deb"))!;
    expect(rpm.resigned).toBe(true);
    expect(debFile.resigned).toBe(false);

    const source = await api<{ release: { files: { filename: string; sha256: string }[] } }>(
      "/api/v1/projects/staging/releases/2.0.0",
    );
    const sourceSha = (name: string) => source.body.release.files.find((f) => f.filename === name)!.sha256;
    expect(debFile.sha256).toBe(sourceSha(debFile.filename));
    expect(rpm.sha256).not.toBe(sourceSha(rpm.filename));
    const blobs = await server.services.database.db
      .selectFrom("blob")
      .select("sha256")
      .where("sha256", "=", debFile.sha256)
      .execute();
    expect(blobs).toHaveLength(1);

    // rpmkeys with only the target's key accepts the promoted .rpm; with only the source's, not.
    const dir = makeTempDir("packyard-promote-rpm-");
    const file = join(dir, rpm.filename);
    writeFileSync(file, await download(`public-site/releases/2.0.0/${rpm.filename}`));
    const check = async (project: string) => {
      const db = join(dir, `db-${project}`);
      writeFileSync(join(dir, `${project}.asc`), await download(`${project}/gpg.key`));
      const imported = await runCommand(
        ["rpmkeys", "--dbpath", db, "--import", join(dir, `${project}.asc`)],
        {},
      );
      expect(imported.status, imported.stderr).toBe(0);
      return runCommand(["rpmkeys", "--dbpath", db, "-K", file], { LC_ALL: "C" });
    };
    const target = await check("public-site");
    expect(target.status, target.stdout + target.stderr).toBe(0);
    expect((await check("staging")).status).not.toBe(0);
    // The .deb is served in the target's APT repository.
    const apt = await aptClient("public-site", "stable");
    await apt.update();
    await apt.install("promoted-hello");
  });

  it("moves a release's .rpm to another YUM group and its .deb to another component", async () => {
    const moved = await promote("staging", "2.0.0", { group: "el9", component: "extra" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.promotion.files.map((f) => f.target).sort()).toEqual(["el9", "stable/extra"]);
    const listed = await server.services.database.db
      .selectFrom("deb_package")
      .innerJoin("project", "project.id", "deb_package.project_id")
      .select(["deb_package.component", "deb_package.pool_path", "deb_package.stanza"])
      .where("project.slug", "=", "staging")
      .where("deb_package.suite", "=", "stable")
      .where("deb_package.component", "=", "extra")
      .execute();
    expect(listed).toHaveLength(1);
    expect(listed[0]!.pool_path).toMatch(/^pool\/extra\//);
    expect(listed[0]!.stanza).toContain(`Filename: ${listed[0]!.pool_path}`);
    const repomd = await fetch(`${server.url}/dl/${pub.username}/staging/rpm/el9/repodata/repomd.xml`);
    expect(repomd.status).toBe(200);
  });

  it("refuses with stable codes: no such target, the version exists there, a read-only key, a yanked release", async () => {
    const missing = await promote("staging", "2.0.0", { project: "nowhere" });
    expect([missing.status, missing.body.error.code]).toEqual([404, "PROMOTION_TARGET_NOT_FOUND"]);
    const exists = await promote("staging", "2.0.0", { project: "public-site" });
    expect([exists.status, exists.body.error.code]).toEqual([409, "VERSION_EXISTS"]);
    const empty = await promote("staging", "2.0.0", {});
    expect([empty.status, empty.body.error.code]).toEqual([400, "VALIDATION_FAILED"]);
    const readOnly = await pub.key({ projects: "*", access: "read" });
    const denied = await promote("staging", "1.0.0", { project: "public-site" }, readOnly);
    expect([denied.status, denied.body.error.code]).toEqual([403, "KEY_SCOPE"]);
    expect(
      (await api("/api/v1/projects/staging/releases/1.0.0/yank", "POST", { reason: "bad" })).status,
    ).toBe(200);
    const yanked = await promote("staging", "1.0.0", { project: "public-site" });
    expect([yanked.status, yanked.body.error.code]).toEqual([409, "RELEASE_YANKED"]);
  });
});
