// Importing existing repositories through the API, end to end: an APT repository built with
// reprepro (signed, two components, behind basic auth) and a YUM repository built with
// createrepo_c, served by a static server on 127.0.0.1. Every package arrives as a file of the
// release named by its version, verified, and apt-get and dnf then install them from Packyard.
// A package whose bytes do not match its index fails its release — none of that release's
// files are kept, the error names the file — while the other releases arrive; a re-run after
// the mirror is fixed adds what was missing. Runs on SQLite and PostgreSQL.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImportInfo } from "@packyard/contract";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot, runCommand } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import {
  aptRepositoryTools,
  buildAptRepository,
  buildTestRpmFiles,
  buildYumRepository,
  type TestAptRepository,
  type TestYumRepository,
  tamper,
  yumRepositoryTools,
} from "../../test/source-repositories.ts";
import { type StaticServer, startStaticServer } from "../../test/static-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";

const hasApt = requireTools([...aptRepositoryTools, "apt-get", "dpkg", "gpgv"]);
const hasYum = requireTools([...yumRepositoryTools, "dnf", "rpm"]);

const json = { "content-type": "application/json" };
const credentials = { username: "mirror", password: "m1rror-pass" };

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let apt: TestAptRepository;
let yum: TestYumRepository;
let rpms: ReturnType<typeof buildTestRpmFiles> | undefined;
let aptServer: StaticServer;
let yumServer: StaticServer;

/** Starts an import and waits until it ended; its final state. */
async function imported(source: Record<string, unknown>, project: string): Promise<ImportInfo> {
  const res = await pub.api(`/api/v1/projects/${project}/imports`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ source }),
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const { import: queued } = (await res.json()) as { import: ImportInfo };
  for (let i = 0; i < 1200; i++) {
    const got = await pub.api(`/api/v1/projects/${project}/imports/${queued.id}`);
    const { import: current } = (await got.json()) as { import: ImportInfo };
    if (["succeeded", "failed", "partial"].includes(current.status)) return current;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`import ${queued.id} did not end`);
}

async function releases(project: string): Promise<Record<string, string[]>> {
  const res = await pub.api(`/api/v1/projects/${project}/releases`);
  const body = (await res.json()) as { releases: { version: string }[] };
  const out: Record<string, string[]> = {};
  for (const { version } of body.releases) {
    const one = await pub.api(`/api/v1/projects/${project}/releases/${version}`);
    const { release } = (await one.json()) as { release: { files: { filename: string }[] } };
    out[version] = release.files.map((file) => file.filename).sort();
  }
  return out;
}

async function aptClient(project: string) {
  const client = aptRoot();
  const keyring = join(client.root, `${project}.gpg`);
  const key = await fetch(`${server.url}/dl/mirror/${project}/keyring.gpg`);
  writeFileSync(keyring, Buffer.from(await key.arrayBuffer()));
  writeFileSync(
    join(client.root, "etc/apt/sources.list"),
    `deb [signed-by=${keyring}] ${server.url}/dl/mirror/${project}/deb stable main\n`,
  );
  await client.update();
  return client;
}

async function installedDebs(client: ReturnType<typeof aptRoot>): Promise<string> {
  const result = await client.run("dpkg-query", `--admindir=${client.root}/var/lib/dpkg`, "-W");
  return result.stdout;
}

beforeAll(async () => {
  const dir = makeTempDir("packyard-repository-import-");
  if (hasApt) {
    apt = buildAptRepository(dir);
    aptServer = await startStaticServer(apt.root, { basicAuth: credentials });
  }
  if (hasYum) {
    rpms = buildTestRpmFiles();
    yum = buildYumRepository(dir, "yum", rpms.files);
    yumServer = await startStaticServer(yum.root);
  }
  // The source repositories are on 127.0.0.1.
  server = await startLiveServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  pub = await publisher(server, "mirror");
  for (const slug of ["debs", "rpms", "named"]) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ slug, name: slug }),
    });
    expect(res.status).toBe(201);
  }
}, 180_000);

