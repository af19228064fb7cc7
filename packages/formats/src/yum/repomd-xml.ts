// Renders repodata/repomd.xml, the signed entry point that names and checksums the other metadata files.
import { escapeXmlAttribute as attr, escapeXmlText as text } from "./xml-escape.ts";

export type RepodataType = "primary" | "filelists" | "other";

export interface RepomdEntry {
  type: RepodataType;
  /** sha256 of the compressed file, hex. */
  checksum: string;
  /** sha256 of the uncompressed XML, hex. */
  openChecksum: string;
  /** e.g. "repodata/<checksum>-primary.xml.gz". */
  location: string;
  /** Seconds since the epoch. */
  timestamp: number;
  size: number;
  openSize: number;
}

export interface RepomdInput {
  /** Any string; createrepo_c uses the generation time. dnf only compares it for equality. */
  revision: string | number;
  entries: readonly RepomdEntry[];
}

export function renderRepomd({ revision, entries }: RepomdInput): string {
  let out =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">\n` +
    `  <revision>${text(String(revision))}</revision>\n`;
  for (const entry of entries) {
    out +=
      `  <data type="${attr(entry.type)}">\n` +
      `    <checksum type="sha256">${text(entry.checksum)}</checksum>\n` +
      `    <open-checksum type="sha256">${text(entry.openChecksum)}</open-checksum>\n` +
      `    <location href="${attr(entry.location)}"/>\n` +
      `    <timestamp>${entry.timestamp}</timestamp>\n` +
      `    <size>${entry.size}</size>\n` +
      `    <open-size>${entry.openSize}</open-size>\n` +
      `  </data>\n`;
  }
  return `${out}</repomd>\n`;
}
