// The order a YUM group lists its packages in, kept between builds: a publish that adds one
// package to 50,000 merges it into the previous build's order instead of de-duplicating and
// sorting all 50,000 again (issue 16: ~30 ms of a (b) at 50,000).
//
// What a build lists: of the packages with the same identity (group, name, epoch, version,
// release, arch), the first in the package set's order — newest release first, then newest
// file (package-sets.ts) — and those in `order` (name, then arch), ties in the set's order. That
// is one total order, compareRows: a full sort and a merge into the previous order give the
// same list.
import type { ReleasedPackage } from "../../repositories/package-sets.ts";

export interface OrderedRow extends ReleasedPackage {
  /** Group, name, epoch, version, release and arch: what makes two packages the same. */
  identity: string;
  /** Name, then arch. */
  order: string;
}

/** A build's rows in compareRows order (duplicates included), and the same rows as a set. */
export interface GroupOrder<T extends OrderedRow> {
  sorted: T[];
  members: Set<T>;
}

/** Newest first (creation time, then id, both descending), as the package set orders. */
function newerFirst(aCreatedAt: string, aId: string, bCreatedAt: string, bId: string): number {
  if (aCreatedAt !== bCreatedAt) return aCreatedAt < bCreatedAt ? 1 : -1;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}

/** `order`, then the package set's order (newest release, then newest file, first). */
export function compareRows(a: OrderedRow, b: OrderedRow): number {
  if (a.order !== b.order) return a.order < b.order ? -1 : 1;
  return (
    newerFirst(a.release_created_at, a.release_id, b.release_created_at, b.release_id) ||
    newerFirst(a.file_created_at, a.id, b.file_created_at, b.id)
  );
}

/**
 * The packages a group lists, in order, from its rows (the same row objects from build to
 * build, as the package set keeps them) and the previous build's order. Rows added since are
 * sorted and merged in; when most rows are new (or there is no previous order), all are sorted.
 */
export function orderGroup<T extends OrderedRow>(
  rows: readonly T[],
  previous?: GroupOrder<T>,
): { packages: T[]; order: GroupOrder<T> } {
  const members = new Set(rows);
  const added = previous ? rows.filter((row) => !previous.members.has(row)) : rows;
  let sorted: T[];
  if (!previous || added.length * 4 > rows.length) {
    sorted = [...rows].sort(compareRows);
  } else {
    const fresh = [...added].sort(compareRows);
    sorted = [];
    let next = 0;
    for (const row of previous.sorted) {
      if (!members.has(row)) continue;
      while (next < fresh.length && compareRows(fresh[next]!, row) < 0) sorted.push(fresh[next++]!);
      sorted.push(row);
    }
    while (next < fresh.length) sorted.push(fresh[next++]!);
  }
  // Rows of one identity share `order`, so duplicates are within a run of equal `order`: the
  // first of each identity there is the newest.
  const packages: T[] = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start + 1;
    while (end < sorted.length && sorted[end]!.order === sorted[start]!.order) end++;
    if (end === start + 1) packages.push(sorted[start]!);
    else {
      const seen = new Set<string>();
      for (let i = start; i < end; i++) {
        const row = sorted[i]!;
        if (seen.has(row.identity)) continue;
        seen.add(row.identity);
        packages.push(row);
      }
    }
    start = end;
  }
  return { packages, order: { sorted, members } };
}
