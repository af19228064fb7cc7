// Pulls what primary.xml, filelists.xml and other.xml need out of parsed RPM headers, as plain JSON data.
import { makeDependency, type RpmDependency } from "./rpm-dependency.ts";
import { RpmFormatError } from "./rpm-format-error.ts";
import type { RpmHeader } from "./rpm-header.ts";
import { RpmFileFlag, RpmSense, SigTag, Tag } from "./rpm-tags.ts";

export interface RpmFileEntry {
  path: string;
  mode: number;
  flags: number;
  /** A directory wins over the ghost flag, as in createrepo_c. */
  type: "file" | "dir" | "ghost";
}

export interface RpmChangelogEntry {
  /** Seconds since the epoch. */
  time: number;
  author: string;
  text: string;
}

export interface RpmDependencies {
  provides: RpmDependency[];
  requires: RpmDependency[];
  conflicts: RpmDependency[];
  obsoletes: RpmDependency[];
  suggests: RpmDependency[];
  enhances: RpmDependency[];
  recommends: RpmDependency[];
  supplements: RpmDependency[];
}

/** Everything the repository indexes need about one package; JSON-serializable, so it can be stored. */
export interface RpmPackageMetadata extends RpmDependencies {
  name: string;
  /** null when the package has no EPOCH tag (indexes print 0). */
  epoch: number | null;
  version: string;
  release: string;
  /** The build architecture from the header; source packages still carry one. */
  arch: string;
  isSource: boolean;
  summary: string;
  description: string;
  packager: string;
  url: string;
  license: string;
  vendor: string;
  group: string;
  buildHost: string;
  sourceRpm: string;
  buildTime: number;
  installedSize: number;
  archiveSize: number;
  /** Byte offsets of the main header in the file as read (primary.xml's header-range). */
  headerStart: number;
  headerEnd: number;
  files: RpmFileEntry[];
  /** Newest first, as stored. */
  changelog: RpmChangelogEntry[];
}

const DEPENDENCY_TAGS: [keyof RpmDependencies, number, number, number][] = [
  ["provides", Tag.PROVIDENAME, Tag.PROVIDEFLAGS, Tag.PROVIDEVERSION],
  ["requires", Tag.REQUIRENAME, Tag.REQUIREFLAGS, Tag.REQUIREVERSION],
  ["conflicts", Tag.CONFLICTNAME, Tag.CONFLICTFLAGS, Tag.CONFLICTVERSION],
  ["obsoletes", Tag.OBSOLETENAME, Tag.OBSOLETEFLAGS, Tag.OBSOLETEVERSION],
  ["suggests", Tag.SUGGESTNAME, Tag.SUGGESTFLAGS, Tag.SUGGESTVERSION],
  ["enhances", Tag.ENHANCENAME, Tag.ENHANCEFLAGS, Tag.ENHANCEVERSION],
  ["recommends", Tag.RECOMMENDNAME, Tag.RECOMMENDFLAGS, Tag.RECOMMENDVERSION],
  ["supplements", Tag.SUPPLEMENTNAME, Tag.SUPPLEMENTFLAGS, Tag.SUPPLEMENTVERSION],
];

/**
 * Limits on what one package may list, checked on the index entries' counts before any value is
 * decoded; a refusal is RPM_TOO_MANY_ENTRIES. Every value can be an empty string, one byte of
 * the store, so without them a crafted header costs seconds and gigabytes to read. Files need no
 * limit of their own: one array holds one value per file, and rpm-header.ts's MAX_ENTRY_COUNT
 * (1,000,000, several times the biggest real packages) bounds every array; decoding that many
 * files costs about 0.25 s and 70 MB. The limits below sit far above real packages too:
 * - dependencies, all kinds together: the longest real lists, openSUSE kernels' ksym() provides
 *   and texlive's tex() provides, are some tens of thousands;
 * - changelog entries: the longest real changelogs (old kernels, glibc) hold a few thousand.
 */
export const MAX_DEPENDENCIES = 500_000;
export const MAX_CHANGELOG_ENTRIES = 100_000;

