// Joins Packages stanzas into one index in a stable order, so an unchanged repository
// republishes byte-identical files (and identical by-hash names).
import { type KeyedBlock, startsBlock } from "../compress/gzip-members.ts";
import { compareDebianVersions } from "../deb/debian-version.ts";
import { AptIndexError } from "./apt-index-error.ts";

export interface PackagesIndexEntry {
  /** Identifies an entry whose stanza never changes (a stored file's id); optional. */
  id?: string;
  name: string;
  version: string;
  architecture: string;
  /** From renderPackagesStanza. */
  stanza: string;
}

const byCodeUnits = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/** Name ascending, then newest version first (dpkg order), then architecture. */
export function comparePackagesIndexEntries(left: PackagesIndexEntry, right: PackagesIndexEntry): number {
  return (
    byCodeUnits(left.name, right.name) ||
    compareDebianVersions(right.version, left.version) ||
    byCodeUnits(left.architecture, right.architecture) ||
    // dpkg calls 1.0 and 1.0-0 equal; keep even those in a fixed order.
    byCodeUnits(left.version, right.version)
  );
}

/** Stanzas separated by one blank line; "" for an empty index, which apt accepts. */
export function renderPackagesIndex(entries: readonly PackagesIndexEntry[]): string {
  const sorted = [...entries].sort(comparePackagesIndexEntries);
  for (let index = 1; index < sorted.length; index++) {
    const previous = sorted[index - 1]!;
    const current = sorted[index]!;
    if (
      previous.name === current.name &&
      previous.architecture === current.architecture &&
      compareDebianVersions(previous.version, current.version) === 0
    ) {
      throw new AptIndexError(
        "APT_DUPLICATE_PACKAGE",
        `${current.name} ${current.version} (${current.architecture}) appears twice; apt would pick one at random`,
      );
    }
  }
  return sorted.map((entry) => `${entry.stanza.replace(/\n*$/, "")}\n`).join("\n");
}

/** Entries in index order, and the same entries as a set: what the next sort starts from. */
export interface PackagesIndexOrder<T extends PackagesIndexEntry = PackagesIndexEntry> {
  sorted: T[];
  members: Set<T>;
}

/**
 * `entries` in index order (comparePackagesIndexEntries). Given the order of the previous build
 * of the same index — entries being the same objects from build to build — only the entries
 * added since are sorted and merged in: a publish that adds one package to 50,000 does not sort
 * 50,000 again. The result is the full sort's: the order is total for the entries of one index
 * (two entries comparing equal would be the same name, version and architecture, kept once).
 */
export function sortPackagesIndexEntries<T extends PackagesIndexEntry>(
  entries: readonly T[],
  previous?: PackagesIndexOrder<T>,
): PackagesIndexOrder<T> {
  const members = new Set(entries);
  const added = previous ? entries.filter((entry) => !previous.members.has(entry)) : entries;
  // Mostly new (or first build): one sort of everything costs less than merging.
  if (!previous || added.length * 4 > entries.length)
    return { sorted: [...entries].sort(comparePackagesIndexEntries), members };
  const fresh = [...added].sort(comparePackagesIndexEntries);
  const sorted: T[] = [];
  let next = 0;
  for (const entry of previous.sorted) {
    if (!members.has(entry)) continue;
    while (next < fresh.length && comparePackagesIndexEntries(fresh[next]!, entry) < 0)
      sorted.push(fresh[next++]!);
    sorted.push(entry);
  }
  while (next < fresh.length) sorted.push(fresh[next++]!);
  return { sorted, members };
}

/** A block of packagesIndexBlocks: its entries too, so the next split can reuse it. */
export interface PackagesIndexBlock extends KeyedBlock {
  readonly entries: readonly PackagesIndexEntry[];
}

/** An index split into blocks, kept for the next split of the same index. */
export interface PackagesIndexSplit {
  blocks: PackagesIndexBlock[];
  /** The position in the index of each block's first entry. */
  starts: number[];
}

/**
 * The index of renderPackagesIndex split into blocks whose concatenation is the same text.
 * Blocks start where startsBlock says: boundaries follow names, so adding one package changes
 * one block. Callers compress blocks separately and cache them: a gzip file may hold several
 * members, which gzip, zlib and apt read as one stream. Entries that dpkg considers the same
 * name/version/architecture keep only the first in index order, instead of failing the index.
 * A block's key is its entries' ids when they all have one (their stanzas never change), else
 * its text; its text is rendered only when asked for. With `sorted`, entries are in their final
 * order already (the caller's list order; by name otherwise).
 */
