// A project's indexable packages of one format (releases not yanked), kept in memory between
// builds. A build asks for the current set; only the releases named in the change log since the
// set's revision are read again (domain/package-index-changes.ts), so publishing one more package
// into a repository of 10,000 reads one release's rows, not 10,000. Sets are bounded by rows in
// all: the least recently used project's set goes first.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { packageIndexChangesSince } from "../domain/package-index-changes.ts";

type Db = Kysely<Database>;

/** A stored package row with its release, which orders the set. */
export interface ReleasedPackage {
  release_id: string;
  release_created_at: string;
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
}

interface ProjectSet<Row> {
  revision: number;
  /** Newest release first (created_at, then id, both descending), as builds expect. */
  releases: ReleaseEntry<Row>[];
  rowCount: number;
}

/** Newest first: the order in which the first of two identical packages wins. */
function newerFirst(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function groupByRelease<Row extends ReleasedPackage>(rows: readonly Row[]): ReleaseEntry<Row>[] {
  const byId = new Map<string, ReleaseEntry<Row>>();
  for (const row of rows) {
    let entry = byId.get(row.release_id);
    if (!entry) {
      entry = { id: row.release_id, createdAt: row.release_created_at, rows: [] };
      byId.set(row.release_id, entry);
    }
    entry.rows.push(row);
  }
  return [...byId.values()];
}

export class PackageSets<Row extends ReleasedPackage> {
  readonly #load: PackageLoader<Row>;
  readonly #maxRows: number;
  readonly #sets = new Map<string, ProjectSet<Row>>();
  #rows = 0;
  /** Full reads and incremental updates so far (tests check a publish reads only what changed). */
  readonly stats = { reloads: 0, updates: 0 };

  constructor(load: PackageLoader<Row>, options: { maxRows: number }) {
    this.#load = load;
    this.#maxRows = options.maxRows;
  }

  /** The project's packages now, newest release first. Builds of one project must not overlap. */
  async current(db: Db, projectId: string): Promise<Row[]> {
    let set = this.#sets.get(projectId);
    const delta = await packageIndexChangesSince(db, projectId, set?.revision);
    if (!set || delta.kind === "reload") {
      this.stats.reloads++;
      const releases = groupByRelease(await this.#load(db, projectId));
      releases.sort(newerFirst);
      this.#drop(projectId);
      set = { revision: delta.revision, releases, rowCount: 0 };
      this.#count(set);
    } else if (delta.kind === "releases") {
      this.stats.updates++;
      const changed = new Set(delta.releaseIds);
      const fresh = groupByRelease(await this.#load(db, projectId, delta.releaseIds));
      const releases = set.releases.filter((r) => !changed.has(r.id));
      for (const entry of fresh) releases.splice(insertionPoint(releases, entry), 0, entry);
      this.#drop(projectId);
      set = { revision: delta.revision, releases, rowCount: 0 };
      this.#count(set);
    } else {
      // Most recently used last.
      this.#sets.delete(projectId);
    }
    this.#sets.set(projectId, set);
    this.#evict(projectId);
    const rows: Row[] = [];
    for (const release of set.releases) for (const row of release.rows) rows.push(row);
    return rows;
  }

  #count(set: ProjectSet<Row>) {
    set.rowCount = set.releases.reduce((sum, r) => sum + r.rows.length, 0);
    this.#rows += set.rowCount;
  }

  #drop(projectId: string) {
    const set = this.#sets.get(projectId);
    if (!set) return;
    this.#rows -= set.rowCount;
    this.#sets.delete(projectId);
  }

  /** Least recently used sets go until the rows fit; the one just used always stays. */
  #evict(keep: string) {
    for (const projectId of this.#sets.keys()) {
      if (this.#rows <= this.#maxRows) return;
      if (projectId !== keep) this.#drop(projectId);
    }
  }
}

function insertionPoint<Row>(releases: readonly ReleaseEntry<Row>[], entry: ReleaseEntry<Row>): number {
  let low = 0;
  let high = releases.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (newerFirst(releases[middle]!, entry) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