function tooMany(what: string, count: number, limit: number): RpmFormatError {
  return new RpmFormatError(
    "RPM_TOO_MANY_ENTRIES",
    `${count} ${what}, more than any real package has (limit ${limit})`,
    "header",
  );
}

/** How many values an entry holds, without decoding them; 0 when the tag is absent. */
const countOf = (header: RpmHeader, tag: number) => header.entry(tag)?.count ?? 0;

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

export function extractRpmMetadata(
  signature: RpmHeader,
  header: RpmHeader,
  range: { headerStart: number; headerEnd: number },
): RpmPackageMetadata {
  const required = (tag: number, label: string): string => {
    const value = header.getString(tag);
    if (value === undefined)
      throw new RpmFormatError("RPM_MISSING_TAG", `no ${label} tag (${tag})`, "header");
    return value;
  };
  const text = (tag: number) => header.getString(tag) ?? "";

  return {
    name: required(Tag.NAME, "NAME"),
    epoch: header.getNumber(Tag.EPOCH) ?? null,
    version: required(Tag.VERSION, "VERSION"),
    release: required(Tag.RELEASE, "RELEASE"),
    arch: required(Tag.ARCH, "ARCH"),
    isSource: (header.getNumber(Tag.SOURCEPACKAGE) ?? 0) !== 0,
    summary: text(Tag.SUMMARY),
    description: text(Tag.DESCRIPTION),
    packager: text(Tag.PACKAGER),
    url: text(Tag.URL),
    license: text(Tag.LICENSE),
    vendor: text(Tag.VENDOR),
    group: text(Tag.GROUP),
    buildHost: text(Tag.BUILDHOST),
    sourceRpm: text(Tag.SOURCERPM),
    buildTime: header.getNumber(Tag.BUILDTIME) ?? 0,
    installedSize: header.getNumber(Tag.LONGSIZE) ?? header.getNumber(Tag.SIZE) ?? 0,
    // rpm 4.18 writes the payload size into the signature header only; rpm merges it into the
    // main header when reading, main-header values first.
    archiveSize:
      header.getNumber(SigTag.LONGARCHIVESIZE) ??
      signature.getNumber(SigTag.LONGARCHIVESIZE) ??
      header.getNumber(Tag.ARCHIVESIZE) ??
      signature.getNumber(SigTag.PAYLOADSIZE) ??
      0,
    headerStart: range.headerStart,
    headerEnd: range.headerEnd,
    ...readDependencies(header),
    files: readFiles(header),
    changelog: readChangelog(header),
  };
}

function readDependencies(header: RpmHeader): RpmDependencies {
  let total = 0;
  for (const [, nameTag] of DEPENDENCY_TAGS) total += countOf(header, nameTag);
  total += countOf(header, Tag.OLDSUGGESTSNAME) + countOf(header, Tag.OLDENHANCESNAME);
  if (total > MAX_DEPENDENCIES) throw tooMany("dependencies", total, MAX_DEPENDENCIES);
  const result = {} as RpmDependencies;
  for (const [kind, nameTag, flagsTag, versionTag] of DEPENDENCY_TAGS) {
    result[kind] = readDependencyList(header, nameTag, flagsTag, versionTag);
  }
  // Weak dependencies from before rpm 4.12 (SUSE): the STRONG bit told Recommends from Suggests
  // and Supplements from Enhances. Read them the way createrepo_c and libsolv do.
  for (const dependency of readDependencyList(
    header,
    Tag.OLDSUGGESTSNAME,
    Tag.OLDSUGGESTSFLAGS,
    Tag.OLDSUGGESTSVERSION,
  )) {
    (dependency.flags & RpmSense.STRONG ? result.recommends : result.suggests).push(dependency);
  }
  for (const dependency of readDependencyList(
    header,
    Tag.OLDENHANCESNAME,
    Tag.OLDENHANCESFLAGS,
    Tag.OLDENHANCESVERSION,
  )) {
    (dependency.flags & RpmSense.STRONG ? result.supplements : result.enhances).push(dependency);
  }
  return result;
}

