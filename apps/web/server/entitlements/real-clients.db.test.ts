// Entitlement tokens as a customer's machines use them (issue 40): real apt-get and dnf, set up by
// the project's setup scripts fetched with `curl -u TOKEN:`, installing from a private project;
// a suite outside the token and a used-up or disabled token refused with the statuses apt and dnf
// print; the installs counted as installs, a release file fetched by curl as a download, each
// client a machine of the day. SQLite, and PostgreSQL when configured.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aptRoot, runCommand } from "../../test/apt-client.ts";
import { dnfRoot } from "../../test/dnf-client.ts";
import { databaseKind } from "../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../test/live-server.ts";
import { makeTempDir, removeTempDirs } from "../../test/temp-dirs.ts";
import { flushDownloadCounts } from "../billing/usage.ts";

const hasTools = requireTools(["apt-get", "dpkg", "gpgv", "rpmbuild", "rpm", "dnf", "curl"]);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let token: string;
let entitlementId: string;

function deb(name: string, version = "1.0.0") {
  return buildTestDeb({
    control: `Package: ${name}
Version: ${version}
Architecture: amd64
Maintainer: Packyard Tests <tests@example.com>
Description: ${name} for Packyard's entitlement tests
 It installs one script.
`,
    dataFiles: [{ name: `./usr/bin/${name}`, data: `#!/bin/sh\necho ${name}\n` }],
  });
}

/** A noarch .rpm of `name` at `version` (rpmbuild, no files). */
function rpm(name: string, version: string): string {
  const top = makeTempDir("packyard-entitled-rpm-");
  mkdirSync(join(top, "SPECS"), { recursive: true });
  writeFileSync(
    join(top, "SPECS/p.spec"),
    `Name: ${name}\nVersion: ${version}\nRelease: 1\nSummary: ${name}\nLicense: MIT\nBuildArch: noarch\nAutoReq: no\n%description\n${name} ${version}.\n%files\n`,
  );
  execFileSync("rpmbuild", ["--define", `_topdir ${top}`, "--quiet", "-bb", join(top, "SPECS/p.spec")], {
    stdio: "pipe",
  });
  const dir = join(top, "RPMS/noarch");
  return join(dir, readdirSync(dir)[0]!);
}

