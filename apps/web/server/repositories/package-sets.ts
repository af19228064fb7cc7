// A project's indexable packages of one format (releases not yanked), kept in memory between
// builds. A build asks for the current set; only the releases named in the change log since the
// set's revision are read again (repositories/changes.ts), so publishing one more package
// into a repository of 10,000 reads one release's rows, not 10,000. Sets live in the builders'
// MemoryBudget: the least recently used project's set goes first.
import type { Kysely } from "kysely";
import type { Database } from "../platform/db/schema.ts";
import { packageIndexChangesSince } from "./changes.ts";
import type { MemoryBudget } from "./memory-budget.ts";

type Db = Kysely<Database>;

/** A stored package row with its release and file, which order the set. */
export interface ReleasedPackage {
  release_id: string;
  release_created_at: string;
  /** The file's id and creation time. */
  id: string;
  file_created_at: string;
}

/** Reads package rows of releases not yanked: every one, or only those of `releaseIds`. */
export type PackageLoader<Row extends ReleasedPackage> = (
  db: Db,
  projectId: string,
  releaseIds?: readonly string[],
) => Promise<Row[]>;

interface ReleaseEntry<Row> {
  id: string;
  createdAt: string;
  rows: Row[];
  /** What its rows weigh, counted once when they are read. */
  bytes: number;
}

interface ProjectSet<Row> {
  revision: number;
  /** Newest release first (created_at, then id, both descending), as builds expect. */
  releases: ReleaseEntry<Row>[];
}

/** Newest first (creation time, then id, both descending): the first of two identical packages wins. */
function newerFirst(aCreatedAt: string, aId: string, bCreatedAt: string, bId: string): number {
  if (aCreatedAt !== bCreatedAt) return aCreatedAt < bCreatedAt ? 1 : -1;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}

const newerReleaseFirst = <Row>(a: ReleaseEntry<Row>, b: ReleaseEntry<Row>) =>
  newerFirst(a.createdAt, a.id, b.createdAt, b.id);
const newerFileFirst = (a: ReleasedPackage, b: ReleasedPackage) =>
  newerFirst(a.file_created_at, a.id, b.file_created_at, b.id);

function groupByRelease<Row extends ReleasedPackage>(
  rows: readonly Row[],
  weigh: (row: Row) => number,
): ReleaseEntry<Row>[] {
  const byId = new Map<string, ReleaseEntry<Row>>();
  for (const row of rows) {
    let entry = byId.get(row.release_id);
    if (!entry) {
      entry = { id: row.release_id, createdAt: row.release_created_at, rows: [], bytes: 64 };
      byId.set(row.release_id, entry);
    }
    entry.rows.push(row);
    entry.bytes += weigh(row);
  }
  const entries = [...byId.values()];
  // Within a release, too, the newest file first: the same package uploaded twice under two
  // file names resolves the same way whichever query read it. (Sorted here, not in SQL, where
  // ordering rows that carry whole fragments costs more than the query.)
  for (const entry of entries) {
    if (entry.rows.length > 1) entry.rows.sort(newerFileFirst);
  }
  return entries;
}

/** PackageSets.update's answer. */
export interface PackageSetUpdate<Row> {
  /** Identifies the set now (the same object while nothing changes). */
  set: object;
  /** The set `removed` and `added` apply to; undefined when the set was read whole. */
  previous?: object;
  removed: Row[];
  added: Row[];
  /** Every row, newest release first (within a release, newest file first). */
  rows(): Row[];
}

/**
 * Set order of two rows: negative when `a` comes first (its release is newer, or the same
 * release and its file newer). Of two rows with the same identity, the first in set order wins.
 */
export function compareSetOrder(a: ReleasedPackage, b: ReleasedPackage): number {
  if (a.release_id !== b.release_id)
    return newerFirst(a.release_created_at, a.release_id, b.release_created_at, b.release_id);
  return newerFileFirst(a, b);
}

/** Upload order of two rows: negative when `a`'s file was stored first (then by id). A total order. */
export function compareUploadOrder(a: ReleasedPackage, b: ReleasedPackage): number {
  return newerFileFirst(b, a);
}

export class PackageSets<Row extends ReleasedPackage> {
  readonly #load: PackageLoader<Row>;
  readonly #budget: MemoryBudget;
  readonly #name: string;
  readonly #weigh: (row: Row) => number;
  /** Full reads and incremental updates so far (tests check a publish reads only what changed). */
  readonly stats = { reloads: 0, updates: 0 };

  constructor(
    load: PackageLoader<Row>,
    options: { budget: MemoryBudget; name: string; weigh: (row: Row) => number },
  ) {
    this.#load = load;
    this.#budget = options.budget;
    this.#name = options.name;
    this.#weigh = options.weigh;
  }

  /** The project's packages now, newest release first. Builds of one project must not overlap. */
  async current(db: Db, projectId: string): Promise<Row[]> {
    return (await this.update(db, projectId)).rows();
  }

  /**
   * The project's set brought up to date, with what changed: when `previous` is the set a caller
   * built from last time, applying `removed` and `added` (row objects) to what it built gives
   * what a build from `rows()` would (a build keeps its grouping between publishes instead of
   * flattening and grouping every row again). `set` is the same object as long as nothing
   * changed; a set read whole has no `previous`.
   */
  async update(db: Db, projectId: string): Promise<PackageSetUpdate<Row>> {
    const key = `packages/${this.#name}/${projectId}`;
    const kept = this.#budget.get<ProjectSet<Row>>(key);
    let set = kept;
    const delta = await packageIndexChangesSince(db, projectId, set?.revision);
    let previous: ProjectSet<Row> | undefined;
    let removed: Row[] = [];
    let added: Row[] = [];
    if (!set || delta.kind === "reload") {
      this.stats.reloads++;
      const releases = groupByRelease(await this.#load(db, projectId), this.#weigh);
      releases.sort(newerReleaseFirst);
      set = { revision: delta.revision, releases };
      this.#keep(key, set);
    } else if (delta.kind === "releases") {
      this.stats.updates++;
      const changed = new Set(delta.releaseIds);
      const fresh = groupByRelease(await this.#load(db, projectId, delta.releaseIds), this.#weigh);
      const releases: ReleaseEntry<Row>[] = [];
      for (const release of set.releases) {
        if (!changed.has(release.id)) releases.push(release);
        else for (const row of release.rows) removed.push(row);
      }
      for (const entry of fresh) {
        releases.splice(insertionPoint(releases, entry), 0, entry);
        for (const row of entry.rows) added.push(row);
      }
      previous = set;
      set = { revision: delta.revision, releases };
      this.#keep(key, set);
    } else {
      previous = set;
      removed = [];
      added = [];
    }
    const current = set;
    return {
      set: current,
      previous,
      removed,
      added,
      rows: () => {
        const rows: Row[] = [];
        for (const release of current.releases) for (const row of release.rows) rows.push(row);
        return rows;
      },
    };
  }

  #keep(key: string, set: ProjectSet<Row>) {
    let bytes = 0;
    for (const release of set.releases) bytes += release.bytes;
    this.#budget.set(key, set, bytes);
  }
}

function insertionPoint<Row>(releases: readonly ReleaseEntry<Row>[], entry: ReleaseEntry<Row>): number {
  let low = 0;
  let high = releases.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (newerReleaseFirst(releases[middle]!, entry) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
