// Renders primary.xml: one <package> fragment per package, then the document around them.
import type { RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { fileElement, repodataArch, versionElement } from "./package-xml-common.ts";
import { type PrimaryDependency, primaryDependencies } from "./primary-dependencies.ts";
import { isPrimaryFile } from "./primary-files.ts";
import { escapeXmlAttribute as attr, escapeXmlText as text } from "./xml-escape.ts";

/** Facts about the stored (signed) file, as opposed to the package's headers. */
export interface RpmFileFacts {
  /** sha256 of the whole stored file, hex; also the pkgid in filelists and other. */
  checksum: string;
  /** Path of the file relative to the repository root. */
  href: string;
  /** Size of the stored file in bytes. */
  size: number;
  /** Seconds since the epoch (createrepo_c uses the file's mtime). */
  time: number;
  /** Optional xml:base for files served from elsewhere. */
  base?: string;
  /** Main header byte range in the stored file, when signing moved it; defaults to the package's. */
  headerRange?: { start: number; end: number };
}

const DEPENDENCY_ORDER = [
  "provides",
  "requires",
  "conflicts",
  "obsoletes",
  "suggests",
  "enhances",
  "recommends",
  "supplements",
] as const;

/** The <package type="rpm"> element exactly as createrepo_c writes it, with its trailing newline. */
export function renderPrimaryPackage(pkg: RpmPackageMetadata, file: RpmFileFacts): string {
  const range = file.headerRange ?? { start: pkg.headerStart, end: pkg.headerEnd };
  const base = file.base ? ` xml:base="${attr(file.base)}"` : "";
  let out =
    `<package type="rpm">\n` +
    `  <name>${text(pkg.name)}</name>\n` +
    `  <arch>${text(repodataArch(pkg))}</arch>\n` +
    versionElement(pkg, "  ") +
    `  <checksum type="sha256" pkgid="YES">${text(file.checksum)}</checksum>\n` +
    `  <summary>${text(pkg.summary)}</summary>\n` +
    `  <description>${text(pkg.description)}</description>\n` +
    `  <packager>${text(pkg.packager)}</packager>\n` +
    `  <url>${text(pkg.url)}</url>\n` +
    `  <time file="${file.time}" build="${pkg.buildTime}"/>\n` +
    `  <size package="${file.size}" installed="${pkg.installedSize}" archive="${pkg.archiveSize}"/>\n` +
    `  <location${base} href="${attr(file.href)}"/>\n` +
    `  <format>\n` +
    `    <rpm:license>${text(pkg.license)}</rpm:license>\n` +
    `    <rpm:vendor>${text(pkg.vendor)}</rpm:vendor>\n` +
    `    <rpm:group>${text(pkg.group)}</rpm:group>\n` +
    `    <rpm:buildhost>${text(pkg.buildHost)}</rpm:buildhost>\n` +
    `    <rpm:sourcerpm>${text(pkg.sourceRpm)}</rpm:sourcerpm>\n` +
    `    <rpm:header-range start="${range.start}" end="${range.end}"/>\n`;
  const dependencies = primaryDependencies(pkg);
  for (const kind of DEPENDENCY_ORDER) {
    out += dependencyList(`rpm:${kind}`, dependencies[kind], kind === "requires");
  }
  for (const entry of pkg.files) {
    if (isPrimaryFile(entry.path)) out += fileElement(entry, "    ");
  }
  return `${out}  </format>\n</package>\n`;
}

function dependencyList(element: string, list: PrimaryDependency[], withPre: boolean): string {
  if (list.length === 0) return "";
  const entries = list.filter((entry) => entry.name !== "");
  // libxml2 closes an element without children itself.
  if (entries.length === 0) return `    <${element}/>\n`;
  let out = `    <${element}>\n`;
  for (const entry of entries) {
    out += `      <rpm:entry name="${attr(entry.name)}"`;
    if (entry.flags) {
      out += ` flags="${entry.flags}"`;
      if (entry.epoch) out += ` epoch="${attr(entry.epoch)}"`;
      if (entry.version) out += ` ver="${attr(entry.version)}"`;
      if (entry.release) out += ` rel="${attr(entry.release)}"`;
    }
    if (withPre && entry.pre) out += ` pre="1"`;
    out += "/>\n";
  }
  return `${out}    </${element}>\n`;
}

/** What comes before and after the package fragments of a primary.xml listing `count`. */
export function primaryXmlEnvelope(count: number): [head: string, tail: string] {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
      `<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="${count}">\n`,
    "</metadata>",
  ];
}

export function renderPrimaryXml(fragments: readonly string[]): string {
  const [head, tail] = primaryXmlEnvelope(fragments.length);
  return head + fragments.join("") + tail;
}
