// Renders other.xml: the changelogs, cut and ordered as createrepo_c does.
import type { RpmChangelogEntry, RpmPackageMetadata } from "../rpm/rpm-package-metadata.ts";
import { packageOpenTag, versionElement } from "./package-xml-common.ts";
import { escapeXmlAttribute as attr, escapeXmlText as text } from "./xml-escape.ts";

/** createrepo_c's default --changelog-limit. */
export const DEFAULT_CHANGELOG_LIMIT = 10;

export interface OtherPackageOptions {
  /** The stored file's sha256 (pkgid). */
  checksum: string;
  /** Newest entries to keep; Infinity keeps all. Default 10, as createrepo_c. */
  changelogLimit?: number;
}

export function renderOtherPackage(pkg: RpmPackageMetadata, options: OtherPackageOptions): string {
  let out = packageOpenTag(pkg, options.checksum) + versionElement(pkg, "  ");
  for (const entry of repodataChangelog(pkg.changelog, options.changelogLimit ?? DEFAULT_CHANGELOG_LIMIT)) {
    out += `  <changelog author="${attr(entry.author)}" date="${entry.time}">${text(entry.text)}</changelog>\n`;
  }
  return `${out}</package>\n`;
}

/**
 * The newest `limit` entries, oldest first. Entries sharing a timestamp get the later ones
 * bumped by a second each, and authors lose trailing spaces: createrepo_c does both, and dnf
 * and tools diffing repositories see the result.
 */
export function repodataChangelog(
  changelog: readonly RpmChangelogEntry[],
  limit: number,
): RpmChangelogEntry[] {
  const kept = changelog.slice(0, Math.max(0, limit)).map((entry) => ({
    ...entry,
    author:
      entry.author.length > 1 ? entry.author[0] + entry.author.slice(1).replace(/ +$/, "") : entry.author,
  }));
  // Walking newest to oldest, as createrepo_c does: when an entry has the same time as the one
  // before it, the run of newer entries with equal times is pushed up one second at a time.
  let lastTime: number | null = null;
  for (let i = 0; i < kept.length; i++) {
    const time = kept[i]!.time;
    if (lastTime !== null && time === lastTime) {
      let expected = time;
      for (let k = i - 1; k >= 0 && kept[k]!.time === expected; k--) {
        kept[k]!.time += 1;
        expected += 1;
      }
    } else {
      lastTime = time;
    }
  }
  return kept.reverse();
}

/** What comes before and after the package fragments of an other.xml listing `count`. */
export function otherXmlEnvelope(count: number): [head: string, tail: string] {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
      `<otherdata xmlns="http://linux.duke.edu/metadata/other" packages="${count}">\n`,
    "</otherdata>",
  ];
}

export function renderOtherXml(fragments: readonly string[]): string {
  const [head, tail] = otherXmlEnvelope(fragments.length);
  return head + fragments.join("") + tail;
}
