// A suite's packages grouped as its Packages indexes list them — de-duplicated by identity (the
// first in set order wins), one index per component and architecture (Architecture: all in every
// architecture's index of its component), each in list order — kept between publishes and
// brought up to date with the rows a change removed and added. Publishing one more package into
// 50,000 then touches one identity and a binary search per index it lands in, instead of
// flattening, de-duplicating, grouping and sorting 50,000 rows again (issue 16, decision 042).
//
// List order is upload order (oldest first), not name order (decision 045): apt reads an index
// in any order, and a new upload then lands at the end, so the index's digests resume from the
// midstate before its last block instead of re-hashing everything after the new name.
import { debianVersionKey } from "@packyard/formats/deb/debian-version.ts";

/** What an index lists of a package; `identity` is computed once per row when the caller can. */
export interface IndexedPackage {
  /** The stored file's id, when known: its stanza never changes, so blocks are keyed by it. */
  id?: string;
  /** packageIdentity(), when computed beforehand. */
  identity?: string;
  component: string;
  name: string;
  version: string;
  architecture: string;
  stanza: string;
}

/** Architectures every repository offers, so a client on them sees an (empty) index, not an error. */
export const BASE_ARCHITECTURES = ["amd64", "arm64"];

/**
 * Component, name, version and architecture: what an index lists once. Versions dpkg calls equal
 * ("1.0" and "1.0-0") are one identity: apt could not tell the two entries apart.
 */
export function packageIdentity(p: Omit<IndexedPackage, "stanza" | "identity">): string {
  return `${p.component}\u0000${p.name}\u0000${debianVersionKey(p.version)}\u0000${p.architecture}`;
}

const identityOf = (p: IndexedPackage) => p.identity ?? packageIdentity(p);

