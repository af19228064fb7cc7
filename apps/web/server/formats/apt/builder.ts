// The APT format for the repository publisher: one repository per suite, built from the stored
// stanzas of packages in releases that are not yanked — never by re-reading packages.

import { gzipMemberCacheBytes } from "@packyard/formats/compress/gzip-members.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";
import { DAY_MS, DEFAULT_SUITE } from "../../projects/repository-settings.ts";
import { DigestThread } from "../../repositories/digest-thread.ts";
import type { MemoryBudget } from "../../repositories/memory-budget.ts";
import {
  compareSetOrder,
  compareUploadOrder,
  type PackageLoader,
  PackageSets,
  type ReleasedPackage,
} from "../../repositories/package-sets.ts";
import type { FormatBuilder } from "../../repositories/publisher.ts";
import {
  buildSuite,
  type GzipBlockCache,
  type IndexDigests,
  indexDigestsBytes,
  type SuitePackage,
} from "./build-index.ts";
import { restoreServedBlocks } from "./restore-blocks.ts";
import { packageIdentity, SuiteIndexes } from "./suite-indexes.ts";
import {
  detectXzEncoderAsync,
  eventualXzEncoder,
  STORED_UP_TO,
  type XzBlockCache,
  type XzEncoder,
  xzBlockCacheBytes,
} from "./xz-blocks.ts";

export interface DebRow extends ReleasedPackage, SuitePackage {
  id: string;
  identity: string;
  suite: string;
}

/** The project's listed .deb packages, all or those of some releases (exported for tests). */
export const loadDebs: PackageLoader<DebRow> = async (db, projectId, releaseIds) => {
  let query = db
    .selectFrom("deb_package")
    .innerJoin("release_file", "release_file.id", "deb_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "release.id as release_id",
      "release.created_at as release_created_at",
      "deb_package.file_id as id",
      "release_file.created_at as file_created_at",
      "deb_package.suite",
      "deb_package.component",
      "deb_package.name",
      "deb_package.version",
      "deb_package.architecture",
      "deb_package.stanza",
    ])
    .where("release.yanked", "=", 0);
  // Filtering on the release's project lets the database start from the few releases named
  // (12 ms → 0.2 ms at 10,000 packages in SQLite); on the package's, from every package.
  query = releaseIds
    ? query.where("release.project_id", "=", projectId).where("release.id", "in", releaseIds)
    : query.where("deb_package.project_id", "=", projectId);
  // Copied into objects of one shape, with the identity computed once per row (rows stay in
  // memory between builds). node:sqlite answers each row as an object in dictionary mode (a null
  // prototype, its properties in a hash table): every later read of a row (grouping, sorting,
  // the binary searches of each publish) was a hash lookup. At 50,000 rows the copy costs ~8 ms
  // and a sort of them by upload order went from 24 to 9 ms. Fields named one by one: a spread
  // of the row (YUM's loader) took twice as long here and left 25 % more heap.
  return (await query.execute()).map((row) => ({
    release_id: row.release_id,
    release_created_at: row.release_created_at,
    id: row.id,
    file_created_at: row.file_created_at,
    suite: row.suite,
    component: row.component,
    name: row.name,
    version: row.version,
    architecture: row.architecture,
    stanza: row.stanza,
    identity: packageIdentity(row),
  }));
};

/** A suite's indexes: the newest copy of a package wins, listed in upload order (decision 045). */
const newSuiteIndexes = () => new SuiteIndexes<DebRow>(compareSetOrder, compareUploadOrder);

/**
 * The APT format for the repository publisher. Between builds it keeps, within `budget`, each
 * project's package rows (brought up to date from the change log) and each suite's compressed
 * index blocks; builds of one project never overlap (the publisher serializes them).
 */