async function upload(filename: string, bytes: Uint8Array, query = "", version = "1.0.0") {
  const res = await pub.api(`/api/v1/projects/licensed/releases/${version}/files/${filename}${query}`, {
    method: "PUT",
    body: Buffer.from(bytes),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function api(method: string, path: string, body?: unknown) {
  const res = await pub.api(`/api/v1/projects/licensed/entitlements${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** The setup script as `curl -fsSL -u TOKEN: …/setup.<format>.sh` fetches it. */
async function setupScript(format: "deb" | "rpm", secret = token) {
  const res = await fetch(`${server.url}/dl/vendor/licensed/setup.${format}.sh`, {
    headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString("base64")}` },
  });
  expect(res.status).toBe(200);
  return res.text();
}

/** An apt root set up as `curl -fsSL -u TOKEN: …/setup.deb.sh | sudo bash` sets a machine up. */
async function aptMachine(secret = token) {
  const client = aptRoot();
  writeFileSync(join(client.root, "setup.sh"), await setupScript("deb", secret));
  const setup = await runCommand(["sh", join(client.root, "setup.sh")], {
    ...client.env,
    PACKYARD_ROOT: client.root,
  });
  expect(setup.status, output(setup)).toBe(0);
  return client;
}

const output = (result: { status: number | null; stdout: string; stderr: string }) =>
  `exit ${result.status}\n${result.stdout}\n${result.stderr}`;

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  pub = await publisher(server, "vendor");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "licensed", name: "Licensed", visibility: "private" }),
  });
  expect(created.status).toBe(201);
  await upload("licensed-tool_1.0.0_amd64.deb", deb("licensed-tool"));
  await upload("licensed-extra_1.0.0_amd64.deb", deb("licensed-extra"));
  await upload("beta-tool_1.0.0_amd64.deb", deb("beta-tool"), "?distribution=beta");
  await upload(rpms.alpha.split("/").pop()!, readFileSync(rpms.alpha));
  // Two major versions of one package, for a token licensed for 2.x only.
  await upload("versioned-tool_2.1.0_amd64.deb", deb("versioned-tool", "2.1.0"), "", "2.1.0");
  await upload("versioned-tool_3.0.0_amd64.deb", deb("versioned-tool", "3.0.0"), "", "3.0.0");
  for (const version of ["2.1.0", "3.0.0"]) {
    const path = rpm("versioned-rpm", version);
    await upload(path.split("/").pop()!, readFileSync(path), "", version);
  }
  const entitlement = await api("POST", "", { name: "Initech", suites: ["stable"] });
  expect(entitlement.status).toBe(201);
  token = entitlement.body.token;
  entitlementId = entitlement.body.entitlement.id;
}, 180_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`entitlement tokens with real apt-get and dnf (${databaseKind})`, () => {
  it("apt: setup.deb.sh fetched with the token writes it to auth.conf.d (600); apt-get installs; another suite is not there", async () => {
    const client = await aptMachine();
    const credentials = join(client.root, "etc/apt/auth.conf.d/packyard-vendor-licensed.conf");
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(readFileSync(credentials, "utf8")).toContain(`password ${token}`);
    // No secret in a URL apt was given.
    const sources = readFileSync(
      join(client.root, "etc/apt/sources.list.d/packyard-vendor-licensed.sources"),
      "utf8",
    );
    expect(sources).not.toContain(token);

    await client.install("licensed-tool");
    expect(readFileSync(join(client.root, "usr/bin/licensed-tool"), "utf8")).toContain("echo licensed-tool");

    // The beta suite is outside the token: 404, as if it did not exist.
    writeFileSync(
      join(client.root, "etc/apt/sources.list"),
      `deb [signed-by=${client.root}/etc/apt/keyrings/packyard-vendor-licensed.gpg] ${server.url}/dl/vendor/licensed/deb beta main\n`,
    );
    const beta = await client.run("apt-get", "update");
    expect(`${beta.stdout}${beta.stderr}`).toMatch(/404\s+Not Found/);

    await flushDownloadCounts(server.services.database.db);
    const usage = await api("GET", `/${entitlementId}/usage`);
    expect(usage.body.days).toHaveLength(1);
    expect(usage.body.days[0]).toMatchObject({ installs: 1, downloads: 0, machines: 1 });
    expect(usage.body.entitlement.lastUsed.client).toMatch(/^Debian APT-HTTP/);
  }, 180_000);

  it("apt: a token whose downloads are used up is refused with 403, which apt-get prints", async () => {
    const used = await api("GET", `/${entitlementId}`);
    expect(
      (await api("PATCH", `/${entitlementId}`, { maxDownloads: used.body.entitlement.downloads })).status,
    ).toBe(200);
    const client = await aptMachine();
    const refused = await client.run("apt-get", "install", "-y", "--no-install-recommends", "licensed-extra");
    expect(refused.status).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/403\s+Forbidden/);
    expect((await api("PATCH", `/${entitlementId}`, { maxDownloads: null })).status).toBe(200);
  }, 180_000);

  it("apt: a token licensed for 2.x reads a suite without 3.x, so apt-get installs the newest 2.x", async () => {
    const licensed = await api("POST", "", { name: "Licensed for 2.x", versionRange: ">=2.0 <3.0" });
    expect(licensed.status).toBe(201);
    const client = await aptMachine(licensed.body.token);
    const policy = await client.run("apt-cache", "policy", "versioned-tool");
    expect(policy.stdout).toMatch(/Candidate: 2\.1\.0/);
    expect(policy.stdout).not.toContain("3.0.0");
    await client.install("versioned-tool");
    const status = readFileSync(join(client.root, "var/lib/dpkg/status"), "utf8");
    expect(status).toMatch(/Package: versioned-tool\n(?:.+\n)*?Version: 2\.1\.0/);
    // Asked for by its pool path anyway, 3.0.0 is not there for this token (it is for another).
    const { pool_path } = await server.services.database.db
      .selectFrom("deb_package")
      .select("pool_path")
      .where("name", "=", "versioned-tool")
      .where("version", "=", "3.0.0")
      .executeTakeFirstOrThrow();
    const pool = `${server.url}/dl/vendor/licensed/deb/${pool_path}`;
    const asked = (secret: string) => fetch(pool, { headers: { authorization: `Bearer ${secret}` } });
    expect((await asked(licensed.body.token)).status).toBe(404);
    expect((await asked(token)).status).toBe(200);
    // A token without a range sees both.
    const everything = await aptMachine();
    expect((await everything.run("apt-cache", "policy", "versioned-tool")).stdout).toMatch(
      /Candidate: 3\.0\.0/,
    );
  }, 180_000);

  it("dnf: a token licensed for 2.x reads repodata without 3.x, so dnf installs the newest 2.x", async () => {
    const licensed = await api("POST", "", { name: "Licensed for 2.x on dnf", versionRange: ">=2.0 <3.0" });
    expect(licensed.status).toBe(201);
    const client = dnfRoot();
    writeFileSync(join(client.root, "setup.sh"), await setupScript("rpm", licensed.body.token));
    const setup = await runCommand(["sh", join(client.root, "setup.sh")], { PACKYARD_ROOT: client.root });
    expect(setup.status, output(setup)).toBe(0);
    const listed = await client.dnfWithRepos(["list", "--showduplicates", "versioned-rpm"]);
    expect(listed.status, output(listed)).toBe(0);
    expect(listed.stdout).toContain("2.1.0-1");
    expect(listed.stdout).not.toContain("3.0.0-1");
    const installed = await client.dnfWithRepos(["install", "versioned-rpm"]);
    expect(installed.status, output(installed)).toBe(0);
    const query = await runCommand(["rpm", "--root", client.root, "-q", "versioned-rpm"], {});
    expect(query.stdout).toContain("versioned-rpm-2.1.0-1");
    // The same repository without a range lists both.
    const everything = dnfRoot();
    writeFileSync(join(everything.root, "setup.sh"), await setupScript("rpm"));
    expect(
      (await runCommand(["sh", join(everything.root, "setup.sh")], { PACKYARD_ROOT: everything.root }))
        .status,
    ).toBe(0);
    const all = await everything.dnfWithRepos(["list", "--showduplicates", "versioned-rpm"]);
    expect(all.stdout).toContain("3.0.0-1");
  }, 240_000);

  it("dnf: setup.rpm.sh fetched with the token writes it into the .repo file (600); dnf installs; a disabled token is refused", async () => {
    const client = dnfRoot();
    writeFileSync(join(client.root, "setup.sh"), await setupScript("rpm"));
    const setup = await runCommand(["sh", join(client.root, "setup.sh")], { PACKYARD_ROOT: client.root });
    expect(setup.status, output(setup)).toBe(0);
    const repo = join(client.root, "etc/yum.repos.d/packyard-vendor-licensed.repo");
    expect(statSync(repo).mode & 0o777).toBe(0o600);
    expect(readFileSync(repo, "utf8")).toContain(`password=${token}`);
    const installed = await client.dnfWithRepos(["install", "packyard-alpha"]);
    expect(installed.status, output(installed)).toBe(0);

    await flushDownloadCounts(server.services.database.db);
    const usage = await api("GET", `/${entitlementId}/usage`);
    expect(usage.body.days[0].installs).toBe(2);

    // The customer's curl fetching a release file with the token: a download, from another
    // machine (another client), not an install.
    const fetched = await runCommand(
      [
        "curl",
        "-fsS",
        "-u",
        `${token}:`,
        "-o",
        join(client.root, "fetched.rpm"),
        `${server.url}/dl/vendor/licensed/releases/1.0.0/${rpms.alpha.split("/").pop()!}`,
      ],
      {},
    );
    expect(fetched.status, output(fetched)).toBe(0);
    await flushDownloadCounts(server.services.database.db);
    const after = (await api("GET", `/${entitlementId}/usage`)).body.days[0];
    expect(after).toMatchObject({
      installs: 2,
      downloads: usage.body.days[0].downloads + 1,
      machines: usage.body.days[0].machines + 1,
    });

    expect((await api("PATCH", `/${entitlementId}`, { enabled: false })).status).toBe(200);
    // --refresh: dnf asks the server again instead of trusting its cache; a repository it cannot
    // read is an error, not skipped.
    const refused = await client.dnfWithRepos([
      "--refresh",
      "--setopt=skip_if_unavailable=False",
      "makecache",
    ]);
    expect(refused.status).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/401/);
    expect((await api("PATCH", `/${entitlementId}`, { enabled: true })).status).toBe(200);
  }, 240_000);
});