/** Position of the first entry not before `entry` in an index (binary search). */
function lowerBound<P>(sorted: readonly P[], entry: P, order: (a: P, b: P) => number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (order(sorted[middle]!, entry) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function bump(counts: Map<string, number>, key: string, by: number) {
  const count = (counts.get(key) ?? 0) + by;
  if (count === 0) counts.delete(key);
  else counts.set(key, count);
}

/** What a build reads of a suite's indexes. */
export interface SuiteIndexView {
  readonly components: readonly string[];
  readonly architectures: readonly string[];
  index(component: string, architecture: string): readonly IndexedPackage[];
  /** Changes when the index's entries change (SuiteIndexes.version). */
  version?(component: string, architecture: string): number;
  /** The lowest position changed since `version` (SuiteIndexes.changedFrom). */
  changedFrom?(component: string, architecture: string, version: number): number;
}

/** How many changes per index changedFrom remembers. */
const CHANGES_KEPT = 64;

export class SuiteIndexes<P extends IndexedPackage = IndexedPackage> implements SuiteIndexView {
  /** Of two packages with one identity, which wins: negative when `a` does. */
  readonly #order: (a: P, b: P) => number;
  /** Where a package is listed: negative when `a` comes first (a total order of the rows). */
  readonly #listOrder: (a: P, b: P) => number;
  /** Every row by identity (an array only when there are several). */
  readonly #candidates = new Map<string, P | P[]>();
  /** The row listed for each identity. */
  readonly #winners = new Map<string, P>();
  /** Listed packages per component, and per architecture other than `all`. */
  readonly #componentCounts = new Map<string, number>();
  readonly #architectureCounts = new Map<string, number>();
  #components: string[] = ["main"];
  #architectures: string[] = [...BASE_ARCHITECTURES, "all"];
  /** `component/architecture` → its entries in index order. */
  #indexes = new Map<string, P[]>();
  /** Bumped when an index's entries change (builds reuse what an unchanged index made). */
  readonly #versions = new Map<string, number>();
  /** Per index, its latest changes: the version each made and the lowest position it touched. */
  readonly #changes = new Map<string, { version: number; at: number }[]>();
  /** Per index, the newest version whose change is no longer in #changes. */
  readonly #forgotten = new Map<string, number>();
  #version = 0;

  constructor(order: (a: P, b: P) => number, listOrder: (a: P, b: P) => number) {
    this.#order = order;
    this.#listOrder = listOrder;
    this.#regroup();
  }

  /**
   * The indexes of `packages` (newest first), where the first of two with one identity wins;
   * listed last to first, as uploaded.
   */
  static from<P extends IndexedPackage>(packages: readonly P[]): SuiteIndexes<P> {
    const position = new Map<P, number>();
    for (const [i, p] of packages.entries()) position.set(p, i);
    const indexes = new SuiteIndexes<P>(
      (a, b) => position.get(a)! - position.get(b)!,
      (a, b) => position.get(b)! - position.get(a)!,
    );
    indexes.load(packages);
    return indexes;
  }

  /**
   * Loads `rows`, in the order `order` gives them (the first of two with one identity wins), into
   * an empty instance: the first build of a suite, one pass and one sort per index.
   */
  load(rows: readonly P[]): void {
    if (this.#candidates.size > 0) throw new Error("SuiteIndexes.load: not empty");
    for (const row of rows) {
      const identity = identityOf(row);
      const rows = this.#candidates.get(identity);
      if (rows === undefined) {
        this.#candidates.set(identity, row);
        this.#winners.set(identity, row);
        bump(this.#componentCounts, row.component, 1);
        if (row.architecture !== "all") bump(this.#architectureCounts, row.architecture, 1);
      } else if (Array.isArray(rows)) rows.push(row);
      else this.#candidates.set(identity, [rows, row]);
    }
    this.#regroup();
  }

  get components(): readonly string[] {
    return this.#components;
  }

  /** The concrete architectures (with the base ones) sorted, then `all`. */
  get architectures(): readonly string[] {
    return this.#architectures;
  }

  /** How many packages are listed (one per identity). */
  get size(): number {
    return this.#winners.size;
  }

  /** An index's entries in index order (do not change them). */
  index(component: string, architecture: string): readonly P[] {
    return this.#indexes.get(`${component}/${architecture}`) ?? [];
  }

  /** Changes when the index's entries change, never back to an earlier value. */
  version(component: string, architecture: string): number {
    return this.#versions.get(`${component}/${architecture}`) ?? 0;
  }

  /**
   * The lowest position of the index that changed since it was at `version` (an earlier
   * version()): entries before it are the same, in the same places. Infinity when nothing
   * changed, 0 when the changes since are no longer known.
   */
  changedFrom(component: string, architecture: string, version: number): number {
    const key = `${component}/${architecture}`;
    if ((this.#versions.get(key) ?? 0) === version) return Number.POSITIVE_INFINITY;
    if (version < (this.#forgotten.get(key) ?? 0)) return 0;
    let lowest = Number.POSITIVE_INFINITY;
    let seen = false;
    for (const change of this.#changes.get(key) ?? []) {
      if (change.version <= version) continue;
      seen = true;
      lowest = Math.min(lowest, change.at);
    }
    return seen ? lowest : 0;
  }

  /** Records a change of an index at position `at` (0 for all of it). */
  #changed(key: string, at: number) {
    const version = ++this.#version;
    this.#versions.set(key, version);
    let changes = this.#changes.get(key);
    if (!changes) {
      changes = [];
      this.#changes.set(key, changes);
    }
    changes.push({ version, at });
    if (changes.length > CHANGES_KEPT) this.#forgotten.set(key, changes.shift()!.version);
  }

  /** Roughly the memory it holds beyond the rows themselves. */
  bytes(): number {
    let entries = 0;
    for (const index of this.#indexes.values()) entries += index.length;
    return 256 + this.#candidates.size * 120 + entries * 8;
  }

  /**
   * Applies a change: `removed` are rows no longer listed (the same objects once added),
   * `added` new rows. Work is proportional to the rows given, plus a binary search per index an
   * entry lands in; a change of the components or architectures offered regroups everything.
   */
  apply(removed: readonly P[], added: readonly P[]): void {
    if (removed.length === 0 && added.length === 0) return;
    /** Identity → its winner before this change. */
    const touched = new Map<string, P | undefined>();
    const touch = (identity: string) => {
      if (!touched.has(identity)) touched.set(identity, this.#winners.get(identity));
    };
    for (const row of removed) {
      const identity = identityOf(row);
      touch(identity);
      const rows = this.#candidates.get(identity);
      if (rows === row) this.#candidates.delete(identity);
      else if (Array.isArray(rows)) {
        const at = rows.indexOf(row);
        if (at >= 0) rows.splice(at, 1);
        if (rows.length === 1) this.#candidates.set(identity, rows[0]!);
      }
    }
    for (const row of added) {
      const identity = identityOf(row);
      touch(identity);
      const rows = this.#candidates.get(identity);
      if (rows === undefined) this.#candidates.set(identity, row);
      else if (Array.isArray(rows)) rows.push(row);
      else this.#candidates.set(identity, [rows, row]);
    }
    const out: P[] = [];
    const into: P[] = [];
    for (const [identity, before] of touched) {
      const rows = this.#candidates.get(identity);
      let after: P | undefined;
      if (Array.isArray(rows)) {
        after = rows[0];
        for (const row of rows) if (this.#order(row, after!) < 0) after = row;
      } else after = rows;
      if (after === before) continue;
      if (before) {
        out.push(before);
        bump(this.#componentCounts, before.component, -1);
        if (before.architecture !== "all") bump(this.#architectureCounts, before.architecture, -1);
      }
      if (after) {
        this.#winners.set(identity, after);
        into.push(after);
        bump(this.#componentCounts, after.component, 1);
        if (after.architecture !== "all") bump(this.#architectureCounts, after.architecture, 1);
      } else this.#winners.delete(identity);
    }
    if (out.length === 0 && into.length === 0) return;
    if (this.#layoutChanged() || out.length + into.length > this.#winners.size / 4) {
      this.#regroup();
      return;
    }
    for (const row of out) {
      for (const key of this.#indexKeys(row)) {
        const index = this.#indexes.get(key)!;
        let at = lowerBound(index, row, this.#listOrder);
        while (at < index.length && index[at] !== row) at++;
        if (at < index.length) index.splice(at, 1);
        this.#changed(key, at);
      }
    }
    for (const row of into) {
      for (const key of this.#indexKeys(row)) {
        const index = this.#indexes.get(key)!;
        const at = lowerBound(index, row, this.#listOrder);
        index.splice(at, 0, row);
        this.#changed(key, at);
      }
    }
  }

  #indexKeys(row: P): string[] {
    if (row.architecture !== "all") return [`${row.component}/${row.architecture}`];
    return this.#architectures.map((architecture) => `${row.component}/${architecture}`);
  }

  #layout(): { components: string[]; architectures: string[] } {
    const components = [...this.#componentCounts.keys()].sort();
    if (components.length === 0) components.push("main");
    const concrete = [...new Set([...BASE_ARCHITECTURES, ...this.#architectureCounts.keys()])].sort();
    return { components, architectures: [...concrete, "all"] };
  }

  #layoutChanged(): boolean {
    const { components, architectures } = this.#layout();
    return (
      components.join("\u0000") !== this.#components.join("\u0000") ||
      architectures.join("\u0000") !== this.#architectures.join("\u0000")
    );
  }

  /** Every index again from the winners: one sort per index. */
  #regroup() {
    const { components, architectures } = this.#layout();
    this.#components = components;
    this.#architectures = architectures;
    const indexes = new Map<string, P[]>();
    // Per component, per architecture: no key made per row.
    const byComponent = new Map<string, Map<string, P[]>>();
    for (const component of components) {
      const byArchitecture = new Map<string, P[]>();
      for (const architecture of architectures) {
        const index: P[] = [];
        indexes.set(`${component}/${architecture}`, index);
        byArchitecture.set(architecture, index);
      }
      byComponent.set(component, byArchitecture);
    }
    for (const row of this.#winners.values()) {
      const byArchitecture = byComponent.get(row.component)!;
      if (row.architecture !== "all") byArchitecture.get(row.architecture)!.push(row);
      else for (const index of byArchitecture.values()) index.push(row);
    }
    for (const [key, index] of indexes) {
      index.sort(this.#listOrder);
      const before = this.#indexes.get(key);
      if (!before || before.length !== index.length || index.some((p, i) => before[i] !== p))
        this.#changed(key, 0);
    }
    this.#indexes = indexes;
  }
}
