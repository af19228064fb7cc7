// The YUM repository as real dnf and rpm see it: packages built with rpmbuild, uploaded
// unsigned, signed by Packyard on upload, installed by dnf with gpgcheck=1 and repo_gpgcheck=1.
// Runs on SQLite and on PostgreSQL.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { generateSigningKey, loadSigningKey } from "@packyard/formats/openpgp/index.ts";
import { signRpmBytes } from "@packyard/formats/rpm/sign-rpm.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../../test/apt-client.ts";
import { dnfRoot } from "../../../test/dnf-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";

const hasTools = requireTools(["rpmbuild", "rpm", "rpmkeys", "dnf", "gpg"]);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let busy: string[];
const work = makeTempDir("packyard-yum-");

/** 30 small packages from one spec, as subpackages: one rpmbuild run. */
function buildBusyRpms(): string[] {
  const top = join(work, "busy");
  mkdirSync(join(top, "SPECS"), { recursive: true });
  const names = Array.from({ length: 30 }, (_, i) => `busy-${String(i + 1).padStart(2, "0")}`);
  const spec = `Name: busy-base
Version: 1.0
Release: 1
Summary: Busy base
License: MIT
BuildArch: noarch
AutoReq: no
%description
Busy base.
${names.map((n) => `%package -n ${n}\nSummary: ${n}\n%description -n ${n}\n${n}.\n%files -n ${n}\n`).join("\n")}
%files
`;
  writeFileSync(join(top, "SPECS/busy.spec"), spec);
  execFileSync("rpmbuild", ["--define", `_topdir ${top}`, "--quiet", "-bb", join(top, "SPECS/busy.spec")], {
    stdio: "pipe",
  });
  return names.map((n) =>
    join(top, "RPMS/noarch", readdirSync(join(top, "RPMS/noarch")).find((f) => f.startsWith(`${n}-`))!),
  );
}

async function upload(project: string, version: string, path: string, bytes?: Uint8Array, query = "") {
  const filename = path.split("/").pop()!;
  const res = await pub.api(`/api/v1/projects/${project}/releases/${version}/files/${filename}${query}`, {
    method: "PUT",
    body: Buffer.from(bytes ?? readFileSync(path)),
  });
  return { status: res.status, body: await res.json() };
}

const repoUrl = (project: string, group = "") =>
  `${server.url}/dl/rpms/${project}/rpm${group ? `/${group}` : ""}`;
const failed = (result: { status: number | null; stdout: string; stderr: string }) =>
  `exit ${result.status}\n${result.stdout}\n${result.stderr}`;

