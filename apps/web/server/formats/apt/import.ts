// An existing APT repository as an import source (decision 029): aptly, reprepro, Nexus,
// Artifactory, packagecloud or a plain mirror. Reads dists/<distribution>/InRelease (or Release),
// then each component's binary Packages indexes (gzip, then xz, then uncompressed: the first the
// repository serves), each checked against the SHA256 and size the Release gives, and lists
// every package once as a file of the release named by its version.
//
// - Version → release: the Debian version without its epoch ("2:1.4-1" → "1.4-1"), the version
//   the file name carries (dpkg leaves the epoch out of it too); the `release` option puts every
//   package into that one release instead.
// - The InRelease signature is not verified: the operator names the repository they trust, and
//   every byte is checked against the checksums the (signed or not) Release gives.
// - Each index is streamed a stanza at a time, within the bounds of repository-releases.ts
//   (decompressed bytes, packages listed; identical stanzas counted once).

import { AptReadError } from "@packyard/formats/apt/apt-read-error.ts";
import { readPackagesIndex } from "@packyard/formats/apt/read-packages-index.ts";
import {
  type PackagesCompression,
  type PackagesIndexRef,
  packagesIndexes,
  type ReadRelease,
  readReleaseFile,
} from "@packyard/formats/apt/read-release-file.ts";
import { decompressStream } from "@packyard/formats/compress/decompress-stream.ts";
import { compareDebianVersions } from "@packyard/formats/deb/debian-version.ts";
import { fetchFromRepository, readSmallText, repositoryLocation } from "../../imports/http-fetch.ts";
import {
  boundedIndexBytes,
  fileNameOf,
  groupIntoReleases,
  pathUrl,
  RepositoryPackages,
  type RepositorySourceDeps,
} from "../../imports/repository-releases.ts";
import { ImportError, type ImportSource, type SourceRelease } from "../../imports/source.ts";
import { verifiedStream } from "../../imports/verify-stream.ts";

export interface AptRepositoryInput {
  url: string;
  distribution: string;
  /** Absent: every component the Release lists. */
  components?: string[] | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** One release for every package; absent: one release per version. */
  release?: string | undefined;
}

/** InRelease and Release of real archives are a few hundred kilobytes at most. */
const MAX_RELEASE_BYTES = 16 * 1024 * 1024;

const compressionPreference: readonly PackagesCompression[] = ["gzip", "xz", "none"];

/** "2:1.4-1" → "1.4-1": the epoch has no place in a release version (":" is not allowed). */
export function releaseVersionOfDebianVersion(version: string): string {
  const colon = version.indexOf(":");
  return colon !== -1 && /^\d+$/.test(version.slice(0, colon)) ? version.slice(colon + 1) : version;
}

function invalid(url: URL, what: string, error: unknown): ImportError {
  const message = error instanceof Error ? error.message : String(error);
  return new ImportError(
    "SOURCE_INVALID",
    `${what} (${url.href}) is not a valid APT index: ${message}`,
    url.href,
  );
}

