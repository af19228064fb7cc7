// The tools people use today, set up the way their documentation describes, each in its own
// directory under the benchmark's scratch directory, all signing with one RSA-3072 gpg key
// (Packyard signs with RSA-3072 too). Every repository has one suite (stable), one component
// (main), one architecture (amd64), and Packages + Packages.gz — what Packyard serves — so no
// tool spends time on Contents or bzip2 files the others do not make.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Gpg } from "../../lib/gpg.ts";
import { run, type Sample, timeCommand } from "../../lib/proc.ts";
import type { BenchDeb } from "./debs.ts";

export { type Gpg, makeGpgKey, stopGpgAgent } from "../../lib/gpg.ts";

function hardLinkAll(debs: readonly BenchDeb[], dir: string) {
  mkdirSync(dir, { recursive: true });
  for (const deb of debs) linkSync(deb.path, join(dir, deb.filename));
}

/**
 * apt-ftparchive with its Berkeley DB cache (Dir::CacheDir): `generate` writes Packages and
 * Packages.gz, then `apt-ftparchive release` and two gpg signatures (InRelease, Release.gpg)
 * make it a repository apt accepts. Contents generation is off (--no-contents).
 */
export class AptFtparchive {
  readonly root: string;
  readonly #gpg: Gpg;
  readonly #scratch: string;

  constructor(dir: string, gpg: Gpg, scratch: string) {
    this.root = dir;
    this.#gpg = gpg;
    this.#scratch = scratch;
  }

  setup(debs: readonly BenchDeb[]) {
    rmSync(this.root, { recursive: true, force: true });
    hardLinkAll(debs, join(this.root, "pool/main"));
    mkdirSync(join(this.root, "dists/stable/main/binary-amd64"), { recursive: true });
    writeFileSync(
      join(this.root, "ftparchive.conf"),
      `Dir { ArchiveDir "${this.root}"; CacheDir "${this.root}/cache"; };
Default { Packages::Compress ". gzip"; };
TreeDefault { Directory "pool/$(SECTION)"; };
Tree "dists/stable" { Sections "main"; Architectures "amd64"; };
`,
    );
    const fpr = this.#gpg.fingerprint;
    // Phases are timed inside the script (date +%s%N) so one run reports each part.
    writeFileSync(
      join(this.root, "build.sh"),
      `#!/bin/bash
set -euo pipefail
cd "${this.root}"
now() { date +%s%N; }
t0=$(now)
apt-ftparchive -q=2 --no-contents generate ftparchive.conf
t1=$(now)
apt-ftparchive -o APT::FTPArchive::Release::Origin=Bench -o APT::FTPArchive::Release::Label=bench \\
  -o APT::FTPArchive::Release::Suite=stable -o APT::FTPArchive::Release::Codename=stable \\
  -o APT::FTPArchive::Release::Architectures=amd64 -o APT::FTPArchive::Release::Components=main \\
  release dists/stable > release.tmp
mv release.tmp dists/stable/Release
t2=$(now)
gpg --batch --yes --local-user ${fpr} --clearsign -o dists/stable/InRelease dists/stable/Release
gpg --batch --yes --local-user ${fpr} --armor --detach-sign -o dists/stable/Release.gpg dists/stable/Release
t3=$(now)
echo "generate=$(( (t1 - t0) / 1000 )) release=$(( (t2 - t1) / 1000 )) sign=$(( (t3 - t2) / 1000 ))" > phases.txt
`,
      { mode: 0o755 },
    );
  }

  #build(): Sample {
    const sample = timeCommand(["bash", join(this.root, "build.sh")], {
      env: this.#gpg.env,
      scratch: this.#scratch,
    });
    const phases = readFileSync(join(this.root, "phases.txt"), "utf8");
    sample.extra = {
      ...sample.extra,
      ...Object.fromEntries(
        [...phases.matchAll(/(\w+)=(\d+)/g)].map(([, k, v]) => [`${k} ms`, Number(v) / 1000]),
      ),
    };
    return sample;
  }

  /** No cache DB: every .deb is opened, its control read and its hashes computed. */
  cold(): Sample {
    rmSync(join(this.root, "cache"), { recursive: true, force: true });
    mkdirSync(join(this.root, "cache"));
    return this.#build();
  }

  /** Cache DB from the previous run: files whose size and mtime match are not read again. */
  warm(): Sample {
    return this.#build();
  }

  packagesFile(): string {
    return readFileSync(join(this.root, "dists/stable/main/binary-amd64/Packages"), "utf8");
  }
}

/** reprepro: a Berkeley DB of package records; every change re-exports the indexes and signs. */
export class Reprepro {
  readonly root: string;
  readonly #gpg: Gpg;
  readonly #scratch: string;

  constructor(dir: string, gpg: Gpg, scratch: string) {
    this.root = dir;
    this.#gpg = gpg;
    this.#scratch = scratch;
  }

