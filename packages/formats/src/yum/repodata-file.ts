// Compresses one repodata XML document and names it by checksum, giving its repomd.xml entry.
import { createHash } from "node:crypto";
import { type GzipDocument, gzipBlocks } from "../compress/gzip-members.ts";
import type { RepodataType, RepomdEntry } from "./repomd-xml.ts";

export interface RepodataFile {
  /** Path relative to the repository root: repodata/<sha256>-<type>.xml.gz. */
  path: string;
  bytes: Uint8Array;
  entry: RepomdEntry;
}

/**
 * gzip, because every dnf and yum reads it (zstd needs createrepo_c 1.0-era clients). The name
 * carries the checksum so a client holding an older repomd.xml never gets a newer file under
 * the name it expects.
 */
export function buildRepodataFile(type: RepodataType, xml: string, timestamp: number): RepodataFile {
  // Level 6 (gzipBlocks' default): a 1–2% larger file than level 9 for a sixth of the time.
  return repodataFile(type, gzipBlocks([xml]), timestamp);
}

/** The file and its entry for a document already compressed (gzipBlocks, one member per block). */
export function repodataFile(type: RepodataType, document: GzipDocument, timestamp: number): RepodataFile {
  const checksum = createHash("sha256").update(document.gzip).digest("hex");
  const path = `repodata/${checksum}-${type}.xml.gz`;
  return {
    path,
    bytes: document.gzip,
    entry: {
      type,
      checksum,
      openChecksum: document.sha256,
      location: path,
      timestamp,
      size: document.gzip.length,
      openSize: document.size,
    },
  };
}