export function createAptRepositorySource(
  input: AptRepositoryInput,
  deps: RepositorySourceDeps = {},
): ImportSource {
  const location = repositoryLocation(input);
  const distribution = input.distribution.replace(/^\/+|\/+$/g, "");
  const fetchOptions = (signal: AbortSignal, what: string) => ({
    signal,
    what,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const suiteUrl = new URL(
    `dists/${distribution.split("/").map(encodeURIComponent).join("/")}/`,
    location.base,
  );

  async function readRelease(signal: AbortSignal): Promise<ReadRelease> {
    let url = new URL("InRelease", suiteUrl);
    let what = "InRelease";
    let response: Response;
    try {
      response = await fetchFromRepository(location, url, fetchOptions(signal, what));
    } catch (error) {
      if (!(error instanceof ImportError && error.code === "SOURCE_NOT_FOUND")) throw error;
      url = new URL("Release", suiteUrl);
      what = "Release";
      try {
        response = await fetchFromRepository(location, url, fetchOptions(signal, what));
      } catch (second) {
        if (second instanceof ImportError && second.code === "SOURCE_NOT_FOUND")
          throw new ImportError(
            "SOURCE_NOT_FOUND",
            `No APT distribution "${distribution}" at ${location.base.href}: neither ${suiteUrl.href}InRelease nor ${suiteUrl.href}Release exists`,
            suiteUrl.href,
          );
        throw second;
      }
    }
    const text = await readSmallText(response, url, MAX_RELEASE_BYTES, what);
    let release: ReadRelease;
    try {
      release = readReleaseFile(text);
    } catch (error) {
      throw invalid(url, what, error);
    }
    if (what === "InRelease" && !release.signed)
      throw invalid(url, what, new Error("InRelease is not an OpenPGP cleartext-signed message"));
    return release;
  }

  async function readIndex(
    candidates: readonly PackagesIndexRef[],
    signal: AbortSignal,
    into: RepositoryPackages,
  ): Promise<void> {
    let lastNotFound: ImportError | undefined;
    for (const index of candidates) {
      const url = pathUrl(index.path, suiteUrl);
      let response: Response;
      try {
        response = await fetchFromRepository(location, url, fetchOptions(signal, index.path));
      } catch (error) {
        // Release files often list an uncompressed Packages the mirror does not serve.
        if (error instanceof ImportError && error.code === "SOURCE_NOT_FOUND") {
          lastNotFound = error;
          continue;
        }
        throw error;
      }
      const verified = verifiedStream(
        response.body as ReadableStream<Uint8Array>,
        { size: index.size, digests: [{ algorithm: "sha256", hex: index.sha256 }] },
        index.path,
      );
      const text = boundedIndexBytes(decompressStream(verified, index.compression), url, index.path);
      try {
        for await (const pkg of readPackagesIndex(text)) {
          into.add(
            {
              version: releaseVersionOfDebianVersion(pkg.version),
              filename: fileNameOf(pkg.filename),
              url: pathUrl(pkg.filename, location.base),
              size: pkg.size,
              digests: [{ algorithm: "sha256", hex: pkg.sha256 }],
            },
            url,
            index.path,
          );
        }
      } catch (error) {
        if (error instanceof ImportError) {
          if (error.code === "CHECKSUM_MISMATCH")
            throw new ImportError(
              "CHECKSUM_MISMATCH",
              `${url.href} does not match the Release file: ${error.message.replace(`${index.path}: `, "")}`,
              url.href,
            );
          throw error;
        }
        if (signal.aborted) throw signal.reason ?? error;
        if (error instanceof AptReadError) throw invalid(url, index.path, error);
        throw invalid(
          url,
          index.path,
          new Error(`could not be decompressed (${index.compression}): ${(error as Error).message}`),
        );
      }
      return;
    }
    throw (
      lastNotFound ??
      new ImportError("SOURCE_INVALID", `${suiteUrl.href}: no Packages index to read`, suiteUrl.href)
    );
  }

  return {
    async listReleases(signal: AbortSignal): Promise<SourceRelease[]> {
      const release = await readRelease(signal);
      const components = input.components?.length ? input.components : release.components;
      if (components.length === 0)
        throw new ImportError(
          "SOURCE_INVALID",
          `${suiteUrl.href}: the Release file lists no Components; name the components to import`,
          suiteUrl.href,
        );
      if (input.components?.length && release.components.length > 0) {
        const unknown = input.components.filter((component) => !release.components.includes(component));
        if (unknown.length > 0)
          throw new ImportError(
            "SOURCE_NOT_FOUND",
            `Distribution "${distribution}" at ${location.base.href} has no component ${unknown.join(", ")} (it has ${release.components.join(", ")})`,
            suiteUrl.href,
          );
      }
      const indexes = packagesIndexes(release, components, compressionPreference);
      if (indexes.size === 0)
        throw new ImportError(
          "SOURCE_INVALID",
          `${suiteUrl.href}: the Release file lists no binary Packages index for ${components.join(", ")}`,
          suiteUrl.href,
        );
      const packages = new RepositoryPackages();
      for (const candidates of indexes.values()) await readIndex(candidates, signal, packages);
      return groupIntoReleases(packages.packages, {
        location,
        deps,
        ...(input.release ? { named: input.release } : {}),
        compareVersions: compareDebianVersions,
      });
    },
  };
}
