// The APT suite an entitlement token with a version range reads (docs/entitlements.md): the
// suite as served, with the packages outside the range taken out of its Packages indexes, and a
// Release, InRelease and Release.gpg of its own, signed with the project's keys. apt then picks
// the newest version the customer is entitled to, instead of one it would be refused (404).
//
// Made from the generation being served (its Release and Packages.gz), on the first request of a
// token's range after each publish, and kept in memory by generation and range: every customer
// with the same range reads the same bytes. The Date and Valid-Until are the served Release's, so
// apt never sees time go backwards between the two. Only Packages and Packages.gz are listed (no
// .xz: making it costs far more than the few bytes it saves a customer).
import { gunzipSync, gzipSync } from "node:zlib";
import { type VersionRange, versionInRange } from "@packyard/contract/entitlements.ts";
import { packagesIndexes, readReleaseFile } from "@packyard/formats/apt/read-release-file.ts";
import {
  describeIndexFile,
  type ReleaseFileEntry,
  renderRelease,
} from "@packyard/formats/apt/release-file.ts";
import { getControlField } from "@packyard/formats/deb/control-paragraph.ts";
import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { signCleartext, signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import { cachedCurrentFile } from "../downloads/lookups.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import type { ProjectRow } from "../projects/storage.ts";
import type { Services } from "../services.ts";

/** A suite's files for one version range: by path under dists/<suite>/, and by their hashes. */
export interface FilteredSuite {
  files: Map<string, Buffer>;
  /** `<dir>/by-hash/SHA256/<hex>` (and SHA512) → the path in `files`. */
  byHash: Map<string, string>;
}

/** Variants kept per server (a generation and a range each; a few KiB to a few MiB). */
const KEPT = 64;
const kept = new WeakMap<object, Map<string, Promise<FilteredSuite>>>();

async function readAll(store: BlobStore, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.open(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The paragraphs of a Packages index whose Version is in the range, as a Packages index. */
export function filterPackages(text: string, range: VersionRange): string {
  const kept = text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => {
      if (paragraph === "") return false;
      const version = /^Version:[ \t]*(\S+)/m.exec(paragraph)?.[1];
      return version !== undefined && versionInRange(range, version, compareDebianVersions);
    });
  return kept.length === 0 ? "" : `${kept.join("\n\n")}\n`;
}

/**
 * The suite as `range` may read it, for the project's current generation; undefined when the
 * suite is not published.
 */
export async function filteredAptSuite(
  services: Pick<Services, "database" | "repos" | "keys">,
  project: Pick<ProjectRow, "id" | "name">,
  suite: string,
  range: VersionRange,
): Promise<FilteredSuite | undefined> {
  const db = services.database.db;
  const { repos } = services;
  const release = await cachedCurrentFile(db, repos, project.id, "apt", suite, "Release");
  if (!release) return undefined;
  let variants = kept.get(services);
  if (!variants) {
    variants = new Map();
    kept.set(services, variants);
  }
  const key = `${release.generationId}\u0000${release.sha256}\u0000${JSON.stringify(range)}`;
  let variant = variants.get(key);
  if (!variant) {
    if (variants.size >= KEPT) variants.delete(variants.keys().next().value as string);
    variant = build(services, project, release, range);
    variants.set(key, variant);
    variant.catch(() => variants.delete(key));
  }
  return variant;
}

async function build(
  services: Pick<Services, "database" | "repos" | "keys">,
  project: Pick<ProjectRow, "id" | "name">,
  release: { sha256: string; generationId: string },
  range: VersionRange,
): Promise<FilteredSuite> {
  const { repos } = services;
  const read = readReleaseFile((await readAll(repos.store, release.sha256)).toString("utf8"));
  const field = (name: string) => getControlField(read.fields, name);
  const files = new Map<string, Buffer>();
  const entries: ReleaseFileEntry[] = [];
  for (const refs of packagesIndexes(read, read.components, ["gzip"]).values()) {
    const gz = refs.find((ref) => ref.compression === "gzip");
    if (!gz) continue;
    const stored = await repos.fileInGeneration(release.generationId, gz.path);
    if (!stored) throw new Error(`${gz.path} of the served generation is not stored`);
    const plain = Buffer.from(
      filterPackages(gunzipSync(await readAll(repos.store, stored.sha256)).toString("utf8"), range),
    );
    const compressed = gzipSync(plain, { level: 9 });
    const base = gz.path.slice(0, -".gz".length);
    files.set(base, plain);
    files.set(gz.path, compressed);
    entries.push(describeIndexFile(base, plain), describeIndexFile(gz.path, compressed));
  }
  const date = new Date(field("Date") ?? Date.now());
  const validUntil = field("Valid-Until");
  const text = renderRelease({
    origin: field("Origin") ?? "Packyard",
    label: field("Label") ?? project.name,
    suite: read.suite ?? "stable",
    codename: read.codename ?? read.suite ?? "stable",
    ...(field("Version") ? { version: field("Version")! } : {}),
    date,
    ...(validUntil ? { validUntil: new Date(validUntil) } : {}),
    architectures: read.architectures,
    components: read.components,
    ...(field("Description") ? { description: field("Description")! } : {}),
    files: entries,
  });
  const { signers } = await services.keys.active(project);
  const [inRelease, releaseGpg] = await Promise.all([
    signCleartext(text, signers, { date }),
    signDetachedArmored(Buffer.from(text), signers, { date }),
  ]);
  files.set("Release", Buffer.from(text));
  files.set("InRelease", Buffer.from(inRelease));
  files.set("Release.gpg", Buffer.from(releaseGpg));
  const byHash = new Map<string, string>();
  for (const entry of entries) {
    const dir = entry.path.slice(0, entry.path.lastIndexOf("/"));
    byHash.set(`${dir}/by-hash/SHA256/${entry.sha256}`, entry.path);
    byHash.set(`${dir}/by-hash/SHA512/${entry.sha512}`, entry.path);
  }
  return { files, byHash };
}
