// An existing YUM/DNF repository as an import source (decision 029): createrepo_c's output as
// served by Nexus, Artifactory, packagecloud, Pulp or a plain mirror. Reads repodata/repomd.xml,
// then the primary metadata it names (gzip, xz, zstd or plain), checked against its checksum
// and size (and the uncompressed text against open-checksum), streamed through a strict XML
// parser, and lists every package once as a file of the release named by its version.
//
// - Version → release: version-release without the epoch ("2:1.4-3.el9" → "1.4-3.el9"), as
//   the file name carries it; characters a release version cannot hold (rpm allows "^") become
//   "_". The `release` option puts every package into that one release instead.
// - repomd.xml.asc is not verified (see ../apt/import.ts): each package is checked against
//   the checksum primary.xml gives (sha256 from createrepo_c by default; sha1, sha224, sha384,
//   sha512 and md5 when the repository was made with them).
// - primary.xml is read a package at a time, within the bounds of repository-releases.ts
//   (decompressed bytes, packages listed; identical entries counted once).
import { compressionOfName, decompressStream } from "@packyard/formats/compress/decompress-stream.ts";
import { rpmVersionCompare } from "@packyard/formats/rpm/rpm-version-compare.ts";
import {
  type ReadRepomd,
  type RepomdData,
  readPrimaryPackages,
  readRepomd,
  YumReadError,
} from "@packyard/formats/yum/read-repodata.ts";
import {
  fetchFromRepository,
  readSmallText,
  repositoryLocation,
  resolveInRepository,
} from "../../imports/http-fetch.ts";
import {
  boundedIndexBytes,
  fileNameOf,
  groupIntoReleases,
  MAX_INDEX_BYTES,
  type RepositoryPackage,
  RepositoryPackages,
  type RepositorySourceDeps,
} from "../../imports/repository-releases.ts";
import { ImportError, type ImportSource, type SourceRelease } from "../../imports/source.ts";
import { type ExpectedDigest, verifiedStream } from "../../imports/verify-stream.ts";

export interface YumRepositoryInput {
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** One release for every package; absent: one release per version. */
  release?: string | undefined;
}

const MAX_REPOMD_BYTES = 16 * 1024 * 1024;

/** version-release ("1.4-3.el9"), without the epoch, in the characters a release version allows. */
export function releaseVersionOfRpm(pkg: { version: string; release: string }): string {
  const full = pkg.release === "" ? pkg.version : `${pkg.version}-${pkg.release}`;
  return full.replace(/[^A-Za-z0-9.+~_-]/g, "_");
}

function digestOf(checksum: { type: string; value: string }): ExpectedDigest {
  return { algorithm: checksum.type === "sha" ? "sha1" : checksum.type, hex: checksum.value };
}

function invalid(url: URL, what: string, error: unknown): ImportError {
  const message = error instanceof Error ? error.message : String(error);
  return new ImportError(
    "SOURCE_INVALID",
    `${what} (${url.href}) is not valid YUM metadata: ${message}`,
    url.href,
  );
}

/** primary over its sqlite and zchunk variants, which are not read here. */
function primaryEntry(repomd: ReadRepomd, url: URL): RepomdData {
  const primary = repomd.data.find((data) => data.type === "primary");
  if (!primary)
    throw invalid(
      url,
      "repomd.xml",
      new Error(
        `it lists no primary metadata (it has ${repomd.data.map((data) => data.type).join(", ") || "nothing"})`,
      ),
    );
  return primary;
}

export function createYumRepositorySource(
  input: YumRepositoryInput,
  deps: RepositorySourceDeps = {},
): ImportSource {
  const location = repositoryLocation(input);
  const fetchOptions = (signal: AbortSignal, what: string) => ({
    signal,
    what,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });

  async function readPrimary(
    primary: RepomdData,
    signal: AbortSignal,
    into: RepositoryPackages,
  ): Promise<void> {
    const url = resolveInRepository(location, primary.href, primary.base);
    const compression = compressionOfName(primary.href);
    if (compression === undefined)
      throw invalid(
        url,
        "primary metadata",
        new Error(`its compression is not one Packyard reads (gzip, xz, zstd)`),
      );
    // repomd.xml says how large it is: no need to read that far to refuse it.
    if (primary.openSize !== undefined && primary.openSize > MAX_INDEX_BYTES)
      throw new ImportError(
        "SOURCE_TOO_LARGE",
        `primary metadata (${url.href}) is ${primary.openSize} bytes once decompressed, more than an import reads (${MAX_INDEX_BYTES})`,
        url.href,
      );
    const response = await fetchFromRepository(location, url, fetchOptions(signal, "primary metadata"));
    const compressed = verifiedStream(
      response.body as ReadableStream<Uint8Array>,
      {
        ...(primary.size !== undefined ? { size: primary.size } : {}),
        digests: [digestOf(primary.checksum)],
      },
      url.href,
    );
    let xml = decompressStream(compressed, compression);
    if (primary.openChecksum && compression !== "none")
      xml = verifiedStream(
        xml,
        {
          ...(primary.openSize !== undefined ? { size: primary.openSize } : {}),
          digests: [digestOf(primary.openChecksum)],
        },
        `${url.href} (uncompressed)`,
      );
    try {
      for await (const pkg of readPrimaryPackages(boundedIndexBytes(xml, url, "primary metadata"))) {
        const repositoryPackage: RepositoryPackage = {
          version: releaseVersionOfRpm(pkg),
          filename: fileNameOf(pkg.href),
          url: resolveInRepository(location, pkg.href, pkg.base),
          digests: [digestOf(pkg.checksum)],
        };
        if (pkg.size !== undefined) repositoryPackage.size = pkg.size;
        into.add(repositoryPackage, url, "primary metadata");
      }
    } catch (error) {
      if (error instanceof ImportError) {
        if (error.code === "CHECKSUM_MISMATCH")
          throw new ImportError(
            "CHECKSUM_MISMATCH",
            `${error.message} (primary metadata does not match repomd.xml)`,
            url.href,
          );
        throw error;
      }
      if (signal.aborted) throw signal.reason ?? error;
      if (error instanceof YumReadError) throw invalid(url, "primary metadata", error);
      throw invalid(
        url,
        "primary metadata",
        new Error(`could not be decompressed (${compression}): ${(error as Error).message}`),
      );
    }
  }

  return {
    async listReleases(signal: AbortSignal): Promise<SourceRelease[]> {
      const repomdUrl = new URL("repodata/repomd.xml", location.base);
      let response: Response;
      try {
        response = await fetchFromRepository(location, repomdUrl, fetchOptions(signal, "repomd.xml"));
      } catch (error) {
        if (error instanceof ImportError && error.code === "SOURCE_NOT_FOUND")
          throw new ImportError(
            "SOURCE_NOT_FOUND",
            `No YUM repository at ${location.base.href}: ${repomdUrl.href} does not exist`,
            repomdUrl.href,
          );
        throw error;
      }
      const text = await readSmallText(response, repomdUrl, MAX_REPOMD_BYTES, "repomd.xml");
      let repomd: ReadRepomd;
      try {
        repomd = readRepomd(text);
      } catch (error) {
        throw invalid(repomdUrl, "repomd.xml", error);
      }
      const packages = new RepositoryPackages();
      await readPrimary(primaryEntry(repomd, repomdUrl), signal, packages);
      return groupIntoReleases(packages.packages, {
        location,
        deps,
        ...(input.release ? { named: input.release } : {}),
        compareVersions: rpmVersionCompare,
      });
    },
  };
}