export function packagesIndexBlocks(
  entries: readonly PackagesIndexEntry[],
  blockSize = 32,
  options: { sorted?: boolean } = {},
): PackagesIndexBlock[] {
  const sorted = options.sorted ? entries : [...entries].sort(comparePackagesIndexEntries);
  return splitPackagesIndex(sorted, blockSize).blocks;
}

/**
 * packagesIndexBlocks of entries in their final order, given the previous split of the same index
 * and the lowest position that changed since (`changedFrom`: 0 when not known, Infinity when
 * nothing did). Splitting goes left to right, so every block that ends before that position is
 * the previous one: it is kept as it is, and splitting resumes at the start of the first block
 * that does not. Beyond it, a block holding the very same entries — the same objects, in the
 * same order and place (first or not) — is reused, key and all, instead of joining its ids
 * again. One package more at the end of 50,000 then looks at one block, not at 50,000 entries.
 */
export function splitPackagesIndex(
  entries: readonly PackagesIndexEntry[],
  blockSize = 32,
  previous?: { split: PackagesIndexSplit; changedFrom: number },
): PackagesIndexSplit {
  const blocks: PackagesIndexBlock[] = [];
  const starts: number[] = [];
  /** The previous split's blocks from where splitting resumes, by first entry. */
  let reusable: Map<PackagesIndexEntry, PackagesIndexBlock> | undefined;
  let from = 0;
  if (previous) {
    const { split, changedFrom } = previous;
    if (changedFrom === Number.POSITIVE_INFINITY) return split;
    // Block i is decided once entry starts[i + 1] is seen (it closes the block or joins it).
    let kept = 0;
    while (kept + 1 < split.starts.length && split.starts[kept + 1]! < changedFrom) kept++;
    reusable = new Map();
    for (let i = 0; i < split.blocks.length; i++) {
      const block = split.blocks[i]!;
      if (i < kept) {
        blocks.push(block);
        starts.push(split.starts[i]!);
      } else reusable.set(block.entries[0]!, block);
    }
    from = kept < split.starts.length ? split.starts[kept]! : 0;
  }
  const close = (group: PackagesIndexEntry[], start: number) => {
    // Stanzas are separated by a blank line, so every block but the first starts with one.
    const separator = blocks.length > 0 ? "\n" : "";
    const before = reusable?.get(group[0]!);
    let block: PackagesIndexBlock;
    if (
      before !== undefined &&
      before.entries.length === group.length &&
      before.key.startsWith("\n") === (separator !== "") &&
      before.entries.every((entry, index) => entry === group[index])
    ) {
      block = before;
    } else {
      const text = () => separator + group.map(stanzaText).join("\n");
      const keyed = group.every((entry) => entry.id !== undefined);
      // A text key of a block that is not first starts with its separator too.
      const key = keyed ? `${separator}${group.map((entry) => entry.id).join(",")}` : text();
      block = { key, text, entries: group };
    }
    blocks.push(block);
    starts.push(start);
  };
  let current: PackagesIndexEntry[] = [];
  let currentStart = from;
  let last: PackagesIndexEntry | undefined = from > 0 ? entries[from - 1] : undefined;
  for (let i = from; i < entries.length; i++) {
    const entry = entries[i]!;
    if (
      last &&
      last.name === entry.name &&
      last.architecture === entry.architecture &&
      compareDebianVersions(last.version, entry.version) === 0
    ) {
      continue;
    }
    if (startsBlock(entry.name, current.length, blockSize)) {
      close(current, currentStart);
      current = [];
      currentStart = i;
    }
    current.push(entry);
    last = entry;
  }
  if (current.length > 0) close(current, currentStart);
  return { blocks, starts };
}

function stanzaText(entry: PackagesIndexEntry): string {
  return entry.stanza.endsWith("\n") ? entry.stanza : `${entry.stanza.replace(/\n*$/, "")}\n`;
}

/** packagesIndexBlocks' texts. */
export function renderPackagesIndexBlocks(entries: readonly PackagesIndexEntry[], blockSize = 32): string[] {
  return packagesIndexBlocks(entries, blockSize).map((block) => block.text());
}
