import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import * as openpgp from "openpgp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { concat } from "../rpm/byte-source.ts";
import { parseRpmPackage } from "../rpm/read-rpm.ts";
import { signRpm } from "../rpm/sign-rpm.ts";
import { buildTestRpms, type TestRpms } from "../rpm/testing/build-test-rpms.ts";
import { requireTools } from "../test-support/system-tools.ts";
import { buildYumRepodata } from "./build-yum-repodata.ts";

const hasTools = requireTools(["rpmbuild", "rpm", "dnf"]);
const userIDs = [{ name: "Packyard Repo", email: "repo@packyard.test" }];

describe.skipIf(!hasTools)("dnf installs from a repository we render and sign", () => {
  let rpms: TestRpms;
  let work: string;
  let repoKey: openpgp.PrivateKey;
  let strangerKey: openpgp.PrivateKey;

  /** Writes a complete signed repository: packages signed by us, repodata, repomd.xml.asc, gpg.key. */
  async function writeRepository(dir: string, metadataKey: openpgp.PrivateKey) {
    const packages = [];
    for (const path of [rpms.alpha, rpms.beta, rpms.weird, rpms.alphaSource]) {
      const original = readFileSync(path);
      const signed = await signRpm(original, { signingKey: repoKey });
      const bytes = concat([signed.leadAndSignature, original.subarray(signed.originalHeaderStart)]);
      const href = `packages/${basename(path)}`;
      mkdirSync(join(dir, "packages"), { recursive: true });
      writeFileSync(join(dir, href), bytes);
      // Stored data is what the reader saw in the signed file; the repository facts come from it too.
      packages.push({
        metadata: parseRpmPackage(bytes).metadata,
        file: {
          checksum: createHash("sha256").update(bytes).digest("hex"),
          href,
          size: bytes.length,
          time: 1_700_000_000,
        },
      });
    }
    const { files, repomdXml } = buildYumRepodata({ packages, timestamp: 1_700_000_000 });
    for (const file of files) {
      mkdirSync(dirname(join(dir, file.path)), { recursive: true });
      writeFileSync(join(dir, file.path), file.bytes);
    }
    writeFileSync(join(dir, "repodata/repomd.xml"), repomdXml);
    const signature = await openpgp.sign({
      message: await openpgp.createMessage({ text: repomdXml }),
      signingKeys: metadataKey,
      detached: true,
    });
    writeFileSync(join(dir, "repodata/repomd.xml.asc"), signature);
    writeFileSync(join(dir, "gpg.key"), repoKey.toPublic().armor());
  }

  function dnfInstall(repo: string, root: string, ...names: string[]) {
    const run = spawnSync(
      "dnf",
      [
        "-y",
        `--installroot=${root}`,
        "--releasever=12",
        `--setopt=reposdir=${root}/etc/yum.repos.d`,
        `--setopt=cachedir=${root}/cache`,
        "--setopt=install_weak_deps=False",
        "--nodocs",
        `--repofrompath=r,file://${repo}`,
        "--repo=r",
        "--setopt=r.gpgcheck=1",
        "--setopt=r.repo_gpgcheck=1",
        "--setopt=r.skip_if_unavailable=False",
        `--setopt=r.gpgkey=file://${repo}/gpg.key`,
        "install",
        ...names,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    return { status: run.status, output: run.stdout + run.stderr };
  }

  beforeAll(async () => {
    rpms = buildTestRpms();
    work = mkdtempSync(join(tmpdir(), "packyard-dnf-"));
    [{ privateKey: repoKey }, { privateKey: strangerKey }] = await Promise.all([
      openpgp.generateKey({ type: "rsa", rsaBits: 3072, userIDs, format: "object" }),
      openpgp.generateKey({ type: "ecc", userIDs: [{ name: "Stranger" }], format: "object" }),
    ]);
  });
  afterAll(() => {
    rpms?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("resolves beta's requires to alpha and installs both, checking every signature", async () => {
    const repo = join(work, "repo");
    await writeRepository(repo, repoKey);
    const root = join(work, "root");
    const result = dnfInstall(repo, root, "packyard-beta");
    expect(result.output).toContain("Complete!");
    expect(result.status).toBe(0);
    const installed = spawnSync("rpm", ["--root", root, "-qa", "--qf", "%{NEVRA}\n"], { encoding: "utf8" });
    const packages = installed.stdout.split("\n").filter((line) => line && !line.startsWith("gpg-pubkey"));
    expect(packages.sort()).toEqual(["packyard-alpha-2:1.2.3-4.noarch", "packyard-beta-0.9-1.x86_64"]);
    expect(readFileSync(join(root, "etc/alpha/alpha.conf"), "utf8")).toBe("x=1\n");
    // The package signatures were checked against the key dnf imported into the installroot.
    const keys = spawnSync("rpm", ["--root", root, "-q", "gpg-pubkey"], { encoding: "utf8" });
    expect(keys.stdout).toContain(`gpg-pubkey-${repoKey.getKeyID().toHex().slice(-8)}`);
  });

  it("refuses the repository when repomd.xml is signed by another key", async () => {
    const repo = join(work, "repo-stranger");
    await writeRepository(repo, strangerKey);
    const result = dnfInstall(repo, join(work, "root-stranger"), "packyard-beta");
    expect(result.status).not.toBe(0);
    expect(result.output).not.toContain("Complete!");
    console.log(
      `dnf with a foreign repomd.xml signature: ${result.output.trim().split("\n").slice(-3).join(" | ")}`,
    );
  });
});
