// Builds a complete repodata/ directory (three gzipped XML files and repomd.xml) from stored package data.
import type { RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { renderFilelistsPackage, renderFilelistsXml } from "./filelists-xml.ts";
import { renderOtherPackage, renderOtherXml } from "./other-xml.ts";
import { type RpmFileFacts, renderPrimaryPackage, renderPrimaryXml } from "./primary-xml.ts";
import { buildRepodataFile, type RepodataFile } from "./repodata-file.ts";
import { renderRepomd } from "./repomd-xml.ts";

export interface YumRepodataInput {
  packages: readonly { metadata: RpmPackageMetadata; file: RpmFileFacts }[];
  /** Seconds since the epoch, for the repomd.xml timestamps. */
  timestamp: number;
  /** Defaults to the timestamp. */
  revision?: string | number;
  changelogLimit?: number;
}

export interface YumRepodata {
  /** The three metadata files, to be written under their `path`. */
  files: RepodataFile[];
  /** repodata/repomd.xml; sign this (detached, armored) as repodata/repomd.xml.asc. */
  repomdXml: string;
}

/**
 * Renders everything at once. Services that keep rendered fragments per package can instead
 * call the render*Package functions when a package arrives and only join them here.
 */
export function buildYumRepodata(input: YumRepodataInput): YumRepodata {
  const primary: string[] = [];
  const filelists: string[] = [];
  const other: string[] = [];
  for (const { metadata, file } of input.packages) {
    primary.push(renderPrimaryPackage(metadata, file));
    filelists.push(renderFilelistsPackage(metadata, file));
    other.push(
      renderOtherPackage(metadata, { checksum: file.checksum, changelogLimit: input.changelogLimit }),
    );
  }
  const files = [
    buildRepodataFile("primary", renderPrimaryXml(primary), input.timestamp),
    buildRepodataFile("filelists", renderFilelistsXml(filelists), input.timestamp),
    buildRepodataFile("other", renderOtherXml(other), input.timestamp),
  ];
  const repomdXml = renderRepomd({
    revision: input.revision ?? input.timestamp,
    entries: files.map((file) => file.entry),
  });
  return { files, repomdXml };
}
