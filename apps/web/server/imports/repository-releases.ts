// What the APT and YUM importers share once they have read an index: packages grouped into
// releases (one per version, or all into the release the operator named), the same file listed
// twice (an `all` package in every architecture's index) kept once, and each file opened through
// the repository's credentials and verified while it streams.

import { fetchFromRepository, type RepositoryLocation } from "./http-fetch.ts";
import { ImportError, type SourceFile, type SourceRelease } from "./source.ts";
import { type ExpectedDigest, verifiedStream } from "./verify-stream.ts";

export interface RepositoryPackage {
  /** The release it belongs to (before the operator's `release` option). */
  version: string;
  /** The file's name in the release: the basename of its path in the repository. */
  filename: string;
  url: URL;
  size?: number;
  digests: ExpectedDigest[];
}

export interface RepositorySourceDeps {
  /** For tests: the fetch to use. */
  fetch?: typeof fetch;
}

/** The file's name in a release: the last segment of its path in the repository, as written. */
export function fileNameOf(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The URL of a path an index gives (a Filename, a location href: file paths, not URLs), each
 * segment percent-encoded as apt does — "+" too, which some object stores read as a space.
 */
export function pathUrl(path: string, base: URL): URL {
  return new URL(path.split("/").map(encodeURIComponent).join("/"), base);
}

function sameBytes(a: RepositoryPackage, b: RepositoryPackage): boolean {
  if (a.size !== undefined && b.size !== undefined && a.size !== b.size) return false;
  for (const digest of a.digests) {
    const other = b.digests.find((d) => d.algorithm === digest.algorithm);
    if (other && other.hex !== digest.hex) return false;
  }
  return a.digests.some((digest) => b.digests.some((d) => d.algorithm === digest.algorithm));
}

function sourceFile(
  pkg: RepositoryPackage,
  location: RepositoryLocation,
  deps: RepositorySourceDeps,
): SourceFile {
  const file: SourceFile = {
    filename: pkg.filename,
    async open(signal) {
      const response = await fetchFromRepository(location, pkg.url, {
        signal,
        what: pkg.filename,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
      const expected =
        pkg.size === undefined ? { digests: pkg.digests } : { size: pkg.size, digests: pkg.digests };
      return verifiedStream(response.body as ReadableStream<Uint8Array>, expected, pkg.filename);
    },
  };
  if (pkg.size !== undefined) file.size = pkg.size;
  return file;
}

/** A file the release cannot have: opening it fails that release (and only that one). */
function conflictingFile(filename: string, first: RepositoryPackage, second: RepositoryPackage): SourceFile {
  return {
    filename,
    async open() {
      throw new ImportError(
        "SOURCE_INVALID",
        `${filename}: the repository lists two different files with this name (${first.url.href} and ${second.url.href})`,
        filename,
      );
    },
  };
}

/**
 * Groups packages into releases. `compareVersions` orders them oldest first (the order of the
 * import); `named` puts every package into that one release.
 */
export function groupIntoReleases(
  packages: Iterable<RepositoryPackage>,
  options: {
    location: RepositoryLocation;
    deps: RepositorySourceDeps;
    named?: string;
    compareVersions: (a: string, b: string) => number;
  },
): SourceRelease[] {
  const byVersion = new Map<string, Map<string, RepositoryPackage[]>>();
  for (const pkg of packages) {
    const version = options.named ?? pkg.version;
    const files = byVersion.get(version) ?? new Map<string, RepositoryPackage[]>();
    byVersion.set(version, files);
    const same = files.get(pkg.filename) ?? [];
    files.set(pkg.filename, same);
    if (!same.some((other) => sameBytes(other, pkg))) same.push(pkg);
  }
  const versions = [...byVersion.keys()].sort(options.compareVersions);
  return versions.map((version) => {
    const files = byVersion.get(version)!;
    const names = [...files.keys()].sort();
    return {
      version,
      files: names.map((name) => {
        const [first, second] = files.get(name)!;
        return second
          ? conflictingFile(name, first!, second)
          : sourceFile(first!, options.location, options.deps);
      }),
    };
  });
}
