// An .rpm uploaded to a release is signed with the project's key and read once, here: the
// signed file is what Packyard stores and serves (`rpmkeys -K` passes with the project's key),
// and its primary, filelists and other fragments are rendered for every later index build.
import { apiErrorCodeOr } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import { checkPayloadDigest } from "@packyard/formats/rpm/payload-digest.ts";
import { readRpmPackage } from "@packyard/formats/rpm/read-rpm.ts";
import { RpmFormatError } from "@packyard/formats/rpm/rpm-format-error.ts";
import type { RpmPackageMetadata } from "@packyard/formats/rpm/rpm-package-metadata.ts";
import { signRpm } from "@packyard/formats/rpm/sign-rpm.ts";
import { renderFilelistsPackage } from "@packyard/formats/yum/filelists-xml.ts";
import { renderOtherPackage } from "@packyard/formats/yum/other-xml.ts";
import { renderPrimaryPackage } from "@packyard/formats/yum/primary-xml.ts";
import { DomainError } from "../../platform/core/errors.ts";
import type { BlobStore, StagedBlob } from "../../platform/storage/blob-store.ts";

const GROUP = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RESERVED = new Set(["repodata", "packages"]);

/** The YUM group a package goes to: "" is the repository root, else /rpm/<group>/. */
export function parseYumGroup(group: string | undefined): string {
  if (!group) return "";
  if (!GROUP.test(group) || RESERVED.has(group)) {
    throw new DomainError(
      "INVALID_GROUP",
      "group must be lowercase letters, digits, . _ or -, at most 64 characters, and not repodata or packages",
    );
  }
  return group;
}

export interface SignedRpm {
  /** The signed file, staged in the blob store (not committed yet). */
  staged: StagedBlob;
  metadata: RpmPackageMetadata;
  headerRange: { start: number; end: number };
}

/** The reader's or signer's code when the contract has it (a test keeps them in step), else a plain 400. */
const packageError = (error: RpmFormatError) =>
  new DomainError(apiErrorCodeOr(error.code, "VALIDATION_FAILED"), error.message);

/**
 * Reads the original (a staged upload, or a stored .rpm being re-signed after a rotation), stages
 * the signed file as a new blob, and returns what indexing needs. The payload is checked against
 * its digest unless `checkPayload` is false.
 */
export async function signStagedRpm(
  blobs: BlobStore,
  original: Pick<StagedBlob, "read">,
  key: SigningKey,
  maxBytes: number,
  checkPayload = true,
): Promise<SignedRpm> {
  const source = original.read();
  try {
    let read: Awaited<ReturnType<typeof readRpmPackage>>;
    try {
      read = await readRpmPackage(source, { keepSourceOpen: true });
    } catch (error) {
      if (error instanceof RpmFormatError) throw packageError(error);
      throw error;
    }
    let signed: Awaited<ReturnType<typeof signRpm>>;
    try {
      signed = await signRpm(read.file, { signingKey: key.privateKey });
    } catch (error) {
      if (error instanceof RpmFormatError) throw packageError(error);
      throw error;
    }
    const rest = read.rest;
    const body = (async function* () {
      yield signed.leadAndSignature;
      yield read.file.prefix.subarray(signed.originalHeaderStart);
      // A payload that does not match its digest fails the stage at its end: nothing is kept.
      if (!rest) return;
      yield* checkPayload ? checkPayloadDigest(read.file, rest) : rest;
    })();
    // The signature may grow the file by a few bytes when the package had no reserved space.
    let staged: StagedBlob;
    try {
      staged = await blobs.stage(body, { maxBytes: maxBytes + 65_536 });
    } catch (error) {
      if (error instanceof RpmFormatError) throw packageError(error);
      throw error;
    }
    return {
      staged,
      metadata: read.metadata,
      headerRange: { start: signed.headerStart, end: signed.headerEnd },
    };
  } finally {
    source.destroy();
  }
}

export interface YumRecord {
  repo_group: string;
  name: string;
  epoch: number;
  version: string;
  release: string;
  arch: string;
  location: string;
  primary_xml: string;
  filelists_xml: string;
  other_xml: string;
}

export function yumRecord(
  rpm: SignedRpm,
  file: { filename: string; releaseId: string; createdAt: string },
  group: string,
): YumRecord {
  const location = `packages/${file.releaseId}/${file.filename}`;
  const checksum = rpm.staged.sha256;
  return {
    repo_group: group,
    name: rpm.metadata.name,
    epoch: rpm.metadata.epoch ?? 0,
    version: rpm.metadata.version,
    release: rpm.metadata.release,
    arch: rpm.metadata.isSource ? "src" : rpm.metadata.arch,
    location,
    primary_xml: renderPrimaryPackage(rpm.metadata, {
      checksum,
      href: location,
      size: rpm.staged.size,
      time: Math.floor(Date.parse(file.createdAt) / 1000),
      headerRange: rpm.headerRange,
    }),
    filelists_xml: renderFilelistsPackage(rpm.metadata, { checksum }),
    other_xml: renderOtherPackage(rpm.metadata, { checksum }),
  };
}