  /** Not measured as a comparison; its time is reported as set-up cost. */
  setup(debs: readonly BenchDeb[]): number {
    rmSync(this.root, { recursive: true, force: true });
    mkdirSync(join(this.root, "conf"), { recursive: true });
    writeFileSync(
      join(this.root, "conf/distributions"),
      `Origin: Bench
Label: bench
Codename: stable
Architectures: amd64
Components: main
SignWith: ${this.#gpg.fingerprint}
`,
    );
    const started = performance.now();
    for (let i = 0; i < debs.length; i += 2000) {
      run(
        [
          "reprepro",
          "-b",
          this.root,
          "--silent",
          "--export=never",
          "includedeb",
          "stable",
          ...debs.slice(i, i + 2000).map((d) => d.path),
        ],
        { env: this.#gpg.env },
      );
    }
    run(["reprepro", "-b", this.root, "--silent", "export", "stable"], { env: this.#gpg.env });
    return performance.now() - started;
  }

  /** (a) `reprepro export`: every index of the distribution written and signed again from the DB. */
  exportAll(): Sample {
    return timeCommand(["reprepro", "-b", this.root, "--silent", "export", "stable"], {
      env: this.#gpg.env,
      scratch: this.#scratch,
    });
  }

  /** (b) `reprepro includedeb`: copies the package into the pool, records it, re-exports, signs. */
  addOne(deb: BenchDeb): Sample {
    return timeCommand(["reprepro", "-b", this.root, "--silent", "includedeb", "stable", deb.path], {
      env: this.#gpg.env,
      scratch: this.#scratch,
    });
  }

  packagesFile(): string {
    return readFileSync(join(this.root, "dists/stable/main/binary-amd64/Packages"), "utf8");
  }
}

/**
 * aptly with a local root directory (rootDir in its own config file), a local repo published
 * with `aptly publish repo`, signed by the gpg key (-gpg-key, -batch). -skip-contents and
 * -skip-bz2 keep its output to what the others make.
 */
export class Aptly {
  readonly root: string;
  readonly #gpg: Gpg;
  readonly #scratch: string;
  readonly #config: string;

  constructor(dir: string, gpg: Gpg, scratch: string) {
    this.root = dir;
    this.#gpg = gpg;
    this.#scratch = scratch;
    this.#config = join(dir, "aptly.conf");
  }

  #cmd(...args: string[]): string[] {
    return ["aptly", `-config=${this.#config}`, ...args];
  }

  #publishFlags(): string[] {
    return ["-skip-contents", "-skip-bz2", `-gpg-key=${this.#gpg.fingerprint}`, "-batch"];
  }

  setup(debs: readonly BenchDeb[]): number {
    rmSync(this.root, { recursive: true, force: true });
    mkdirSync(this.root, { recursive: true });
    writeFileSync(
      this.#config,
      JSON.stringify({
        rootDir: join(this.root, "root"),
        architectures: [],
        gpgDisableSign: false,
        gpgDisableVerify: true,
        gpgProvider: "gpg",
        downloadConcurrency: 1,
        skipContentsPublishing: true,
      }),
    );
    const incoming = join(this.root, "incoming");
    hardLinkAll(debs, incoming);
    const started = performance.now();
    run(this.#cmd("repo", "create", "-distribution=stable", "-component=main", "bench"), {
      env: this.#gpg.env,
    });
    run(this.#cmd("repo", "add", "bench", incoming), { env: this.#gpg.env });
    run(this.#cmd("publish", "repo", "-architectures=amd64", ...this.#publishFlags(), "bench"), {
      env: this.#gpg.env,
    });
    return performance.now() - started;
  }

  /** (a) `aptly publish update` with nothing new: the component's indexes regenerated and signed. */
  republish(): Sample {
    return timeCommand(this.#cmd("publish", "update", ...this.#publishFlags(), "stable"), {
      env: this.#gpg.env,
      scratch: this.#scratch,
    });
  }

  /** (b) `aptly repo add` then `aptly publish update`: two processes, times added, peak = larger. */
  addOne(deb: BenchDeb): Sample {
    const add = timeCommand(this.#cmd("repo", "add", "bench", deb.path), {
      env: this.#gpg.env,
      scratch: this.#scratch,
    });
    const publish = this.republish();
    return {
      ms: add.ms + publish.ms,
      peakRssKb: Math.max(add.peakRssKb, publish.peakRssKb),
      extra: {
        "repo add ms": add.ms,
        "publish update ms": publish.ms,
        "CPU ms": (add.extra?.["CPU ms"] ?? 0) + (publish.extra?.["CPU ms"] ?? 0),
      },
    };
  }

  packagesFile(): string {
    return readFileSync(join(this.root, "root/public/dists/stable/main/binary-amd64/Packages"), "utf8");
  }
}
