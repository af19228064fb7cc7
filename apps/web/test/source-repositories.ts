// Test-only: real repositories to import from, built the way their operators build them — an
// APT repository with reprepro (signed with a throwaway gpg key) and YUM repositories with
// createrepo_c — in a temporary directory, to be served by test/static-server.ts.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTestDeb } from "@packyard/formats/deb/test-deb-builder.ts";
import { buildTestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";

export const aptRepositoryTools = ["reprepro", "gpg", "xz"];
export const yumRepositoryTools = ["rpmbuild", "createrepo_c"];

export interface TestDebPackage {
  name: string;
  /** As in the control file (maybe with an epoch). */
  version: string;
  architecture: string;
  component: string;
  /** The distribution it goes into. */
  distribution: "stable" | "legacy";
}

/**
 * stable (signed: InRelease), components main and contrib, amd64 and arm64 (so the `all`
 * packages are listed twice), Packages and Packages.gz. legacy: unsigned (Release only),
 * Packages.xz only.
 */
export const testDebPackages: readonly TestDebPackage[] = [
  { name: "hello-tool", version: "1.0-1", architecture: "amd64", component: "main", distribution: "stable" },
  { name: "hello-data", version: "1.0-1", architecture: "all", component: "main", distribution: "stable" },
  { name: "hello-epoch", version: "2:1.0-1", architecture: "all", component: "main", distribution: "stable" },
  {
    name: "hello-plus",
    version: "1.0+dfsg-1",
    architecture: "amd64",
    component: "main",
    distribution: "stable",
  },
  { name: "hello-next", version: "1.1-1", architecture: "amd64", component: "main", distribution: "stable" },
  {
    name: "hello-extra",
    version: "0.5-1",
    architecture: "amd64",
    component: "contrib",
    distribution: "stable",
  },
  { name: "hello-legacy", version: "0.1-1", architecture: "all", component: "main", distribution: "legacy" },
];

/** The pool file name reprepro gives a package (the epoch is not part of it). */
export function debFileName(pkg: TestDebPackage): string {
  return `${pkg.name}_${pkg.version.replace(/^\d+:/, "")}_${pkg.architecture}.deb`;
}

export interface TestAptRepository {
  /** The directory to serve: conf/, db/, dists/, pool/. */
  root: string;
  /** Absolute path of each package in the pool, by file name. */
  pool: Map<string, string>;
  /** The gpg public key the repository is signed with (armored). */
  publicKey: string;
}

function debControl(pkg: TestDebPackage): string {
  return `Package: ${pkg.name}
Version: ${pkg.version}
Architecture: ${pkg.architecture}
Maintainer: Packyard Tests <tests@example.com>
Installed-Size: 1
Section: utils
Priority: optional
Description: ${pkg.name} for the import tests
 Installs /usr/bin/${pkg.name}.
`;
}

export function buildAptRepository(dir: string): TestAptRepository {
  const root = join(dir, "apt");
  const incoming = join(dir, "debs");
  const gnupg = join(dir, "gnupg");
  mkdirSync(join(root, "conf"), { recursive: true });
  mkdirSync(incoming, { recursive: true });
  mkdirSync(gnupg, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: gnupg, LC_ALL: "C" };
  execFileSync(
    "gpg",
    [
      "--batch",
      "--passphrase",
      "",
      "--quick-gen-key",
      "Import Tests <import@example.com>",
      "ed25519",
      "sign",
      "never",
    ],
    { env, stdio: "pipe" },
  );
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(
    execFileSync("gpg", ["--batch", "--list-secret-keys", "--with-colons"], {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  )?.[1];
  if (!fingerprint) throw new Error("gpg made no key");
  const publicKey = execFileSync("gpg", ["--batch", "--armor", "--export", fingerprint], {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  writeFileSync(
    join(root, "conf/distributions"),
    `Origin: Import Tests
Label: import-tests
Codename: stable
Architectures: amd64 arm64
Components: main contrib
SignWith: ${fingerprint}

Origin: Import Tests
Label: import-tests
Codename: legacy
Architectures: amd64
Components: main
DebIndices: Packages Release .xz
`,
  );
  for (const pkg of testDebPackages) {
    const file = join(incoming, debFileName(pkg));
    writeFileSync(
      file,
      buildTestDeb({
        control: debControl(pkg),
        dataFiles: [{ name: `./usr/bin/${pkg.name}`, data: `#!/bin/sh\necho ${pkg.name} ${pkg.version}\n` }],
      }),
    );
    execFileSync(
      "reprepro",
      ["-b", root, "--silent", "-C", pkg.component, "includedeb", pkg.distribution, file],
      {
        env,
        stdio: "pipe",
      },
    );
  }
  execFileSync("gpgconf", ["--kill", "gpg-agent"], { env, stdio: "ignore" });
  const pool = new Map<string, string>();
  const listing = execFileSync("find", [join(root, "pool"), "-name", "*.deb"], { encoding: "utf8" });
  for (const path of listing.split("\n").filter(Boolean))
    pool.set(path.slice(path.lastIndexOf("/") + 1), path);
  return { root, pool, publicKey };
}

export interface TestYumRepository {
  root: string;
  /** Absolute path of each package, by file name. */
  packages: Map<string, string>;
}

/** The binary packages of build-test-rpms (alpha: epoch 2, 1.2.3-4; beta 0.9-1; weird 1.0-1). */
export function buildTestRpmFiles(): { files: string[]; cleanup(): void } {
  const rpms = buildTestRpms();
  return { files: [rpms.alpha, rpms.beta, rpms.weird], cleanup: rpms.cleanup };
}

/**
 * A YUM repository of `rpms` under dir/name/Packages/, made by createrepo_c with `args`
 * (default: sha256, gzip; e.g. ["--checksum", "sha512", "--general-compress-type", "xz"]).
 */
export function buildYumRepository(
  dir: string,
  name: string,
  rpms: readonly string[],
  args: string[] = [],
): TestYumRepository {
  const root = join(dir, name);
  mkdirSync(join(root, "Packages"), { recursive: true });
  const packages = new Map<string, string>();
  for (const rpm of rpms) {
    const filename = rpm.slice(rpm.lastIndexOf("/") + 1);
    const target = join(root, "Packages", filename);
    copyFileSync(rpm, target);
    packages.set(filename, target);
  }
  execFileSync("createrepo_c", ["--quiet", "--no-database", ...args, root], { stdio: "pipe" });
  return { root, packages };
}

/** Changes one byte in the middle of a file, keeping its size: what a broken mirror serves. */
export function tamper(path: string): Uint8Array {
  const original = readFileSync(path);
  const changed = Buffer.from(original);
  const middle = Math.floor(changed.length / 2);
  changed[middle] = (changed[middle] ?? 0) ^ 0xff;
  writeFileSync(path, changed);
  return original;
}