afterAll(async () => {
  await server?.close();
  await aptServer?.stop();
  await yumServer?.stop();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasApt)(`importing an APT repository built with reprepro (${databaseKind})`, () => {
  const source = () => ({
    kind: "apt-repository",
    url: aptServer.url,
    distribution: "stable",
    ...credentials,
  });

  it("imports every verified package as releases; a tampered package fails its release only, named", async () => {
    const tampered = apt.pool.get("hello-tool_1.0-1_amd64.deb")!;
    const original = tamper(tampered);
    let done: ImportInfo;
    try {
      done = await imported(source(), "debs");
    } finally {
      writeFileSync(tampered, original);
    }
    expect(done.status).toBe("partial");
    expect(done.source).toEqual({
      kind: "apt-repository",
      url: aptServer.url,
      distribution: "stable",
      components: null,
      release: null,
      authenticated: true,
    });
    expect(done.progress).toMatchObject({
      releasesTotal: 4,
      releasesDone: 3,
      releasesFailed: 1,
      filesDone: 3,
    });
    expect(done.errors).toEqual([
      {
        version: "1.0-1",
        code: "CHECKSUM_MISMATCH",
        message: expect.stringMatching(
          /^hello-tool_1\.0-1_amd64\.deb: expected sha256 [0-9a-f]{64}; the bytes do not match the checksum the index gives$/,
        ),
        subject: "hello-tool_1.0-1_amd64.deb",
      },
    ]);
    expect(done.summary).toMatch(
      /^Imported 3 releases \(3 files, [\d.]+ [KM]?B\); 1 failed: 1\.0-1 — CHECKSUM_MISMATCH: hello-tool_1\.0-1_amd64\.deb: expected sha256 /,
    );
    // Nothing of 1.0-1, not even its two good packages.
    expect(await releases("debs")).toEqual({
      "0.5-1": ["hello-extra_0.5-1_amd64.deb"],
      "1.0+dfsg-1": ["hello-plus_1.0+dfsg-1_amd64.deb"],
      "1.1-1": ["hello-next_1.1-1_amd64.deb"],
    });
    expect((await pub.api("/api/v1/projects/debs/releases/1.0-1")).status).toBe(404);
    // The files are the repository's bytes.
    const one = await pub.api("/api/v1/projects/debs/releases/1.1-1");
    const { release } = (await one.json()) as { release: { files: { url: string }[] } };
    const served = Buffer.from(await (await fetch(release.files[0]!.url)).arrayBuffer());
    expect(served.equals(readFileSync(apt.pool.get("hello-next_1.1-1_amd64.deb")!))).toBe(true);
  });

  it("apt-get installs the imported packages from Packyard; the refused one is not there", async () => {
    const client = await aptClient("debs");
    await client.install("hello-next", "hello-extra", "hello-plus");
    const installed = await installedDebs(client);
    expect(installed).toContain("hello-next\t1.1-1");
    expect(installed).toContain("hello-extra\t0.5-1");
    expect(installed).toContain("hello-plus\t1.0+dfsg-1");
    await expect(client.install("hello-tool")).rejects.toThrow(/Unable to locate package hello-tool/);
  });

  it("a re-run once the mirror is fixed imports the release that failed, and apt-get installs it", async () => {
    const done = await imported(source(), "debs");
    expect(done.status).toBe("succeeded");
    expect(done.errors).toEqual([]);
    expect(done.progress).toMatchObject({
      releasesTotal: 4,
      releasesDone: 1,
      releasesSkipped: 3,
      filesDone: 3,
    });
    expect(done.summary).toMatch(
      /^Imported 1 release \(3 files, [\d.]+ [KM]?B\); skipped 3 already present$/,
    );
    expect((await releases("debs"))["1.0-1"]).toEqual([
      "hello-data_1.0-1_all.deb",
      "hello-epoch_1.0-1_all.deb",
      "hello-tool_1.0-1_amd64.deb",
    ]);
    const client = await aptClient("debs");
    await client.install("hello-tool", "hello-data", "hello-epoch");
    const installed = await installedDebs(client);
    expect(installed).toContain("hello-tool\t1.0-1");
    expect(installed).toContain("hello-epoch\t2:1.0-1");
    const run = await runCommand(["sh", join(client.root, "usr/bin/hello-epoch")], {});
    expect(run.stdout.trim()).toBe("hello-epoch 2:1.0-1");
  });

  it("fails clearly: wrong credentials, a distribution that is not there", async () => {
    const wrong = await imported({ ...source(), password: "nope" }, "named");
    expect(wrong.status).toBe("failed");
    expect(wrong.errors).toEqual([
      {
        version: null,
        code: "SOURCE_AUTH_FAILED",
        message: expect.stringContaining(`${aptServer.url}dists/stable/InRelease`),
        subject: `${aptServer.url}dists/stable/InRelease`,
      },
    ]);
    expect(wrong.summary).toMatch(/^Import failed: SOURCE_AUTH_FAILED — /);
    expect(wrong.summary).not.toContain("nope");

    const missing = await imported({ ...source(), distribution: "trixie" }, "named");
    expect(missing.status).toBe("failed");
    expect(missing.errors[0]).toMatchObject({ version: null, code: "SOURCE_NOT_FOUND" });
    expect(missing.summary).toBe(
      `Import failed: SOURCE_NOT_FOUND — No APT distribution "trixie" at ${aptServer.url}: neither ${aptServer.url}dists/trixie/InRelease nor ${aptServer.url}dists/trixie/Release exists`,
    );
    expect(await releases("named")).toEqual({});
  });
});

describe.runIf(hasYum)(`importing a YUM repository built with createrepo_c (${databaseKind})`, () => {
  it("imports every verified package as releases; a tampered package fails its release only, named", async () => {
    const tampered = yum.packages.get("packyard-weird-1.0-1.noarch.rpm")!;
    const original = tamper(tampered);
    let done: ImportInfo;
    try {
      done = await imported({ kind: "yum-repository", url: yumServer.url }, "rpms");
    } finally {
      writeFileSync(tampered, original);
    }
    expect(done.status).toBe("partial");
    expect(done.progress).toMatchObject({
      releasesTotal: 3,
      releasesDone: 2,
      releasesFailed: 1,
      filesDone: 2,
    });
    expect(done.errors).toEqual([
      {
        version: "1.0-1",
        code: "CHECKSUM_MISMATCH",
        message: expect.stringMatching(
          /^packyard-weird-1\.0-1\.noarch\.rpm: expected sha256 [0-9a-f]{64}; the bytes do not match the checksum the index gives$/,
        ),
        subject: "packyard-weird-1.0-1.noarch.rpm",
      },
    ]);
    expect(done.summary).toContain(
      "1 failed: 1.0-1 — CHECKSUM_MISMATCH: packyard-weird-1.0-1.noarch.rpm: expected sha256",
    );
    expect(await releases("rpms")).toEqual({
      "0.9-1": ["packyard-beta-0.9-1.x86_64.rpm"],
      "1.2.3-4": ["packyard-alpha-1.2.3-4.noarch.rpm"],
    });
  });

  it("dnf installs the imported packages from Packyard, resolving the dependency", async () => {
    const client = dnfRoot();
    const result = await client.dnf(`${server.url}/dl/mirror/rpms/rpm`, ["install", "packyard-beta"]);
    expect(result.status, `exit ${result.status}\n${result.stdout}\n${result.stderr}`).toBe(0);
    const installed = await runCommand(
      ["rpm", "--root", client.root, "-qa", "--qf", "%{NAME}-%{EPOCH}:%{VERSION}-%{RELEASE}\\n"],
      {},
    );
    expect(installed.stdout).toContain("packyard-alpha-2:1.2.3-4");
    expect(installed.stdout).toContain("packyard-beta-(none):0.9-1");
    const missing = await client.dnf(`${server.url}/dl/mirror/rpms/rpm`, ["install", "packyard-weird"]);
    expect(missing.status).not.toBe(0);
  });

  it("puts every package into the one release the operator names", async () => {
    const done = await imported({ kind: "yum-repository", url: yumServer.url, release: "2024.11" }, "named");
    expect(done.status).toBe("succeeded");
    expect(done.summary).toMatch(/^Imported 1 release \(3 files, /);
    expect(await releases("named")).toEqual({
      "2024.11": [
        "packyard-alpha-1.2.3-4.noarch.rpm",
        "packyard-beta-0.9-1.x86_64.rpm",
        "packyard-weird-1.0-1.noarch.rpm",
      ],
    });
  });

  it("says when there is no YUM repository at the URL", async () => {
    const missing = await imported({ kind: "yum-repository", url: `${yumServer.url}nothing/` }, "named");
    expect(missing.status).toBe("failed");
    expect(missing.errors[0]).toMatchObject({
      version: null,
      code: "SOURCE_NOT_FOUND",
      subject: `${yumServer.url}nothing/repodata/repomd.xml`,
    });
  });
});
