// What kind of file a filename is, and the Content-Type it is served with: a package format's
// (formats/registry.ts), else one of the generic kinds below.
import type { FileKind } from "@packyard/contract";
import { formatOfFile } from "../registry.ts";

const rules: [RegExp, FileKind, string][] = [
  [/\.zip$/i, "archive", "application/zip"],
  [/\.(tar\.gz|tgz)$/i, "archive", "application/gzip"],
  [/\.tar\.xz$/i, "archive", "application/x-xz"],
  [/\.tar\.zst$/i, "archive", "application/zstd"],
  [/\.tar\.bz2$/i, "archive", "application/x-bzip2"],
  [/\.tar$/i, "archive", "application/x-tar"],
  [/\.(asc|sig|minisig)$/i, "signature", "application/pgp-signature"],
  [/(^SHA(256|512)SUMS|\.sha(256|512))$/i, "checksum", "text/plain; charset=utf-8"],
  [/\.(exe|msi|dmg|pkg|appimage|apk|bin|run)$/i, "binary", "application/octet-stream"],
  [/\.(txt|md)$/i, "other", "text/plain; charset=utf-8"],
  [/\.json$/i, "other", "application/json"],
];

export function classifyFile(filename: string): { kind: FileKind; contentType: string } {
  const format = formatOfFile(filename);
  if (format) return { kind: format.fileKind, contentType: format.contentType };
  for (const [pattern, kind, contentType] of rules) if (pattern.test(filename)) return { kind, contentType };
  // No extension: a plain executable, as release binaries usually are.
  if (!filename.includes(".")) return { kind: "binary", contentType: "application/octet-stream" };
  return { kind: "other", contentType: "application/octet-stream" };
}
