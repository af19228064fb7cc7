// End to end: a repository rendered and signed by this package, then read by the real apt-get
// (update, policy, install) in a private root, the strongest check that clients accept it.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDeb } from "../deb/read-deb.ts";
import { buildTestDeb } from "../deb/test-deb-builder.ts";
import { gpgvVerify } from "../openpgp/gpg-test-support.ts";
import { buildBinaryKeyring } from "../openpgp/keyring.ts";
import { signCleartext, signDetachedArmored } from "../openpgp/signatures.ts";
import { type GeneratedSigningKey, generateSigningKey, loadSigningKey } from "../openpgp/signing-key.ts";
import { requireTools } from "../test-support/system-tools.ts";
import { type PackagesIndexEntry, renderPackagesIndex } from "./packages-index.ts";
import { renderPackagesStanza } from "./packages-stanza.ts";
import { describeIndexFile, type ReleaseFileEntry, renderRelease } from "./release-file.ts";
import { byHashPath, debFileName, packagesIndexPath, poolPath } from "./repository-paths.ts";

function control(name: string, version: string, architecture: string): string {
  return `Package: ${name}
Version: ${version}
Architecture: ${architecture}
Maintainer: Packyard Tests <tests@example.com>
Installed-Size: 1
Section: misc
Priority: optional
Description: ${name} for the apt acceptance test
 Built in memory by the test.
`;
}

const packages = [
  { name: "hello-world", version: "1.0-1", architecture: "amd64", file: "./usr/bin/hello-world" },
  { name: "hello-world", version: "1:0.9-1", architecture: "amd64", file: "./usr/bin/hello-world" },
  { name: "hello-world", version: "1:0.9~rc1-1", architecture: "amd64", file: "./usr/bin/hello-world" },
  { name: "packyard-data", version: "2.0", architecture: "all", file: "./usr/share/packyard-data/README" },
];

const hash = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

