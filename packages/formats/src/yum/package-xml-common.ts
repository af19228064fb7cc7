// Pieces shared by the primary, filelists and other renderers: names, versions, file entries.
import type { RpmFileEntry, RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { escapeXmlAttribute as attr, escapeXmlText as text } from "./xml-escape.ts";

/** Source packages are listed with arch "src" whatever they were built on. */
export function repodataArch(pkg: RpmPackageMetadata): string {
  return pkg.isSource ? "src" : pkg.arch;
}

export function versionElement(pkg: RpmPackageMetadata, indent: string): string {
  return `${indent}<version epoch="${pkg.epoch ?? 0}" ver="${attr(pkg.version)}" rel="${attr(pkg.release)}"/>\n`;
}

export function fileElement(file: RpmFileEntry, indent: string): string {
  const type = file.type === "file" ? "" : ` type="${file.type}"`;
  return `${indent}<file${type}>${text(file.path)}</file>\n`;
}

/** Opening tag of a filelists/other package: pkgid, name and arch as attributes. */
export function packageOpenTag(pkg: RpmPackageMetadata, checksum: string): string {
  return `<package pkgid="${attr(checksum)}" name="${attr(pkg.name)}" arch="${attr(repodataArch(pkg))}">\n`;
}
