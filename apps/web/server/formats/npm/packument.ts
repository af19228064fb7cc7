// A package's document as npm reads it (the "packument"): the full form `npm view`, `npm
// deprecate` and `npm unpublish` ask for, and the abbreviated one `npm install` asks for with
// `Accept: application/vnd.npm.install-v1+json` (npm's registry API: package-metadata.md). Pure:
// built from the stored versions and dist-tags; the tarball URLs under the registry's own path,
// so npm sends the registry's `_authToken` with them.
import { createHash } from "node:crypto";
import semver from "semver";
import { provenanceOf } from "./page-data.ts";
import type { NpmVersionRow, NpmVersionSummary } from "./storage.ts";

export const ABBREVIATED_TYPE = "application/vnd.npm.install-v1+json";

/** The package name's parts: `@acme/sdk` → scope "acme", bare "sdk". */
export function nameParts(name: string): { scope?: string; bare: string } {
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  return scoped ? { scope: scoped[1]!, bare: scoped[2]! } : { bare: name };
}

/** The release file a version is stored as: what `npm pack` writes (`acme-sdk-1.2.0.tgz`). */
export function releaseFilename(name: string, version: string): string {
  const { scope, bare } = nameParts(name);
  return `${scope ? `${scope}-` : ""}${bare}-${version}.tgz`;
}

/** The tarball's last path segment in the registry (`sdk-1.2.0.tgz`, as npm's registry names it). */
export function tarballSegment(name: string, version: string): string {
  return `${nameParts(name).bare}-${version}.tgz`;
}

/** The version a tarball segment names, if it is one of `name`'s (either form above). */
export function versionOfTarball(name: string, segment: string): string | undefined {
  if (!segment.endsWith(".tgz")) return undefined;
  const { scope, bare } = nameParts(name);
  for (const prefix of [`${bare}-`, ...(scope ? [`${scope}-${bare}-`] : [])])
    if (segment.startsWith(prefix) && segment.length > prefix.length + 4)
      return segment.slice(prefix.length, -".tgz".length);
  return undefined;
}

/** The registry's base URL: `{BASE_URL}/npm/{owner}/{project}/`. */
export function registryUrl(baseUrl: string, owner: string, slug: string): string {
  return `${baseUrl.replace(/\/$/, "")}/npm/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}/`;
}

/** A package name as npm puts it in a URL: `@acme%2fsdk`. */
export function escapedName(name: string): string {
  return name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

export function tarballUrl(registry: string, name: string, version: string): string {
  return `${registry}${name.startsWith("@") ? name : encodeURIComponent(name)}/-/${tarballSegment(name, version)}`;
}

/** Versions newest first by semver precedence (versions npm would not parse last, by date). */
export function newestFirst<T extends { version: string; createdAt: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => {
    const va = semver.valid(a.version);
    const vb = semver.valid(b.version);
    if (va && vb) return semver.rcompare(va, vb);
    if (va || vb) return va ? -1 : 1;
    return b.createdAt.localeCompare(a.createdAt);
  });
}

/**
 * The dist-tags to serve: those naming a version that still exists, and `latest` on the highest
 * remaining release version (a prerelease only when nothing else is left) when its own is gone.
 */
export function servedDistTags(
  stored: Map<string, string>,
  versions: Pick<NpmVersionSummary, "version" | "createdAt">[],
): Record<string, string> {
  const present = new Set(versions.map((v) => v.version));
  const tags: Record<string, string> = {};
  for (const [tag, version] of [...stored].sort(([a], [b]) => a.localeCompare(b)))
    if (present.has(version)) tags[tag] = version;
  if (!tags.latest && versions.length > 0) {
    const ordered = newestFirst(versions);
    const release = ordered.find((v) => semver.valid(v.version) && !semver.prerelease(v.version));
    tags.latest = (release ?? ordered[0]!).version;
  }
  return { latest: tags.latest!, ...tags };
}

/** What the abbreviated form keeps of a version (npm's "corgi" document). */
const ABBREVIATED_FIELDS = [
  "name",
  "version",
  "deprecated",
  "dependencies",
  "optionalDependencies",
  "devDependencies",
  "bundleDependencies",
  "bundledDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "acceptDependencies",
  "bin",
  "directories",
  "dist",
  "engines",
  "_hasShrinkwrap",
  "hasInstallScript",
  "os",
  "cpu",
  "libc",
  "funding",
  "license",
] as const;

/**
 * The deprecation npm shows for a version: its own, else its release's yank (a yanked release's
 * files stay downloadable, so npm installs it when asked, with this warning).
 */
