// Compresses one repodata XML document and names it by checksum, giving its repomd.xml entry.
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
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
  const open = Buffer.from(xml, "utf8");
  // Level 6: a 1–2% larger file than level 9 for a sixth of the time on big repositories.
  const bytes = new Uint8Array(gzipSync(open, { level: 6 }));
  const checksum = sha256(bytes);
  const path = `repodata/${checksum}-${type}.xml.gz`;
  return {
    path,
    bytes,
    entry: {
      type,
      checksum,
      openChecksum: sha256(open),
      location: path,
      timestamp,
      size: bytes.length,
      openSize: open.length,
    },
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
