// createrepo_c, the tool YUM repositories are built with today, driven the way its
// documentation describes: a directory of .rpm files, `createrepo_c <dir>` for a full build,
// `createrepo_c --update <dir>` to reuse the records of files whose size and mtime are unchanged.
// No sqlite databases (--no-database: Packyard makes none and dnf does not need them), gzip XML
// (createrepo_c 0.17's default, Packyard's too), checksum-named files (default). Each build is
// followed by `gpg --detach-sign --armor` of repomd.xml, so it ends, like Packyard's, with a
// signed repomd.xml (repomd.xml.asc) that dnf's repo_gpgcheck=1 accepts.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Gpg } from "../../lib/gpg.ts";
import { run, type Sample, timeCommand } from "../../lib/proc.ts";
import type { BenchRpm } from "./rpms.ts";

export class Createrepo {
  readonly root: string;
  readonly repo: string;
  readonly #gpg: Gpg;
  readonly #scratch: string;

  constructor(dir: string, gpg: Gpg, scratch: string) {
    this.root = dir;
    this.repo = join(dir, "repo");
    this.#gpg = gpg;
    this.#scratch = scratch;
  }

  /** The N .rpm files hard-linked into the repository directory, and a first build (set-up). */
  setup(rpms: readonly BenchRpm[]): number {
    rmSync(this.root, { recursive: true, force: true });
    mkdirSync(this.repo, { recursive: true });
    for (const rpm of rpms) linkSync(rpm.path, join(this.repo, rpm.filename));
    const fpr = this.#gpg.fingerprint;
    // Phases are timed inside the script (date +%s%N) so one run reports each part.
    // NEW: a package to add first (copied in; signed with rpmsign when SIGN_RPM=1).
    // UPDATE: --update or empty.
    writeFileSync(
      join(this.root, "build.sh"),
      `#!/bin/bash
set -euo pipefail
cd "${this.root}"
now() { date +%s%N; }
t0=$(now)
if [ -n "\${NEW:-}" ]; then
  cp "$NEW" repo/
fi
t1=$(now)
if [ "\${SIGN_RPM:-0}" = 1 ]; then
  rpmsign --addsign --define "_gpg_name ${fpr}" --define "__gpg /usr/bin/gpg" "repo/$(basename "$NEW")" > /dev/null
fi
t2=$(now)
createrepo_c -q --no-database \${UPDATE:-} repo
t3=$(now)
gpg --batch --yes --local-user ${fpr} --armor --detach-sign -o repo/repodata/repomd.xml.asc repo/repodata/repomd.xml
t4=$(now)
echo "copy=$(( (t1 - t0) / 1000 )) rpmsign=$(( (t2 - t1) / 1000 )) createrepo_c=$(( (t3 - t2) / 1000 )) sign=$(( (t4 - t3) / 1000 ))" > phases.txt
`,
      { mode: 0o755 },
    );
    const started = performance.now();
    run(["bash", join(this.root, "build.sh")], { env: this.#gpg.env });
    return performance.now() - started;
  }

  #build(env: Record<string, string>, phases: string[]): Sample {
    const sample = timeCommand(["bash", join(this.root, "build.sh")], {
      env: { ...this.#gpg.env, ...env },
      scratch: this.#scratch,
    });
    const measured = readFileSync(join(this.root, "phases.txt"), "utf8");
    sample.extra = {
      ...sample.extra,
      ...Object.fromEntries(
        [...measured.matchAll(/(\w+)=(\d+)/g)]
          .filter(([, k]) => phases.includes(k!))
          .map(([, k, v]) => [`${k} ms`, Number(v) / 1000]),
      ),
    };
    return sample;
  }

  /** (a) Full: no previous repodata; every .rpm is opened, its header read and the file hashed. */
  full(): Sample {
    rmSync(join(this.repo, "repodata"), { recursive: true, force: true });
    return this.#build({}, ["createrepo_c", "sign"]);
  }

  /** (a) --update with nothing new: every file is stat()ed, the previous records reused. */
  update(): Sample {
    return this.#build({ UPDATE: "--update" }, ["createrepo_c", "sign"]);
  }

  /** (b) cp of one more .rpm (optionally rpmsign --addsign), createrepo_c --update, gpg. */
  addOne(rpm: BenchRpm, options: { signRpm: boolean }): Sample {
    return this.#build({ UPDATE: "--update", NEW: rpm.path, SIGN_RPM: options.signRpm ? "1" : "0" }, [
      "copy",
      ...(options.signRpm ? ["rpmsign"] : []),
      "createrepo_c",
      "sign",
    ]);
  }

  repomd(): string {
    return readFileSync(join(this.repo, "repodata/repomd.xml"), "utf8");
  }

  /** The uncompressed primary.xml the current repomd.xml names. */
  primaryXml(): string {
    return gunzipSync(readFileSync(join(this.repo, primaryLocation(this.repomd())))).toString("utf8");
  }

  /** Checks the repository is signed and lists `expected` packages, including `names`. */
  check(label: string, expected: number, names: readonly string[] = []): void {
    const asc = readFileSync(join(this.repo, "repodata/repomd.xml.asc"), "utf8");
    if (!asc.startsWith("-----BEGIN PGP SIGNATURE-----"))
      throw new Error(`${label}: repomd.xml.asc is not a signature`);
    run(
      [
        "gpg",
        "--batch",
        "--verify",
        join(this.repo, "repodata/repomd.xml.asc"),
        join(this.repo, "repodata/repomd.xml"),
      ],
      { env: this.#gpg.env },
    );
    assertPrimary(label, this.primaryXml(), expected, names);
  }
}

/** `<data type="primary">`'s location in a repomd.xml. */
export function primaryLocation(repomd: string): string {
  const match = /<data type="primary">[\s\S]*?<location href="([^"]+)"/.exec(repomd);
  if (!match) throw new Error("repomd.xml names no primary");
  return match[1]!;
}

/** `<data type="primary">`'s checksum in a repomd.xml: changes when the package list does. */
export function primaryChecksum(repomd: string): string {
  const match = /<data type="primary">\s*<checksum type="sha256">([0-9a-f]{64})</.exec(repomd);
  if (!match) throw new Error("repomd.xml names no primary checksum");
  return match[1]!;
}

export function assertPrimary(label: string, primary: string, expected: number, names: readonly string[]) {
  const count = primary.match(/<package type="rpm">/g)?.length ?? 0;
  const declared = /<metadata [^>]*packages="(\d+)"/.exec(primary)?.[1];
  if (count !== expected || Number(declared) !== expected)
    throw new Error(
      `${label}: primary.xml lists ${count} packages (packages="${declared}"), expected ${expected}`,
    );
  for (const name of names)
    if (!primary.includes(`<name>${name}</name>`))
      throw new Error(`${label}: primary.xml does not list ${name}`);
}
