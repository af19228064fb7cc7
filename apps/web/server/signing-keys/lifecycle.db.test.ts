// Keys that never lapse (decision 027), as real apt-get and dnf see it: a project whose key nears
// its expiry (the test moves the server's clock) gets a successor from the signing-key-lifecycle
// job, its repositories are re-signed by both keys and then by the new one alone, apt-get
// update stays clean for clients trusting the old key and then the new one, and the owner is
// mailed 30 and 7 days before, once each. Valid-Until: on, it is in Release and the job re-signs
// before it passes. Origin, Label and Codename: set, shown in Release, accepted by apt-get.
// The clock runs in the past and moves towards today, so every signing time, key creation and
// Valid-Until apt-get and dnf check (against the real time) are consistent.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildBinaryKeyring } from "@packyard/formats/openpgp/index.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import * as openpgp from "openpgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AptRoot, aptRoot } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind, readOutbox } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { DAY, movingClock } from "../../test/moving-clock.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";
import { keyLifecyclePass } from "./lifecycle-job.ts";

const hasTools = requireTools(["apt-get", "gpgv", "dnf", "rpmbuild", "gpg"]);
/** The server's clock: real time moved by the days the test sets. */
const { clock, moveTo } = movingClock();

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;

function deb(name: string) {
  return buildTestDeb({
    control: `Package: ${name}\nVersion: 1.0.0\nArchitecture: amd64\nMaintainer: Packyard Tests <tests@example.com>\nDescription: ${name}\n for the key lifecycle tests\n`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

async function api(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await pub.api(path, {
    method: init.method ?? "GET",
    ...(init.body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function upload(project: string, version: string, filename: string, bytes: Uint8Array) {
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${filename}`, {
    method: "PUT",
    body: Buffer.from(bytes),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** What the signing-key-lifecycle job runs, and what it did to the project `slug`. */
async function runLifecycleJob(slug: string) {
  const s = server.services;
  const { id } = await s.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", slug)
    .executeTakeFirstOrThrow();
  const done = await keyLifecyclePass({
    db: s.database.db,
    keys: s.keys,
    repos: s.repos,
    mailer: s.mailer,
    config: s.config,
    logger: s.logger,
    clock: s.clock,
  });
  return { rotated: done.rotated.includes(id), resigned: done.resigned.includes(id), mailed: done.mailed };
}

async function keyRows(slug: string) {
  return server.services.database.db
    .selectFrom("signing_key")
    .innerJoin("project", "project.id", "signing_key.project_id")
    .select([
      "signing_key.fingerprint",
      "signing_key.public_key",
      "signing_key.expires_at",
      "signing_key.retire_at",
    ])
    .where("project.slug", "=", slug)
    .orderBy("signing_key.generation")
    .execute();
}

/** A keyring file holding exactly these armored keys. */
async function keyringOf(dir: string, name: string, armored: string[]) {
  const path = join(dir, `${name}.gpg`);
  writeFileSync(path, await buildBinaryKeyring(armored));
  return path;
}

function aptClient(slug: string, keyring: string): AptRoot {
  const apt = aptRoot();
  writeFileSync(
    join(apt.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${server.url}/dl/${pub.username}/${slug}/deb stable main\n`,
  );
  return apt;
}

const fetchText = async (path: string) => (await fetch(`${server.url}${path}`)).text();

/** The long key IDs that signed the suite's InRelease. */
async function inReleaseSigners(slug: string): Promise<string[]> {
  const text = await fetchText(`/dl/${pub.username}/${slug}/deb/dists/stable/InRelease`);
  const message = await openpgp.readCleartextMessage({ cleartextMessage: text });
  return message
    .getSigningKeyIDs()
    .map((id) => id.toHex().toUpperCase())
    .sort();
}

const expiryMails = (slug: string) =>
  readOutbox(server.services.config.outboxDir).filter((m) =>
    m.subject.includes(`${pub.username}/${slug} expires`),
  );

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer({}, { clock });
  pub = await publisher(server, "keeper");
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`signing keys that never lapse (${databaseKind})`, () => {
  it("makes the successor before the key expires, re-signs, and apt-get and dnf stay clean through the change", async () => {
    // 86 days ago: a project whose keys live 90 days.
    moveTo(-86);
    const created = await api("/api/v1/projects", {
      method: "POST",
      body: { slug: "lapse", name: "Lapse", keyExpiryDays: 90 },
    });
    expect(created.status).toBe(201);
    await upload("lapse", "1.0.0", "lapse-tool_1.0.0_amd64.deb", deb("lapse-tool"));
    await upload("lapse", "1.0.0", rpms.alpha.split("/").pop()!, readFileSync(rpms.alpha));
    const [first] = await keyRows("lapse");
    const keys = (await api("/api/v1/projects/lapse/keys")).body.keys;
    expect(keys).toEqual([expect.objectContaining({ fingerprint: first!.fingerprint, retireAt: null })]);
    // The key carries its OpenPGP expiry: 90 days after it was made.
    expect(Date.parse(keys[0].expiresAt) - Date.parse(keys[0].createdAt)).toBe(90 * DAY);
    const publicKey = await openpgp.readKey({ armoredKey: first!.public_key });
    expect((await publicKey.getExpirationTime()) as Date).toEqual(new Date(keys[0].expiresAt));
    // Release's Date is the signing time: the server's clock.
    const release = await fetchText(`/dl/keeper/lapse/deb/dists/stable/Release`);
    const date = Date.parse(release.match(/^Date: (.*)$/m)![1]!);
    expect(Math.abs(date - clock().getTime())).toBeLessThan(60_000);
    expect(release).not.toMatch(/^Valid-Until:/m);

    const dir = aptRoot().root;
    const oldOnly = await keyringOf(dir, "old", [first!.public_key]);
    const withOld = aptClient("lapse", oldOnly);
    await withOld.update();
    await withOld.install("lapse-tool");
    expect(await runLifecycleJob("lapse")).toEqual({ rotated: false, resigned: false, mailed: 0 });

    // 61 days on, the key expires in 29 days: the 30-day mail, once.
    moveTo(-25);
    expect((await runLifecycleJob("lapse")).mailed).toBe(1);
    expect((await runLifecycleJob("lapse")).mailed).toBe(0);
    expect(expiryMails("lapse").map((m) => m.subject)).toEqual([
      "The signing key of keeper/lapse expires in 30 days",
    ]);
    expect(expiryMails("lapse")[0]!.to).toContain("keeper@example.com");
    expect(expiryMails("lapse")[0]!.text).toContain(first!.fingerprint);
    expect(await keyRows("lapse")).toHaveLength(1);

    // 13 days before it expires (within the 14-day lead): the successor; both sign.
    moveTo(-9);
    const rotation = await runLifecycleJob("lapse");
    expect(rotation.rotated).toBe(true);
    expect(rotation.resigned).toBe(true);
    const [old, successor] = await keyRows("lapse");
    expect(successor).toBeDefined();
    expect(successor!.expires_at).not.toBeNull();
    // In the project's audit log, by Packyard (decision 031).
    const logged = await server.services.database.db
      .selectFrom("audit_event")
      .select(["actor_kind", "target"])
      .where("action", "=", "signing_key.rotated")
      .execute();
    expect(logged).toEqual([{ actor_kind: "system", target: successor!.fingerprint }]);
    // The old key retires after the 7-day overlap: before it expires.
    expect(Date.parse(old!.retire_at!)).toBeLessThan(Date.parse(old!.expires_at!));
    const keyId = (fingerprint: string) => fingerprint.slice(-16);
    expect(await inReleaseSigners("lapse")).toEqual(
      [keyId(old!.fingerprint), keyId(successor!.fingerprint)].sort(),
    );
    await withOld.update();
    const newOnly = await keyringOf(dir, "new", [successor!.public_key]);
    const withNew = aptClient("lapse", newOnly);
    await withNew.update();
    await withNew.install("lapse-tool");
    // A machine set up now fetches both keys.
    const both = join(dir, "both.gpg");
    writeFileSync(
      both,
      Buffer.from(await (await fetch(`${server.url}/dl/keeper/lapse/keyring.gpg`)).arrayBuffer()),
    );
    const withBoth = aptClient("lapse", both);
    await withBoth.update();
    // dnf: repomd.xml.asc is signed by both keys; either key alone verifies it.
    const repo = `${server.url}/dl/keeper/lapse/rpm`;
    writeFileSync(join(dir, "old.asc"), old!.public_key);
    writeFileSync(join(dir, "new.asc"), successor!.public_key);
    for (const key of ["old.asc", "new.asc"]) {
      const made = await dnfRoot().dnf(repo, ["makecache"], { keyUrl: `file://${join(dir, key)}` });
      expect(made.status, `${key}: ${made.stdout}${made.stderr}`).toBe(0);
    }
    const installed = await dnfRoot().dnf(repo, ["install", "packyard-alpha"]);
    expect(installed.status, installed.stdout + installed.stderr).toBe(0);
    expect(expiryMails("lapse")).toHaveLength(1);

    // 7 days before it expires: the 7-day mail, naming the successor, once.
    moveTo(-3);
    expect(await runLifecycleJob("lapse")).toEqual({ rotated: false, resigned: false, mailed: 1 });
    expect((await runLifecycleJob("lapse")).mailed).toBe(0);
    const mails = expiryMails("lapse");
    expect(mails.map((m) => m.subject)).toEqual([
      "The signing key of keeper/lapse expires in 30 days",
      "The signing key of keeper/lapse expires in 7 days",
    ]);
    expect(mails[1]!.text).toContain(successor!.fingerprint);

    // The overlap is over: the old key retired, a day and more before it expires; the job
    // re-signs with the new key alone.
    moveTo(-1);
    expect((await runLifecycleJob("lapse")).resigned).toBe(true);
    expect(await inReleaseSigners("lapse")).toEqual([keyId(successor!.fingerprint)]);
    await withNew.update();
    await withBoth.update();
    const made = await dnfRoot().dnf(repo, ["makecache"], { keyUrl: `file://${join(dir, "new.asc")}` });
    expect(made.status, made.stdout + made.stderr).toBe(0);
    // Nothing more to do, and no more mail.
    expect(await runLifecycleJob("lapse")).toEqual({ rotated: false, resigned: false, mailed: 0 });
    expect(expiryMails("lapse")).toHaveLength(2);
  }, 300_000);

  it("puts Valid-Until in Release when turned on, and re-signs before it passes", async () => {
    moveTo(-5);
    expect(
      (await api("/api/v1/projects", { method: "POST", body: { slug: "fresh", name: "Fresh" } })).status,
    ).toBe(201);
    await upload("fresh", "1.0.0", "fresh-tool_1.0.0_amd64.deb", deb("fresh-tool"));
    const initial = await fetchText("/dl/keeper/fresh/deb/dists/stable/Release");
    expect(initial).not.toMatch(/^Valid-Until:/m);

    const changed = await api("/api/v1/projects/fresh/repository-settings", {
      method: "PATCH",
      body: { aptValidUntilDays: 7 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.settings.aptValidUntilDays).toBe(7);
    const signed = await fetchText("/dl/keeper/fresh/deb/dists/stable/Release");
    const dateOf = (text: string, field: string) =>
      Date.parse(text.match(new RegExp(`^${field}: (.*)$`, "m"))![1]!);
    const validUntil = dateOf(signed, "Valid-Until");
    expect(validUntil - dateOf(signed, "Date")).toBe(7 * DAY);
    const [key] = await keyRows("fresh");
    const client = aptClient("fresh", await keyringOf(aptRoot().root, "fresh", [key!.public_key]));
    await client.update();

    // Three days on: less than half the period, nothing to do.
    moveTo(-2);
    expect((await runLifecycleJob("fresh")).resigned).toBe(false);
    expect(await fetchText("/dl/keeper/fresh/deb/dists/stable/Release")).toBe(signed);

    // Four days on: past half the period, before Valid-Until: re-signed, valid for 7 days more.
    moveTo(-1);
    expect(clock().getTime()).toBeLessThan(validUntil);
    expect((await runLifecycleJob("fresh")).resigned).toBe(true);
    const resigned = await fetchText("/dl/keeper/fresh/deb/dists/stable/Release");
    expect(dateOf(resigned, "Valid-Until")).toBeGreaterThan(validUntil);
    expect(dateOf(resigned, "Valid-Until") - dateOf(resigned, "Date")).toBe(7 * DAY);
    await client.update();

    // Off again: no Valid-Until.
    await api("/api/v1/projects/fresh/repository-settings", {
      method: "PATCH",
      body: { aptValidUntilDays: null },
    });
    expect(await fetchText("/dl/keeper/fresh/deb/dists/stable/Release")).not.toMatch(/^Valid-Until:/m);
    await client.update();
  }, 120_000);

  it("writes the project's Origin, Label and Codename into Release; apt-get accepts them", async () => {
    moveTo(0);
    expect(
      (await api("/api/v1/projects", { method: "POST", body: { slug: "named", name: "Named" } })).status,
    ).toBe(201);
    const defaults = await api("/api/v1/projects/named/repository-settings");
    expect(defaults).toEqual({
      status: 200,
      body: {
        settings: {
          keyExpiryDays: null,
          aptValidUntilDays: null,
          aptOrigin: "Packyard",
          aptLabel: "keeper/named",
          aptCodename: "stable",
          defaults: { aptOrigin: "Packyard", aptLabel: "keeper/named", aptCodename: "stable" },
        },
      },
    });
    const refused = await api("/api/v1/projects/named/repository-settings", {
      method: "PATCH",
      body: { keyExpiryDays: 7, aptCodename: "not a codename" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("VALIDATION_FAILED");
    expect(Object.keys(refused.body.error.details).sort()).toEqual(["aptCodename", "keyExpiryDays"]);

    const changed = await api("/api/v1/projects/named/repository-settings", {
      method: "PATCH",
      body: {
        aptOrigin: "Example Corp",
        aptLabel: "Example Tools",
        aptCodename: "widget",
        keyExpiryDays: 365,
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toMatchObject({
      aptOrigin: "Example Corp",
      aptLabel: "Example Tools",
      aptCodename: "widget",
      keyExpiryDays: 365,
    });
    await upload("named", "1.0.0", "named-tool_1.0.0_amd64.deb", deb("named-tool"));
    const release = await fetchText("/dl/keeper/named/deb/dists/stable/Release");
    expect(release).toMatch(/^Origin: Example Corp$/m);
    expect(release).toMatch(/^Label: Example Tools$/m);
    expect(release).toMatch(/^Suite: stable$/m);
    expect(release).toMatch(/^Codename: widget$/m);
    const [key] = await keyRows("named");
    const client = aptClient("named", await keyringOf(aptRoot().root, "named", [key!.public_key]));
    await client.update();
    await client.install("named-tool");

    // A change after a client has seen them: apt refuses until told to accept it (docs/apt.md).
    await api("/api/v1/projects/named/repository-settings", { method: "PATCH", body: { aptOrigin: null } });
    expect(await fetchText("/dl/keeper/named/deb/dists/stable/Release")).toMatch(/^Origin: Packyard$/m);
    const refusedUpdate = await client.run("apt-get", "update");
    expect(`${refusedUpdate.stdout}${refusedUpdate.stderr}`).toMatch(/changed its 'Origin' value/);
    const accepted = await client.run("apt-get", "update", "--allow-releaseinfo-change");
    expect(accepted.status, accepted.stdout + accepted.stderr).toBe(0);
    await client.update();

    // A read-only key may read the settings but not change them.
    const readKey = await pub.key({ projects: "*", access: "read" });
    const denied = await fetch(`${server.url}/api/v1/projects/named/repository-settings`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ aptOrigin: "Nope" }),
    });
    expect(denied.status).toBe(403);
  }, 120_000);
});