async function rpmVerify(file: Uint8Array, armoredKey: string) {
  const db = mkdtempSync(join(work, "rpmdb-"));
  writeFileSync(join(db, "key.asc"), armoredKey);
  writeFileSync(join(db, "pkg.rpm"), file);
  const imported = await runCommand(["rpmkeys", "--dbpath", db, "--import", join(db, "key.asc")], {});
  expect(imported.status, imported.stderr).toBe(0);
  return runCommand(["rpmkeys", "--dbpath", db, "-Kv", join(db, "pkg.rpm")], { LC_ALL: "C" });
}

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  busy = buildBusyRpms();
  server = await startLiveServer();
  pub = await publisher(server, "rpms");
  for (const [slug, visibility] of [
    ["tools", "public"],
    ["hidden", "private"],
    ["busy", "public"],
  ] as const) {
    const res = await pub.api("/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ slug, name: slug, visibility }),
    });
    expect(res.status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`YUM repositories with real dnf (${databaseKind})`, () => {
  it("signs unsigned uploads, and dnf installs them with both checks on, resolving the dependency", async () => {
    expect((await upload("tools", "1.2.3", rpms.alpha)).status).toBe(201);
    const beta = await upload("tools", "1.2.3", rpms.beta);
    expect(beta.status, JSON.stringify(beta.body)).toBe(201);
    const client = dnfRoot();
    const result = await client.dnf(repoUrl("tools"), ["install", "packyard-beta"]);
    expect(result.status, failed(result)).toBe(0);
    expect(result.stdout).toMatch(/packyard-alpha/);
    const installed = await runCommand(
      ["rpm", "--root", client.root, "-qa", "--qf", "%{NAME}-%{EPOCH}:%{VERSION}\\n"],
      {},
    );
    expect(installed.stdout).toContain("packyard-alpha-2:1.2.3");
    expect(installed.stdout).toContain("packyard-beta-");

    // The stored file is signed with the project's key, and rpmkeys says so.
    const file = new Uint8Array(await (await fetch(beta.body.file.url)).arrayBuffer());
    const key = await (await fetch(`${server.url}/dl/rpms/tools/gpg.key`)).text();
    const verify = await rpmVerify(file, key);
    expect(verify.status, failed(verify)).toBe(0);
    expect(verify.stdout).toMatch(/Header V4 RSA\/SHA(256|512) Signature, key ID [0-9a-f]+: OK/);
    expect(file.length).toBe(readFileSync(rpms.beta).length);

    // The .repo file a machine would use.
    const repo = await (await fetch(`${repoUrl("tools")}/tools.repo`)).text();
    expect(repo).toContain("gpgcheck=1\nrepo_gpgcheck=1\n");
    expect(repo).toContain(`gpgkey=${server.url}/dl/rpms/tools/gpg.key`);
  }, 180_000);

  it("re-signs a package already signed with another key", async () => {
    const other = await loadSigningKey(
      (await generateSigningKey({ name: "Someone else", email: "else@example.com", algorithm: "rsa3072" }))
        .armoredPrivateKey,
    );
    const foreign = await signRpmBytes(new Uint8Array(readFileSync(rpms.weird)), {
      signingKey: other.privateKey,
    });
    const res = await upload("tools", "9.0.0", rpms.weird, foreign);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = new Uint8Array(await (await fetch(res.body.file.url)).arrayBuffer());
    const ours = await rpmVerify(stored, await (await fetch(`${server.url}/dl/rpms/tools/gpg.key`)).text());
    expect(ours.status, failed(ours)).toBe(0);
    const theirs = await rpmVerify(stored, other.privateKey.toPublic().armor());
    expect(theirs.status).not.toBe(0);
  }, 60_000);

  it("serves groups as their own repositories", async () => {
    expect((await upload("tools", "2.0.0-el9", rpms.alpha, undefined, "?group=el9")).status).toBe(201);
    const client = dnfRoot();
    const result = await client.dnf(repoUrl("tools", "el9"), ["install", "packyard-alpha"]);
    expect(result.status, failed(result)).toBe(0);
    const missing = await client.dnf(repoUrl("tools", "el9"), ["install", "packyard-beta"]);
    expect(missing.status).not.toBe(0);
  }, 120_000);

  it("drops a yanked release's packages and brings them back on unyank", async () => {
    const yank = await pub.api("/api/v1/projects/tools/releases/1.2.3/yank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "broken" }),
    });
    expect(yank.status).toBe(200);
    const client = dnfRoot();
    const gone = await client.dnf(repoUrl("tools"), ["install", "packyard-beta"]);
    expect(gone.status).not.toBe(0);
    expect(`${gone.stdout}${gone.stderr}`).toMatch(/No match for argument: packyard-beta/);
    expect((await pub.api("/api/v1/projects/tools/releases/1.2.3/unyank", { method: "POST" })).status).toBe(
      200,
    );
    const back = await dnfRoot().dnf(repoUrl("tools"), ["install", "packyard-beta"]);
    expect(back.status, failed(back)).toBe(0);
  }, 180_000);

  it("lets a client holding the previous repomd.xml install while a new publish happens", async () => {
    const stale = await (await fetch(`${repoUrl("tools")}/repodata/repomd.xml`)).arrayBuffer();
    const staleSig = await (await fetch(`${repoUrl("tools")}/repodata/repomd.xml.asc`)).arrayBuffer();
    expect((await upload("tools", "10.0.0", busy[0]!)).status).toBe(201);
    const fresh = await (await fetch(`${repoUrl("tools")}/repodata/repomd.xml`)).text();
    expect(fresh).not.toBe(Buffer.from(stale).toString());
    const mirror: Server = createServer(async (req, res) => {
      const path = req.url ?? "";
      if (path.endsWith("/repodata/repomd.xml")) return void res.writeHead(200).end(Buffer.from(stale));
      if (path.endsWith("/repodata/repomd.xml.asc"))
        return void res.writeHead(200).end(Buffer.from(staleSig));
      const upstream = await fetch(`${server.url}${path}`);
      res.writeHead(upstream.status).end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => mirror.listen(0, "127.0.0.1", () => r()));
    try {
      const port = (mirror.address() as { port: number }).port;
      const client = dnfRoot();
      const result = await client.dnf(
        `http://127.0.0.1:${port}/dl/rpms/tools/rpm`,
        ["install", "packyard-alpha"],
        {
          keyUrl: `${server.url}/dl/rpms/tools/gpg.key`,
        },
      );
      expect(result.status, failed(result)).toBe(0);
    } finally {
      mirror.close();
    }
  }, 120_000);

  it("ends 30 concurrent uploads with all 30 in the repository, in fewer builds than uploads", async () => {
    const id = (
      await server.services.database.db
        .selectFrom("project")
        .select("id")
        .where("slug", "=", "busy")
        .executeTakeFirstOrThrow()
    ).id;
    const before = server.services.repos.builds.get(id) ?? 0;
    const results = await Promise.all(busy.map((path) => upload("busy", "1.0", path)));
    expect(results.map((r) => r.status)).toEqual(busy.map(() => 201));
    expect((server.services.repos.builds.get(id) ?? 0) - before).toBeLessThan(30);
    const client = dnfRoot();
    const names = busy.map((p) =>
      p
        .split("/")
        .pop()!
        .replace(/-1\.0-1\.noarch\.rpm$/, ""),
    );
    const result = await client.dnf(repoUrl("busy"), ["install", ...names]);
    expect(result.status, failed(result)).toBe(0);
    const installed = await runCommand(["rpm", "--root", client.root, "-qa"], {});
    for (const name of names) expect(installed.stdout).toContain(`${name}-1.0-1.noarch`);
  }, 240_000);

  it("requires credentials for a private repository and works with a read token as dnf username/password", async () => {
    expect((await upload("hidden", "1.0.0", rpms.alpha)).status).toBe(201);
    const id = (
      await server.services.database.db
        .selectFrom("project")
        .select("id")
        .where("slug", "=", "hidden")
        .executeTakeFirstOrThrow()
    ).id;
    const token = await pub.key({ projects: [id], access: "read" });
    expect((await fetch(`${repoUrl("hidden")}/repodata/repomd.xml`)).status).toBe(404);
    // The key of a private repository needs the token too; the setup script fetches it the same way.
    const keyFile = join(work, "hidden.asc");
    writeFileSync(
      keyFile,
      await (
        await fetch(`${server.url}/dl/rpms/hidden/gpg.key`, { headers: { authorization: `Bearer ${token}` } })
      ).text(),
    );
    expect((await fetch(`${server.url}/dl/rpms/hidden/gpg.key`)).status).toBe(404);
    const keyUrl = `file://${keyFile}`;
    const denied = await dnfRoot().dnf(repoUrl("hidden"), ["install", "packyard-alpha"], { keyUrl });
    expect(denied.status).not.toBe(0);
    const allowed = await dnfRoot().dnf(repoUrl("hidden"), ["install", "packyard-alpha"], {
      keyUrl,
      username: "token",
      password: token,
    });
    expect(allowed.status, failed(allowed)).toBe(0);
  }, 180_000);

  it("sets a machine up with setup.rpm.sh, then installs from it", async () => {
    const client = dnfRoot();
    const script = await (await fetch(`${server.url}/dl/rpms/tools/setup.rpm.sh`)).text();
    writeFileSync(join(client.root, "setup.sh"), script);
    const setup = await runCommand(["sh", join(client.root, "setup.sh")], { PACKYARD_ROOT: client.root });
    expect(setup.status, failed(setup)).toBe(0);
    const repo = readFileSync(join(client.root, "etc/yum.repos.d/packyard-rpms-tools.repo"), "utf8");
    expect(repo).toContain(`baseurl=${server.url}/dl/rpms/tools/rpm`);
    const result = await client.dnfWithRepos(["install", "packyard-beta"]);
    expect(result.status, failed(result)).toBe(0);
  }, 180_000);
});