function readDependencyList(header: RpmHeader, nameTag: number, flagsTag: number, versionTag: number) {
  const nameEntry = header.entry(nameTag);
  if (!nameEntry) return [];
  const flagsEntry = header.entry(flagsTag);
  const versionsEntry = header.entry(versionTag);
  // rpm drops the whole dependency set when these disagree; a silent partial list would be worse.
  // Compared on the index counts, so a mismatch costs nothing to refuse.
  if (
    (flagsEntry && flagsEntry.count !== nameEntry.count) ||
    (versionsEntry && versionsEntry.count !== nameEntry.count)
  ) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `dependency tag ${nameTag}: ${nameEntry.count} names, ${flagsEntry?.count} flags, ${versionsEntry?.count} versions`,
      "header",
    );
  }
  const names = header.getStrings(nameTag) ?? [];
  const flags = header.getNumbers(flagsTag);
  const versions = header.getStrings(versionTag);
  return names.map((name, i) => makeDependency(name, flags?.[i] ?? 0, versions?.[i] ?? ""));
}

function readFiles(header: RpmHeader): RpmFileEntry[] {
  const hasBasenames = header.has(Tag.BASENAMES);
  const fileCount = countOf(header, hasBasenames ? Tag.BASENAMES : Tag.OLDFILENAMES);
  // Parallel arrays of different lengths are refused on their counts, before decoding any.
  if (hasBasenames && countOf(header, Tag.DIRINDEXES) !== fileCount) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `${fileCount} basenames but ${countOf(header, Tag.DIRINDEXES)} dirindexes`,
      "header",
    );
  }
  const modesCount = header.entry(Tag.FILEMODES)?.count;
  const flagsCount = header.entry(Tag.FILEFLAGS)?.count;
  if ((modesCount ?? fileCount) !== fileCount || (flagsCount ?? fileCount) !== fileCount) {
    throw new RpmFormatError(
      "RPM_BAD_HEADER",
      `${fileCount} files, ${modesCount} modes, ${flagsCount} flags`,
      "header",
    );
  }
  let paths: string[];
  if (hasBasenames) {
    const basenames = header.getStrings(Tag.BASENAMES) ?? [];
    const dirnames = header.getStrings(Tag.DIRNAMES) ?? [];
    const dirindexes = header.getNumbers(Tag.DIRINDEXES) ?? [];
    paths = basenames.map((basename, i) => {
      const dirname = dirnames[dirindexes[i]!];
      if (dirname === undefined) {
        throw new RpmFormatError(
          "RPM_INDEX_OUT_OF_BOUNDS",
          `file ${i} points at directory ${dirindexes[i]} of ${dirnames.length}`,
          "header",
        );
      }
      return dirname + basename;
    });
  } else {
    paths = header.getStrings(Tag.OLDFILENAMES) ?? [];
  }
  const modes = header.getNumbers(Tag.FILEMODES);
  const flags = header.getNumbers(Tag.FILEFLAGS);
  return paths.map((path, i) => {
    const mode = modes?.[i] ?? 0;
    const fileFlags = flags?.[i] ?? 0;
    const type =
      (mode & S_IFMT) === S_IFDIR ? "dir" : fileFlags & RpmFileFlag.GHOST ? "ghost" : ("file" as const);
    return { path, mode, flags: fileFlags, type };
  });
}

function readChangelog(header: RpmHeader): RpmChangelogEntry[] {
  for (const tag of [Tag.CHANGELOGTIME, Tag.CHANGELOGNAME, Tag.CHANGELOGTEXT]) {
    const count = countOf(header, tag);
    if (count > MAX_CHANGELOG_ENTRIES) throw tooMany("changelog entries", count, MAX_CHANGELOG_ENTRIES);
  }
  const times = header.getNumbers(Tag.CHANGELOGTIME) ?? [];
  const authors = header.getStrings(Tag.CHANGELOGNAME) ?? [];
  const texts = header.getStrings(Tag.CHANGELOGTEXT) ?? [];
  // rpm never looks at changelog counts; a mismatch only shortens the list, as in createrepo_c.
  const count = Math.min(times.length, authors.length, texts.length);
  const entries: RpmChangelogEntry[] = [];
  for (let i = 0; i < count; i++) entries.push({ time: times[i]!, author: authors[i]!, text: texts[i]! });
  return entries;
}
