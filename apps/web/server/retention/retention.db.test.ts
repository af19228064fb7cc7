// Retention rules as a publisher sees them (decision 034), on SQLite and PostgreSQL: off by
// default, nothing deleted; the dry run shows what would go and deletes nothing, with yanked
// releases counted or not as configured and young releases spared; turned on, the retention job
// deletes the older releases (and again after the next publish), and what stays is installable
// with apt-get and dnf while what went is not. Each change of the rules and each run that deletes
// is one audit-log entry (the key that changed them; the system for a run).
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { RetentionPlan, RetentionSettings } from "@packyard/contract";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { movingClock } from "../../test/moving-clock.ts";
import { removeTempDirs } from "../../test/temp-dirs.ts";

const hasTools = requireTools(["apt-get", "dpkg", "gpgv", "rpmbuild", "dnf"]);
const { clock, moveTo } = movingClock();

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;

function deb(name: string, version: string) {
  return buildTestDeb({
    control: `Package: ${name}\nVersion: ${version}\nArchitecture: all\nMaintainer: Packyard Tests <tests@example.com>\nDescription: ${name} for the retention tests\n It installs one script.\n`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

async function api<T = Record<string, unknown>>(path: string, method = "GET", body?: unknown) {
  const res = await pub.api(path, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function upload(version: string, filename: string, bytes: Uint8Array) {
  const res = await pub.api(`/api/v1/projects/ret/releases/${version}/files/${filename}`, {
    method: "PUT",
    body: Buffer.from(bytes),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function versions() {
  const { body } = await api<{ releases: { version: string }[] }>("/api/v1/projects/ret/releases");
  return body.releases.map((r) => r.version);
}

const dryRun = async (rules: Record<string, unknown> = {}) =>
  (await api<{ plan: RetentionPlan }>("/api/v1/projects/ret/retention/dry-run", "POST", rules)).body.plan;
const names = (decisions: { version: string }[]) => decisions.map((d) => d.version);

const audit = (action: string) =>
  server.services.database.db
    .selectFrom("audit_event")
    .select(["actor_kind", "actor_key_id", "target", "project_slug"])
    .where("action", "=", action)
    .orderBy("created_at")
    .execute();

/**
 * Waits for the queued retention job to leave exactly these releases and to have recorded its
 * `runs`-th run, then for the publish.
 */
async function settlesAt(expected: string[], runs: number) {
  const deadline = Date.now() + 30_000;
  while (
    JSON.stringify(await versions()) !== JSON.stringify(expected) ||
    (await audit("retention.run")).length < runs
  ) {
    if (Date.now() > deadline) throw new Error(`releases are ${await versions()}, not ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const project = await server.services.database.db
    .selectFrom("project")
    .select("id")
    .where("slug", "=", "ret")
    .executeTakeFirstOrThrow();
  await server.services.repos.publish(project.id);
}

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer({}, { clock });
  pub = await publisher(server, "keeper");
  expect((await api("/api/v1/projects", "POST", { slug: "ret", name: "Ret" })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`retention rules (${databaseKind})`, () => {
  it("are off by default; the dry run shows what would go, counting yanked releases as configured, and deletes nothing", async () => {
    const initial = await api<{ retention: RetentionSettings }>("/api/v1/projects/ret/retention");
    expect(initial.body.retention).toEqual({
      enabled: false,
      keepReleases: 10,
      keepNewestPerMajor: false,
      minAgeDays: 0,
      countYanked: false,
      deleteLatest: false,
      keepImageTags: null,
      lastRun: null,
    });
    await upload("1.0.0", "keep-one_1.0.0_all.deb", deb("keep-one", "1.0.0"));
    await upload("1.0.0", basename(rpms.beta), readFileSync(rpms.beta));
    await upload("2.0.0", "keep-two_2.0.0_all.deb", deb("keep-two", "2.0.0"));
    await upload("3.0.0", "keep-three_3.0.0_all.deb", deb("keep-three", "3.0.0"));
    await upload("4.0.0", "keep-four_4.0.0_all.deb", deb("keep-four", "4.0.0"));
    await upload("4.0.0", basename(rpms.alpha), readFileSync(rpms.alpha));
    expect((await api("/api/v1/projects/ret/releases/3.0.0/yank", "POST", { reason: "broken" })).status).toBe(
      200,
    );

    const saved = await api<{ retention: RetentionSettings }>("/api/v1/projects/ret/retention", "PUT", {
      keepReleases: 2,
      countYanked: true,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.retention).toMatchObject({ enabled: false, keepReleases: 2, countYanked: true });

    // Counted, the yanked 3.0.0 takes one of the two places.
    const counted = await dryRun();
    expect(names(counted.keep)).toEqual(["4.0.0", "3.0.0"]);
    expect(names(counted.remove)).toEqual(["2.0.0", "1.0.0"]);
    // Not counted, it stays only while newer than the oldest release kept.
    const notCounted = await dryRun({ countYanked: false });
    expect(notCounted.keep.map((d) => [d.version, d.reason])).toEqual([
      ["4.0.0", "newest"],
      ["3.0.0", "yanked"],
      ["2.0.0", "newest"],
    ]);
    expect(names(notCounted.remove)).toEqual(["1.0.0"]);
    // Nothing younger than a day goes; two days on, it does.
    expect((await dryRun({ minAgeDays: 1 })).remove).toEqual([]);
    moveTo(2);
    expect(names((await dryRun({ minAgeDays: 1 })).remove)).toEqual(["2.0.0", "1.0.0"]);
    moveTo(0);
    // A bad rule is refused by field.
    const bad = await api<{ error: { code: string; details: Record<string, string> } }>(
      "/api/v1/projects/ret/retention",
      "PUT",
      { keepReleases: 0 },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.keepReleases).toMatch(/from 1/);
    // Off: the dry runs and the uploads deleted nothing.
    expect(await versions()).toEqual(["4.0.0", "3.0.0", "2.0.0", "1.0.0"]);
    // Saving the same rules again changes nothing.
    expect((await api("/api/v1/projects/ret/retention", "PUT", { keepReleases: 2 })).status).toBe(200);
    // One entry for the one change made (the refused one and the same again made none), by the
    // key that made it.
    const changes = await audit("retention.settings_changed");
    expect(changes).toEqual([
      { actor_kind: "key", actor_key_id: expect.any(String), target: "off", project_slug: "ret" },
    ]);
    expect(await audit("retention.run")).toEqual([]);
  });

  it("turned on, deletes the older releases; the newest stay installable with apt-get and dnf, and it runs again after a publish", async () => {
    const on = await api<{ retention: RetentionSettings }>("/api/v1/projects/ret/retention", "PUT", {
      enabled: true,
      countYanked: false,
    });
    expect(on.body.retention.enabled).toBe(true);
    await settlesAt(["4.0.0", "3.0.0", "2.0.0"], 1);
    const after = await api<{ retention: RetentionSettings }>("/api/v1/projects/ret/retention");
    expect(after.body.retention.lastRun?.removed).toEqual(["1.0.0"]);

    const apt = aptRoot();
    const keyring = join(apt.root, "ret.gpg");
    writeFileSync(
      keyring,
      Buffer.from(await (await fetch(`${server.url}/dl/keeper/ret/keyring.gpg`)).arrayBuffer()),
    );
    writeFileSync(
      join(apt.root, "etc/apt/sources.list"),
      `deb [signed-by=${keyring}] ${server.url}/dl/keeper/ret/deb stable main\n`,
    );
    await apt.update();
    await apt.install("keep-four", "keep-two");
    expect((await apt.run("apt-get", "install", "-y", "keep-one")).status).not.toBe(0);

    const dnf = dnfRoot();
    const repo = `${server.url}/dl/keeper/ret/rpm`;
    const alpha = await dnf.dnf(repo, ["install", "packyard-alpha"]);
    expect(alpha.status, alpha.stdout + alpha.stderr).toBe(0);
    expect((await dnf.dnf(repo, ["install", "packyard-beta"])).status).not.toBe(0);

    // A publish queues a run: 5.0.0 and 4.0.0 stay; the yanked 3.0.0, now older than the
    // oldest kept, goes with 2.0.0.
    await upload("5.0.0", "keep-five_5.0.0_all.deb", deb("keep-five", "5.0.0"));
    await settlesAt(["5.0.0", "4.0.0"], 2);
    expect(await audit("retention.run")).toEqual([
      { actor_kind: "system", actor_key_id: null, target: "1.0.0", project_slug: "ret" },
      { actor_kind: "system", actor_key_id: null, target: "3.0.0, 2.0.0", project_slug: "ret" },
    ]);
    await apt.update();
    await apt.install("keep-five");
  });
});
