// RPMs re-signed by the successor key (decision 030), as rpmkeys, dnf and sha256sum see it: a
// project's .rpm files uploaded under key A are re-signed by key B after a rotation (the API's,
// and the lifecycle job's before expiry); every served .rpm verifies with B alone; once A
// retires, a fresh dnf root trusting only the served gpg.key installs a package uploaded before
// the rotation; the release's SHA256SUMS matches the bytes served; a download under way keeps
// its bytes, and the old blob is swept only after the grace period.
// The clock runs in the past and moves towards today, so signing times are never in the future.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import * as openpgp from "openpgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../../test/apt-client.ts";
import { dnfRoot } from "../../../test/dnf-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { movingClock } from "../../../test/moving-clock.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { collectUnreferencedBlobs } from "../../releases/blobs.ts";
import { keyLifecyclePass } from "../../signing-keys/lifecycle-job.ts";
import { queueRpmResign, RESIGN_BATCH, resignProjectRpms } from "./resign-rpms.ts";

const hasTools = requireTools(["rpmbuild", "rpmkeys", "dnf", "gpg", "sha256sum"]);
const { clock, moveTo } = movingClock();

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;

async function api(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await pub.api(path, {
    method: init.method ?? "GET",
    ...(init.body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function upload(project: string, version: string, path: string) {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${basename(path)}`, {
    method: "PUT",
    body: readFileSync(path),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

const db = () => server.services.database.db;

async function projectId(slug: string) {
  return (await db().selectFrom("project").select("id").where("slug", "=", slug).executeTakeFirstOrThrow())
    .id;
}

async function keyRows(slug: string) {
  return db()
    .selectFrom("signing_key")
    .innerJoin("project", "project.id", "signing_key.project_id")
    .select(["signing_key.fingerprint", "signing_key.public_key", "signing_key.retire_at"])
    .where("project.slug", "=", slug)
    .orderBy("signing_key.generation")
    .execute();
}

/** The .rpm files the project serves: their download path, stored sha256 and recorded signer. */
async function servedRpms(slug: string) {
  return db()
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "yum_package.project_id")
    .select(["release.version", "release_file.filename", "release_file.sha256", "yum_package.signed_by"])
    .where("project.slug", "=", slug)
    .orderBy("release_file.filename")
    .execute();
}

const download = async (path: string) =>
  new Uint8Array(await (await fetch(`${server.url}/dl/${pub.username}/${path}`)).arrayBuffer());

/** rpmkeys -K on every served .rpm with an rpm database holding only `armoredKey`. */
async function verifyAllWith(slug: string, armoredKey: string) {
  const dir = makeTempDir("packyard-rpmdb-");
  writeFileSync(join(dir, "key.asc"), armoredKey);
  const imported = await runCommand(["rpmkeys", "--dbpath", dir, "--import", join(dir, "key.asc")], {});
  expect(imported.status, imported.stderr).toBe(0);
  const results: { file: string; status: number | null; output: string }[] = [];
  for (const rpm of await servedRpms(slug)) {
    const file = join(dir, rpm.filename);
    writeFileSync(file, await download(`${slug}/releases/${rpm.version}/${rpm.filename}`));
    const checked = await runCommand(["rpmkeys", "--dbpath", dir, "-Kv", file], { LC_ALL: "C" });
    results.push({ file: rpm.filename, status: checked.status, output: checked.stdout + checked.stderr });
  }
  return results;
}

/** `sha256sum -c` of the release's SHA256SUMS against the files served now. */
async function checkSums(slug: string, version: string) {
  const dir = makeTempDir("packyard-sums-");
  const sums = new TextDecoder().decode(await download(`${slug}/releases/${version}/SHA256SUMS`));
  writeFileSync(join(dir, "SHA256SUMS"), sums);
  for (const line of sums.trim().split("\n")) {
    const filename = line.split("  ")[1]!;
    writeFileSync(join(dir, filename), await download(`${slug}/releases/${version}/${filename}`));
  }
  return runCommand(["sh", "-c", `cd '${dir}' && sha256sum -c SHA256SUMS`], {});
}

/** The fingerprints gpg.key serves. */
async function servedKeys(slug: string) {
  const text = await (await fetch(`${server.url}/dl/${pub.username}/${slug}/gpg.key`)).text();
  return (await openpgp.readKeys({ armoredKeys: text })).map((k) => k.getFingerprint().toUpperCase());
}

/** What the resign-rpms job runs for the project (the rotation queued it too; both are safe together). */
async function runResignJob(slug: string) {
  const s = server.services;
  const id = await projectId(slug);
  await resignProjectRpms(
    { db: s.database.db, blobs: s.blobs, keys: s.keys, repos: s.repos, logger: s.logger },
    id,
  );
  // The queued job may have done the files and be publishing still: publish to know it is done.
  await s.repos.publish(id);
}

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer({}, { clock });
  pub = await publisher(server, "resigner");
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`RPMs re-signed by the successor key (${databaseKind})`, () => {
  it("re-signs every .rpm after an API rotation; after the old key retires a fresh dnf installs with gpg.key", async () => {
    moveTo(-10);
    expect(
      (await api("/api/v1/projects", { method: "POST", body: { slug: "rot", name: "Rot" } })).status,
    ).toBe(201);
    await upload("rot", "1.0.0", rpms.alpha);
    await upload("rot", "1.0.0", rpms.beta);
    await upload("rot", "1.0.0", rpms.alphaSource);
    const [a] = await keyRows("rot");
    const before = await servedRpms("rot");
    expect(before.map((r) => r.signed_by)).toEqual([a!.fingerprint, a!.fingerprint, a!.fingerprint]);
    for (const r of await verifyAllWith("rot", a!.public_key)) expect(r.status, r.output).toBe(0);

    // A download under way when the file is re-signed: its first bytes are read now.
    const alpha = before.find((r) => r.filename === basename(rpms.alpha))!;
    const pending = await fetch(`${server.url}/dl/resigner/rot/releases/1.0.0/${alpha.filename}`);
    const reader = pending.body!.getReader();
    const first = await reader.read();

    moveTo(-9);
    const rotated = await api("/api/v1/projects/rot/keys/rotate", {
      method: "POST",
      body: { overlapDays: 7 },
    });
    expect(rotated.status).toBe(201);
    const [, b] = await keyRows("rot");
    await runResignJob("rot");

    // Every served .rpm now carries B's signature and verifies with B alone; A's no longer does.
    const after = await servedRpms("rot");
    expect(after.map((r) => r.signed_by)).toEqual([b!.fingerprint, b!.fingerprint, b!.fingerprint]);
    for (const [i, r] of after.entries()) expect(r.sha256).not.toBe(before[i]!.sha256);
    for (const r of await verifyAllWith("rot", b!.public_key)) {
      expect(r.status, r.output).toBe(0);
      expect(r.output).toContain(b!.fingerprint.slice(-8).toLowerCase());
    }
    for (const r of await verifyAllWith("rot", a!.public_key)) expect(r.status, r.output).not.toBe(0);
    const sums = await checkSums("rot", "1.0.0");
    expect(sums.status, sums.stdout + sums.stderr).toBe(0);
    expect(sums.stdout).toContain(`${alpha.filename}: OK`);

    // The old blobs are unreferenced but kept through the grace: the download under way ends
    // with the bytes it began with.
    const s = server.services;
    await collectUnreferencedBlobs(s.database.db, s.blobs, { graceMs: 60 * 60 * 1000 });
    for (const r of before) expect(await s.blobs.exists(r.sha256)).toBe(true);
    const chunks = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(createHash("sha256").update(Buffer.concat(chunks)).digest("hex")).toBe(alpha.sha256);
    // After the grace they are swept; the new bytes stay.
    await collectUnreferencedBlobs(s.database.db, s.blobs, { graceMs: 0 });
    for (const r of before) expect(await s.blobs.exists(r.sha256)).toBe(false);
    for (const r of after) expect(await s.blobs.exists(r.sha256)).toBe(true);

    // The overlap is over: A retired. gpg.key serves B alone, and a machine set up from scratch
    // installs packages uploaded before the rotation (and their dependency), gpgcheck on.
    moveTo(-1);
    await s.repos.publish(await projectId("rot"));
    expect(await servedKeys("rot")).toEqual([b!.fingerprint]);
    const installed = await dnfRoot().dnf(`${server.url}/dl/resigner/rot/rpm`, ["install", "packyard-beta"]);
    expect(installed.status, installed.stdout + installed.stderr).toBe(0);
    expect(installed.stdout).toContain("packyard-alpha");
  }, 300_000);

  it("re-signs with the successor the lifecycle job makes before the key expires", async () => {
    moveTo(-86);
    const created = await api("/api/v1/projects", {
      method: "POST",
      body: { slug: "lapse", name: "Lapse", keyExpiryDays: 90 },
    });
    expect(created.status).toBe(201);
    await upload("lapse", "1.0.0", rpms.alpha);
    const [a] = await keyRows("lapse");
    const s = server.services;
    const queued: string[] = [];
    const lifecycle = () =>
      keyLifecyclePass({
        db: s.database.db,
        keys: s.keys,
        repos: s.repos,
        mailer: s.mailer,
        config: s.config,
        logger: s.logger,
        clock: s.clock,
        resignRpms: async (id) => {
          queued.push(id);
          await queueRpmResign(s.jobs, id);
        },
      });

    // 13 days before A expires: the successor B, and the re-signing queued for the project.
    moveTo(-9);
    expect((await lifecycle()).rotated).toEqual([await projectId("lapse")]);
    expect(queued).toContain(await projectId("lapse"));
    const [, b] = await keyRows("lapse");
    expect(b).toBeDefined();
    await runResignJob("lapse");
    expect((await servedRpms("lapse")).map((r) => r.signed_by)).toEqual([b!.fingerprint]);
    for (const r of await verifyAllWith("lapse", b!.public_key)) expect(r.status, r.output).toBe(0);
    // Nothing is left for the catch-up to queue.
    queued.length = 0;
    await lifecycle();
    expect(queued).not.toContain(await projectId("lapse"));

    // A retired (a day and more before it expired): the job re-signs the repository with B
    // alone, gpg.key serves B alone, and a fresh dnf root installs the package.
    moveTo(-1);
    expect((await lifecycle()).resigned).toContain(await projectId("lapse"));
    expect(await servedKeys("lapse")).toEqual([b!.fingerprint]);
    const installed = await dnfRoot().dnf(`${server.url}/dl/resigner/lapse/rpm`, [
      "install",
      "packyard-alpha",
    ]);
    expect(installed.status, installed.stdout + installed.stderr).toBe(0);
    const sums = await checkSums("lapse", "1.0.0");
    expect(sums.status, sums.stdout + sums.stderr).toBe(0);
    expect(a!.fingerprint).not.toBe(b!.fingerprint);
  }, 300_000);

  it("keeps serving a retired key in gpg.key while a served .rpm still carries its signature", async () => {
    moveTo(-9);
    expect(
      (await api("/api/v1/projects", { method: "POST", body: { slug: "late", name: "Late" } })).status,
    ).toBe(201);
    await upload("late", "1.0.0", rpms.alpha);
    const [a] = await keyRows("late");
    // A rotation whose overlap ends at once, and a re-signing that has not run yet (its job was
    // lost; the lifecycle job's catch-up would queue it again).
    await s().keys.rotate({ id: await projectId("late"), name: "Late" }, { overlapMs: 0 });
    const [, b] = await keyRows("late");
    expect(await servedKeys("late")).toEqual([a!.fingerprint, b!.fingerprint]);
    await runResignJob("late");
    expect(await servedKeys("late")).toEqual([b!.fingerprint]);
    for (const r of await verifyAllWith("late", b!.public_key)) expect(r.status, r.output).toBe(0);
  }, 120_000);

  it("re-signs more files than one batch holds, one transaction each", async () => {
    moveTo(-9);
    expect(
      (await api("/api/v1/projects", { method: "POST", body: { slug: "many", name: "Many" } })).status,
    ).toBe(201);
    const versions = Array.from({ length: RESIGN_BATCH + 1 }, (_, i) => `1.0.${i}`);
    for (const version of versions) await upload("many", version, rpms.alpha);
    const id = await projectId("many");
    await s().keys.rotate({ id, name: "Many" }, { overlapMs: 0 });
    const [, b] = await keyRows("many");
    const { database, blobs, keys, repos, logger } = s();
    expect(await resignProjectRpms({ db: database.db, blobs, keys, repos, logger }, id)).toBe(
      versions.length,
    );
    const served = await servedRpms("many");
    expect(served.map((r) => r.signed_by)).toEqual(versions.map(() => b!.fingerprint));
    // Nothing is left: a second pass finds no file to re-sign.
    expect(await resignProjectRpms({ db: database.db, blobs, keys, repos, logger }, id)).toBe(0);
    const installed = await dnfRoot().dnf(`${server.url}/dl/resigner/many/rpm`, [
      "install",
      "packyard-alpha",
    ]);
    expect(installed.status, installed.stdout + installed.stderr).toBe(0);
  }, 120_000);
});

const s = () => server.services;
