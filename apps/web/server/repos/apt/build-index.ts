// Assembles one suite of a project's APT repository from stored stanzas — never by re-reading
// packages: Packages and Packages.gz per component and architecture, Release with SHA256 and
// SHA512 lists, InRelease and Release.gpg signed by every active key.
import { gzipSync } from "node:zlib";
import { describeIndexFile, renderPackagesIndex, renderRelease } from "@packyard/formats/apt/index.ts";
import { type SigningKey, signCleartext, signDetachedArmored } from "@packyard/formats/openpgp/index.ts";

export interface SuitePackage {
  component: string;
  name: string;
  version: string;
  architecture: string;
  stanza: string;
}

/** Architectures every repository offers, so a client on them sees an (empty) index, not an error. */
const BASE_ARCHITECTURES = ["amd64", "arm64"];

export interface BuiltSuite {
  /** Path relative to dists/<suite>/ → bytes. Includes Release, InRelease and Release.gpg. */
  files: Map<string, Uint8Array>;
  architectures: string[];
  components: string[];
}

export async function buildSuite(options: {
  origin: string;
  label: string;
  suite: string;
  date: Date;
  /** Newest release first: for a name/version/architecture listed twice, the first one wins. */
  packages: SuitePackage[];
  signers: SigningKey[];
}): Promise<BuiltSuite> {
  const seen = new Set<string>();
  const packages = options.packages.filter((p) => {
    const key = `${p.component}\u0000${p.name}\u0000${p.version}\u0000${p.architecture}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const components = [...new Set(packages.map((p) => p.component))].sort();
  if (components.length === 0) components.push("main");
  const concrete = [
    ...new Set([...BASE_ARCHITECTURES, ...packages.map((p) => p.architecture).filter((a) => a !== "all")]),
  ].sort();
  const architectures = [...concrete, "all"];

  const files = new Map<string, Uint8Array>();
  const encoder = new TextEncoder();
  for (const component of components) {
    for (const architecture of architectures) {
      // Architecture: all packages are installable everywhere: list them in every index.
      const entries = packages.filter(
        (p) => p.component === component && (p.architecture === architecture || p.architecture === "all"),
      );
      const text = renderPackagesIndex(entries);
      const base = `${component}/binary-${architecture}/Packages`;
      const plain = encoder.encode(text);
      files.set(base, plain);
      // Level 6: a 1–2% larger file than level 9 for a sixth of the time at 10,000 packages.
      files.set(`${base}.gz`, gzipSync(plain, { level: 6 }));
    }
  }
  const release = renderRelease({
    origin: options.origin,
    label: options.label,
    suite: options.suite,
    codename: options.suite,
    date: options.date,
    architectures,
    components,
    description: `${options.label} ${options.suite}`,
    files: [...files].map(([path, bytes]) => describeIndexFile(path, bytes)),
  });
  files.set("Release", encoder.encode(release));
  files.set("InRelease", encoder.encode(await signCleartext(release, options.signers)));
  files.set(
    "Release.gpg",
    encoder.encode(await signDetachedArmored(encoder.encode(release), options.signers)),
  );
  return { files, architectures, components };
}