export function createAptBuilder(
  budget: MemoryBudget,
  options: {
    /** Packages.xz's encoder; default: the system's xz, or no Packages.xz without it. */
    xz?: () => XzEncoder | null;
    /** The second thread for hashing; null: hash on the main thread only. */
    thread?: DigestThread | null;
    /**
     * Changed text per index up to which Packages.xz stores it and compresses it after the
     * publish (decision 049); default STORED_UP_TO, 0: compressed during the build.
     */
    xzStoredUpTo?: number;
  } = {},
): FormatBuilder & { settled(): Promise<void> } {
  const given = options.xz;
  /** Packages.xz blocks the builds stored (decision 049): to compress, and being compressed. */
  const queued: (() => Promise<void>)[] = [];
  const compressing = new Set<Promise<void>>();
  const startCompressing = () => {
    for (const compress of queued.splice(0)) {
      const promise = compress();
      compressing.add(promise);
      void promise.finally(() => compressing.delete(promise));
    }
  };
  // Looked for now, not by the first publish: starting the xz helper forks this process, cheap
  // while it is small (xz-helper.ts).
  if (!given) setImmediate(() => void detectXzEncoderAsync());
  const xzEncoder = () => (given ? given() : eventualXzEncoder());
  // SHA512 of the uncompressed indexes, computed beside the main thread's work.
  const thread = options.thread === null ? undefined : (options.thread ?? new DigestThread());
  const packageSets = new PackageSets(loadDebs, {
    budget,
    name: "apt",
    // stringBytes' estimate (length + 16 per string), without an array per row.
    weigh: (row) =>
      row.stanza.length + row.identity.length + row.id.length + row.release_id.length + 64 + 160,
  });
  /**
   * The project's suites, each grouped into its indexes, kept between builds (within the budget)
   * and brought up to date with the rows the change log's releases removed and added.
   */
  async function grouped(
    db: Kysely<Database>,
    projectId: string,
  ): Promise<Map<string, SuiteIndexes<DebRow>>> {
    const update = await packageSets.update(db, projectId);
    const key = `suites/apt/${projectId}`;
    let kept = budget.get<{ set: object; suites: Map<string, SuiteIndexes<DebRow>> }>(key);
    if (kept?.set === update.set) return kept.suites;
    const suite = (suites: Map<string, SuiteIndexes<DebRow>>, name: string) => {
      let indexes = suites.get(name);
      if (!indexes) {
        indexes = newSuiteIndexes();
        suites.set(name, indexes);
      }
      return indexes;
    };
    if (kept && update.previous === kept.set) {
      const changes = new Map<string, { removed: DebRow[]; added: DebRow[] }>();
      const of = (row: DebRow) => {
        let change = changes.get(row.suite);
        if (!change) {
          change = { removed: [], added: [] };
          changes.set(row.suite, change);
        }
        return change;
      };
      for (const row of update.removed) of(row).removed.push(row);
      for (const row of update.added) of(row).added.push(row);
      for (const [name, { removed, added }] of changes) suite(kept.suites, name).apply(removed, added);
      kept = { set: update.set, suites: kept.suites };
    } else {
      const bySuite = new Map<string, DebRow[]>();
      for (const row of update.rows()) {
        const list = bySuite.get(row.suite);
        if (list) list.push(row);
        else bySuite.set(row.suite, [row]);
      }
      const suites = new Map<string, SuiteIndexes<DebRow>>();
      for (const [name, rows] of bySuite) suite(suites, name).load(rows);
      kept = { set: update.set, suites };
    }
    let bytes = 0;
    for (const indexes of kept.suites.values()) bytes += indexes.bytes();
    budget.set(key, kept, bytes);
    return kept.suites;
  }

  return {
    format: "apt",
    afterPublish: startCompressing,
    /** Resolves once the blocks the builds so far stored are compressed (tests wait for it). */
    async settled() {
      startCompressing();
      while (compressing.size > 0) await Promise.all(compressing);
    },
    async build({ db, store, project, signers, date, published, storeEarly }) {
      const suites = await grouped(db, project.id);
      const bySuite = new Map<string, SuiteIndexes<DebRow>>();
      // A suite whose packages were all yanked or deleted is republished empty, not left stale.
      for (const suite of published) bySuite.set(suite, suites.get(suite) ?? newSuiteIndexes());
      for (const [suite, indexes] of suites) if (indexes.size > 0) bySuite.set(suite, indexes);
      if (bySuite.size === 0) return [];
      const built = [];
      const { apt } = project;
      for (const [suite, indexes] of bySuite) {
        const cacheKey = `blocks/apt/${project.id}/${suite}`;
        const kept = budget.get<Map<string, GzipBlockCache>>(cacheKey);
        const gzipCache = kept ?? new Map();
        const xzCacheKey = `blocks/apt-xz/${project.id}/${suite}`;
        const xzCache = budget.get<Map<string, XzBlockCache>>(xzCacheKey) ?? new Map();
        const digestsKey = `digests/apt/${project.id}/${suite}`;
        const midstates = budget.get<Map<string, IndexDigests>>(digestsKey) ?? new Map();
        // A fresh process (or a suite the budget dropped): the served files' blocks, not a
        // compression of every block again.
        const restored =
          kept || !store ? undefined : await restoreServedBlocks(db, store, project.id, suite, console.warn);
        const { files, digests, listed, compressLater } = await buildSuite({
          // The project's settings (decision 027); its default Label is fixed once the owner's
          // username changed: apt refuses a changed Label (decision 014).
          origin: apt.origin,
          label: apt.label,
          suite,
          codename: suite === DEFAULT_SUITE ? (apt.codename ?? undefined) : undefined,
          date,
          validUntil:
            apt.validUntilDays === null ? undefined : new Date(date.getTime() + apt.validUntilDays * DAY_MS),
          indexes,
          signers,
          gzipCache,
          xz: xzEncoder(),
          xzCache,
          xzStoredUpTo: options.xzStoredUpTo ?? STORED_UP_TO,
          digests: midstates,
          restored,
          thread,
          storeEarly: storeEarly && ((path, bytes, digests) => storeEarly(suite, path, bytes, digests)),
        });
        queued.push(...compressLater);
        let bytes = 0;
        for (const cache of gzipCache.values()) bytes += gzipMemberCacheBytes(cache);
        budget.set(cacheKey, gzipCache, bytes);
        let xzBytes = 0;
        for (const cache of xzCache.values()) xzBytes += xzBlockCacheBytes(cache);
        if (xzCache.size > 0) budget.set(xzCacheKey, xzCache, xzBytes);
        let digestBytes = 0;
        for (const kept of midstates.values()) digestBytes += indexDigestsBytes(kept);
        budget.set(digestsKey, midstates, digestBytes);
        built.push({ name: suite, files, digests, listed });
      }
      return built;
    },
  };
}

/** A package file in the pool, by its path (yanked releases' packages stay fetchable). */
export async function findPoolFile(db: Kysely<Database>, projectId: string, poolPath: string) {
  return db
    .selectFrom("deb_package")
    .innerJoin("release_file", "release_file.id", "deb_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "release_file.sha256",
      "release_file.size",
      // What its download statistics name it by (decision 033).
      "release_file.id",
      "release_file.filename",
      "release.version",
      "deb_package.suite",
      // What an entitlement token's version range compares (dpkg's order).
      "deb_package.version as package_version",
    ])
    .where("deb_package.project_id", "=", projectId)
    .where("deb_package.pool_path", "=", poolPath)
    .executeTakeFirst();
}
