// A .deb uploaded to a release is read once, here: its control paragraph is validated and its
// Packages stanza rendered with the pool path and hashes, ready for every later index build.

import type { Readable } from "node:stream";
import { apiErrorCodeOr } from "@packyard/contract";
import { poolPrefix, renderPackagesStanza } from "@packyard/formats/apt/index.ts";
import { DebFormatError, readDeb } from "@packyard/formats/deb/index.ts";
import { DomainError } from "../../platform/core/errors.ts";

/** Suite and component names: what apt accepts in a sources line and a dists/ path. */
const TOKEN = /^[a-z0-9][a-z0-9.+-]{0,63}$/;

export interface AptTarget {
  suite: string;
  component: string;
}

export function parseAptTarget(suite: string | undefined, component: string | undefined): AptTarget {
  const target = { suite: suite || "stable", component: component || "main" };
  for (const [field, value] of Object.entries(target)) {
    if (!TOKEN.test(value)) {
      throw new DomainError(
        "INVALID_DISTRIBUTION",
        `${field === "suite" ? "distribution" : "component"} must be lowercase letters, digits, . + or -, at most 64 characters`,
      );
    }
  }
  return target;
}

export interface DebRecord {
  suite: string;
  component: string;
  name: string;
  version: string;
  architecture: string;
  pool_path: string;
  stanza: string;
}

export type ParsedDeb = Awaited<ReturnType<typeof readDeb>>;

/** Reads and validates a .deb's control paragraph; a bad package is a 400 with the reader's code. */
export async function parseDeb(source: Readable): Promise<ParsedDeb> {
  try {
    return await readDeb(source, { stopAfterControl: true });
  } catch (error) {
    // The reader's code when the contract has it (a test keeps them in step), else a plain 400.
    if (error instanceof DebFormatError)
      throw new DomainError(apiErrorCodeOr(error.code, "VALIDATION_FAILED"), error.message);
    throw error;
  } finally {
    source.destroy();
  }
}

export function debRecord(
  deb: ParsedDeb,
  file: {
    filename: string;
    releaseId: string;
    size: number;
    md5: string;
    sha1: string;
    sha256: string;
  },
  target: AptTarget,
): DebRecord {
  // The release id keeps two different builds of one version apart in the pool.
  const poolPath = `pool/${target.component}/${poolPrefix(deb.source)}/${deb.source}/${file.releaseId}/${file.filename}`;
  // MD5sum, SHA1 and SHA256, as reprepro lists them (Debian's archive lists MD5sum and SHA256);
  // apt verifies a package with SHA256. Not SHA512: 64 random bytes more per package that no
  // compressor can shrink, which made Packages.gz and .xz nearly twice as large (decision 047).
  const stanza = renderPackagesStanza(deb.control, {
    filename: poolPath,
    size: file.size,
    md5: file.md5,
    sha1: file.sha1,
    sha256: file.sha256,
  });
  return {
    ...target,
    name: deb.name,
    version: deb.version,
    architecture: deb.architecture,
    pool_path: poolPath,
    stanza,
  };
}