export function servedDeprecation(
  row: Pick<NpmVersionSummary, "deprecated" | "yanked" | "yankedReason" | "releaseVersion">,
): string | null {
  if (row.deprecated) return row.deprecated;
  if (!row.yanked) return null;
  return `The release ${row.releaseVersion} was yanked${row.yankedReason ? `: ${row.yankedReason}` : ""}`;
}

const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

function parseManifest(row: NpmVersionRow): Record<string, unknown> {
  try {
    const parsed = JSON.parse(row.manifest) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A version as the full packument shows it. */
export function servedVersion(
  row: NpmVersionRow,
  registry: string,
): { manifest: Record<string, unknown>; readme: string | undefined } {
  const { readme, readmeFilename: _file, dist, ...rest } = parseManifest(row);
  const claims = row.provenance ? safeJson(row.provenance) : null;
  const manifest: Record<string, unknown> = {
    ...rest,
    name: row.name,
    version: row.version,
    _id: `${row.name}@${row.version}`,
    dist: {
      ...(dist && typeof dist === "object" ? (dist as Record<string, unknown>) : {}),
      integrity: row.integrity,
      shasum: row.shasum,
      tarball: tarballUrl(registry, row.name, row.version),
    },
    ...(row.publishedBy ? { _npmUser: { name: row.publishedBy } } : {}),
    _packyard: {
      release: row.releaseVersion,
      ...(claims ? { provenance: { ...provenanceOf(row.provenance), claims } } : {}),
    },
  };
  delete manifest.deprecated;
  const deprecated = servedDeprecation(row);
  if (deprecated) manifest.deprecated = deprecated;
  const scripts = rest.scripts as Record<string, unknown> | undefined;
  if (scripts && typeof scripts === "object" && INSTALL_SCRIPTS.some((s) => s in scripts))
    manifest.hasInstallScript = true;
  return { manifest, readme: typeof readme === "string" ? readme : undefined };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The document's revision: changes with any version, deprecation or dist-tag. */
export function revisionOf(
  rows: Pick<NpmVersionSummary, "fileId" | "deprecated" | "yanked" | "yankedReason" | "releaseVersion">[],
  tags: Record<string, string>,
): string {
  const hash = createHash("sha1");
  const parts = rows.map((row) => `${row.fileId}\0${servedDeprecation(row) ?? ""}\0`).sort();
  for (const part of parts) hash.update(part);
  hash.update(JSON.stringify(tags));
  return `${rows.length + 1}-${hash.digest("hex").slice(0, 32)}`;
}

/** The full or abbreviated packument of a package with at least one version. */
export function buildPackument(input: {
  name: string;
  rows: NpmVersionRow[];
  storedTags: Map<string, string>;
  registry: string;
  abbreviated: boolean;
}): Record<string, unknown> {
  const { name, rows, registry } = input;
  const distTags = servedDistTags(input.storedTags, rows);
  const byDate = [...rows].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const created = byDate[0]?.createdAt;
  const modified = byDate.at(-1)?.createdAt;
  const served = new Map(rows.map((row) => [row.version, servedVersion(row, registry)]));
  if (input.abbreviated) {
    const versions: Record<string, unknown> = {};
    for (const row of byDate) {
      const { manifest } = served.get(row.version)!;
      versions[row.version] = Object.fromEntries(
        ABBREVIATED_FIELDS.filter((field) => manifest[field] !== undefined).map((field) => [
          field,
          manifest[field],
        ]),
      );
    }
    return { name, modified, "dist-tags": distTags, versions };
  }
  const latest = served.get(distTags.latest!);
  const latestManifest = latest?.manifest ?? {};
  const pick = (field: string) =>
    latestManifest[field] === undefined ? {} : { [field]: latestManifest[field] };
  const publishers = [...new Set(rows.map((row) => row.publishedBy).filter((p): p is string => Boolean(p)))];
  return {
    _id: name,
    _rev: revisionOf(rows, distTags),
    name,
    ...pick("description"),
    "dist-tags": distTags,
    versions: Object.fromEntries(byDate.map((row) => [row.version, served.get(row.version)!.manifest])),
    time: {
      created,
      modified,
      ...Object.fromEntries(byDate.map((row) => [row.version, row.createdAt])),
    },
    maintainers: publishers.map((publisher) => ({ name: publisher })),
    ...pick("author"),
    ...pick("repository"),
    ...pick("homepage"),
    ...pick("bugs"),
    ...pick("keywords"),
    ...pick("license"),
    readme: latest?.readme ?? "",
    ...(latest?.readme ? { readmeFilename: "README.md" } : {}),
  };
}
