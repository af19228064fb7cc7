// What the APT and YUM importers share once they have read an index: packages grouped into
// releases (one per version, or all into the release the operator named), the same file listed
// twice (an `all` package in every architecture's index) kept once, and each file opened through
// the repository's credentials and verified while it streams.
//
// An index is someone else's input, read in full before anything is imported, so it is bounded
// (decision 056): each index is streamed, at most MAX_INDEX_BYTES once decompressed, and an
// import lists at most MAX_IMPORT_PACKAGES packages; past either it fails with SOURCE_TOO_LARGE.
// A 200 KB Packages.xz can expand to gigabytes of identical stanzas: those are counted once
// and cost a set lookup, not memory.

import { formatFileSize } from "@packyard/contract/file-size.ts";
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

/**
 * Packages (distinct files) one import may list, over all the indexes it reads. Real
 * repositories of one vendor hold a few thousand; a whole Debian or Fedora archive (60,000–
 * 70,000) is not something to import into one project.
 */
export const MAX_IMPORT_PACKAGES = 50_000;

/**
 * Bytes of one index (a Packages file, primary.xml) once decompressed; a large distribution's
 * is tens of megabytes. What bounds a decompression bomb's work: past this, nothing more is read.
 */
export const MAX_INDEX_BYTES = 128 * 1024 * 1024;

/** The packages an import lists, each file once, at most MAX_IMPORT_PACKAGES of them. */
export class RepositoryPackages {
  readonly packages: RepositoryPackage[] = [];
  readonly #seen = new Set<string>();

  /** Adds a package read from `index` (a URL, for the error); an identical entry again is a no-op. */
  add(pkg: RepositoryPackage, index: URL, what: string): void {
    const digests = pkg.digests.map((d) => `${d.algorithm}:${d.hex}`).join(",");
    const key = `${pkg.version}\n${pkg.url.href}\n${pkg.size ?? ""}\n${digests}`;
    if (this.#seen.has(key)) return;
    if (this.packages.length >= MAX_IMPORT_PACKAGES)
      throw new ImportError(
        "SOURCE_TOO_LARGE",
        `${what} (${index.href}) lists more than ${MAX_IMPORT_PACKAGES.toLocaleString("en")} packages, more than one import takes; import fewer components, or name a smaller repository`,
        index.href,
      );
    this.#seen.add(key);
    this.packages.push(pkg);
  }
}

/**
 * The decompressed bytes of an index, failing with SOURCE_TOO_LARGE past MAX_INDEX_BYTES. Ending
 * the iteration (the limit, or a reader's error) cancels the stream, and with it the download.
 */
export async function* boundedIndexBytes(
  stream: AsyncIterable<Uint8Array>,
  index: URL,
  what: string,
): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of stream) {
    total += chunk.byteLength;
    if (total > MAX_INDEX_BYTES)
      throw new ImportError(
        "SOURCE_TOO_LARGE",
        `${what} (${index.href}) is larger than ${formatFileSize(MAX_INDEX_BYTES)} once decompressed, more than an import reads`,
        index.href,
      );
    yield chunk;
  }
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
