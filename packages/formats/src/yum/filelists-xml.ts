// Renders filelists.xml: every file of every package, which dnf loads only for file requires outside primary.
import type { RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { fileElement, packageOpenTag, versionElement } from "./package-xml-common.ts";

/** `checksum` is the stored file's sha256, the pkgid tying this entry to primary.xml. */
export function renderFilelistsPackage(pkg: RpmPackageMetadata, file: { checksum: string }): string {
  let out = packageOpenTag(pkg, file.checksum) + versionElement(pkg, "  ");
  for (const entry of pkg.files) out += fileElement(entry, "  ");
  return `${out}</package>\n`;
}

/** What comes before and after the package fragments of a filelists.xml listing `count`. */
export function filelistsXmlEnvelope(count: number): [head: string, tail: string] {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
      `<filelists xmlns="http://linux.duke.edu/metadata/filelists" packages="${count}">\n`,
    "</filelists>",
  ];
}

export function renderFilelistsXml(fragments: readonly string[]): string {
  const [head, tail] = filelistsXmlEnvelope(fragments.length);
  return head + fragments.join("") + tail;
}