function write(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

interface Repository {
  root: string;
  release: string;
  inRelease: string;
}

async function publishRepository(
  root: string,
  keys: Awaited<ReturnType<typeof loadSigningKey>>[],
): Promise<Repository> {
  const byArchitecture = new Map<string, PackagesIndexEntry[]>();
  for (const pkg of packages) {
    const deb = buildTestDeb({
      control: control(pkg.name, pkg.version, pkg.architecture),
      controlCompression: "xz",
      dataCompression: "zstd",
      dataFiles: [
        // dpkg creates no parent directories a package does not list.
        { name: "./usr/share/", type: "directory" },
        { name: "./usr/share/packyard-data/", type: "directory" },
        { name: pkg.file, data: `${pkg.name} ${pkg.version}\n` },
      ],
    });
    const parsed = await readDeb(deb);
    const filename = poolPath({
      component: "main",
      source: parsed.source,
      filename: debFileName(parsed.name, parsed.version, parsed.architecture),
    });
    write(join(root, filename), deb);
    const stanza = renderPackagesStanza(parsed.control, {
      filename,
      size: deb.length,
      md5: hash("md5", deb),
      sha1: hash("sha1", deb),
      sha256: hash("sha256", deb),
      sha512: hash("sha512", deb),
    });
    const entries = byArchitecture.get(parsed.architecture) ?? [];
    entries.push({ name: parsed.name, version: parsed.version, architecture: parsed.architecture, stanza });
    byArchitecture.set(parsed.architecture, entries);
  }

  const suiteRoot = join(root, "dists/stable");
  const files: ReleaseFileEntry[] = [];
  for (const [architecture, entries] of byArchitecture) {
    const indexPath = packagesIndexPath("main", architecture);
    const text = renderPackagesIndex(entries);
    for (const [path, content] of [
      [indexPath, Buffer.from(text)],
      [`${indexPath}.gz`, gzipSync(text)],
    ] as const) {
      const entry = describeIndexFile(path, content);
      files.push(entry);
      write(join(suiteRoot, path), content);
      write(join(suiteRoot, byHashPath(path, "SHA256", entry.sha256)), content);
      write(join(suiteRoot, byHashPath(path, "SHA512", entry.sha512)), content);
    }
  }
  const now = Date.now();
  const release = renderRelease({
    origin: "Packyard",
    label: "Packyard acceptance",
    suite: "stable",
    codename: "stable",
    date: new Date(now - 60_000),
    validUntil: new Date(now + 7 * 86_400_000),
    architectures: ["amd64", "all"],
    components: ["main"],
    description: "apt-get acceptance test",
    files,
  });
  const inRelease = await signCleartext(release, keys);
  write(join(suiteRoot, "Release"), release);
  write(join(suiteRoot, "InRelease"), inRelease);
  write(join(suiteRoot, "Release.gpg"), await signDetachedArmored(release, keys));
  return { root, release, inRelease };
}

/** A private apt root as FORMATS.md describes it; nothing of the machine's apt state is used. */
function aptRoot(
  base: string,
  sourcesLine: string,
): { root: string; run: (...args: string[]) => SpawnSyncReturns<string> } {
  const root = mkdtempSync(join(base, "apt-root-"));
  for (const directory of [
    "etc/apt/apt.conf.d",
    "etc/apt/preferences.d",
    "etc/apt/sources.list.d",
    "etc/apt/trusted.gpg.d",
    "var/lib/apt/lists/partial",
    "var/cache/apt/archives/partial",
    "var/log/apt",
    "var/lib/dpkg/info",
    "var/lib/dpkg/updates",
    "var/lib/dpkg/triggers",
  ]) {
    mkdirSync(join(root, directory), { recursive: true });
  }
  writeFileSync(join(root, "var/lib/dpkg/status"), "");
  writeFileSync(join(root, "etc/apt/sources.list"), `${sourcesLine}\n`);
  writeFileSync(
    join(root, "apt.conf"),
    `Dir::Etc "${root}/etc/apt"; Dir::Etc::parts "${root}/etc/apt/apt.conf.d"; Dir::Etc::TrustedParts "${root}/etc/apt/trusted.gpg.d";
Dir::State "${root}/var/lib/apt"; Dir::State::status "${root}/var/lib/dpkg/status"; Dir::Cache "${root}/var/cache/apt"; Dir::Log "${root}/var/log/apt";
APT::Architecture "amd64"; APT::Architectures { "amd64"; }; APT::Sandbox::User "root";
Acquire::Languages "none";
DPkg::Options { "--root=${root}"; "--admindir=${root}/var/lib/dpkg"; "--log=${root}/var/log/dpkg.log"; "--force-script-chrootless"; };
`,
  );
  const run = (...args: string[]) =>
    spawnSync(args[0]!, args.slice(1), {
      encoding: "utf8",
      env: {
        ...process.env,
        APT_CONFIG: join(root, "apt.conf"),
        LC_ALL: "C",
        DEBIAN_FRONTEND: "noninteractive",
      },
      timeout: 30_000,
    });
  return { root, run };
}

const warningsOrErrors = (output: string) => output.split("\n").filter((line) => /^(W|E):/.test(line));

describe("a repository published with Packyard's renderers", () => {
  const hasTools = requireTools(["gpgv", "apt-get", "apt-cache", "dpkg"]);
  const base = mkdtempSync(join(tmpdir(), "apt-acceptance-"));
  let oldKey: GeneratedSigningKey;
  let newKey: GeneratedSigningKey;
  let repository: Repository;

  beforeAll(async () => {
    if (!hasTools) return;
    [oldKey, newKey] = await Promise.all([
      generateSigningKey({ name: "Packyard old", email: "old@example.com", algorithm: "rsa3072" }),
      generateSigningKey({ name: "Packyard new", email: "new@example.com", algorithm: "ed25519" }),
    ]);
    const keys = await Promise.all([
      loadSigningKey(oldKey.armoredPrivateKey),
      loadSigningKey(newKey.armoredPrivateKey),
    ]);
    // Signed by both keys, as during a key rotation.
    repository = await publishRepository(join(base, "repo"), keys);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.runIf(hasTools)("has an InRelease gpgv accepts with either key", async () => {
    const both = await buildBinaryKeyring([oldKey.armoredPublicKey, newKey.armoredPublicKey]);
    const result = gpgvVerify(both, { InRelease: repository.inRelease }, ["--output", "-", "InRelease"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.goodSigners).toEqual([oldKey.fingerprint, newKey.fingerprint]);
    expect(result.stdout).toBe(repository.release);
  });

  it.runIf(hasTools).each(["old", "new"] as const)(
    "apt-get update, policy and install succeed for a client holding only the %s key",
    (which) => {
      const key = which === "old" ? oldKey : newKey;
      const keyringPath = join(base, `${which}.gpg`);
      writeFileSync(keyringPath, key.binaryPublicKey);
      const apt = aptRoot(base, `deb [signed-by=${keyringPath}] file:${repository.root} stable main`);

      const update = apt.run("apt-get", "update");
      const updateOutput = `${update.stdout}${update.stderr}`;
      expect(warningsOrErrors(updateOutput), updateOutput).toEqual([]);
      expect(update.status, updateOutput).toBe(0);
      const policy = apt.run("apt-cache", "policy", "hello-world");
      expect(policy.stdout, policy.stderr).toContain("Candidate: 1:0.9-1");

      const install = apt.run(
        "apt-get",
        "install",
        "-y",
        "--no-install-recommends",
        "hello-world",
        "packyard-data",
      );
      const installOutput = `${install.stdout}${install.stderr}`;
      expect(warningsOrErrors(installOutput), installOutput).toEqual([]);
      expect(install.status, installOutput).toBe(0);
      expect(readFileSync(join(apt.root, "usr/bin/hello-world"), "utf8")).toBe("hello-world 1:0.9-1\n");
      expect(existsSync(join(apt.root, "usr/share/packyard-data/README"))).toBe(true);
    },
  );

  it.runIf(hasTools)("apt fetches the indexes by hash: update works with the plain index names gone", () => {
    const copy = join(base, "repo-by-hash-only");
    cpSync(repository.root, copy, { recursive: true });
    for (const architecture of ["amd64", "all"]) {
      for (const name of ["Packages", "Packages.gz"])
        rmSync(join(copy, "dists/stable/main", `binary-${architecture}`, name));
    }
    const keyringPath = join(base, "by-hash.gpg");
    writeFileSync(keyringPath, newKey.binaryPublicKey);
    const apt = aptRoot(base, `deb [signed-by=${keyringPath}] file:${copy} stable main`);
    const update = apt.run("apt-get", "update");
    const output = `${update.stdout}${update.stderr}`;
    expect(warningsOrErrors(output), output).toEqual([]);
    expect(apt.run("apt-cache", "policy", "packyard-data").stdout).toContain("Candidate: 2.0");
  });

  it.runIf(hasTools)("apt-get update refuses the repository for a client holding neither key", async () => {
    const stranger = await generateSigningKey({
      name: "Stranger",
      email: "x@example.com",
      algorithm: "ed25519",
    });
    const keyringPath = join(base, "stranger.gpg");
    writeFileSync(keyringPath, stranger.binaryPublicKey);
    const apt = aptRoot(base, `deb [signed-by=${keyringPath}] file:${repository.root} stable main`);
    const update = apt.run("apt-get", "update");
    expect(`${update.stdout}${update.stderr}`).toMatch(/NO_PUBKEY|not signed/);
  });
});
