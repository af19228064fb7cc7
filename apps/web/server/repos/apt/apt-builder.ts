// The APT format for the repository publisher: one repository per suite, built from the stored
// stanzas of packages in releases that are not yanked.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { FormatBuilder } from "../publisher.ts";
import { buildSuite, type GzipBlockCache, type SuitePackage } from "./build-index.ts";

/** Compressed index blocks of recent builds, per project and suite; the oldest go first. */
const gzipCaches = new Map<string, Map<string, GzipBlockCache>>();
const MAX_CACHED_SUITES = 256;

function gzipCacheFor(key: string): Map<string, GzipBlockCache> {
  let cache = gzipCaches.get(key);
  if (cache) {
    gzipCaches.delete(key);
  } else {
    cache = new Map();
    if (gzipCaches.size >= MAX_CACHED_SUITES) gzipCaches.delete(gzipCaches.keys().next().value!);
  }
  gzipCaches.set(key, cache);
  return cache;
}

/** Packages stanzas by file id. A file never changes, so neither does its stanza. */
const stanzaCache = new Map<string, string>();
const MAX_CACHED_STANZAS = 200_000;

async function stanzasFor(db: Kysely<Database>, fileIds: string[]): Promise<Map<string, string>> {
  const missing = fileIds.filter((id) => !stanzaCache.has(id));
  if (stanzaCache.size + missing.length > MAX_CACHED_STANZAS) stanzaCache.clear();
  for (let i = 0; i < missing.length; i += 500) {
    const rows = await db
      .selectFrom("deb_package")
      .select(["file_id", "stanza"])
      .where("file_id", "in", missing.slice(i, i + 500))
      .execute();
    for (const row of rows) stanzaCache.set(row.file_id, row.stanza);
  }
  return new Map(fileIds.map((id) => [id, stanzaCache.get(id)!]));
}

export const aptBuilder: FormatBuilder = {
  format: "apt",
  async build({ db, project, keys, date, published }) {
    // Metadata only: stanza text is immutable per file and comes from the cache below.
    const meta = await db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .innerJoin("release", "release.id", "release_file.release_id")
      .select([
        "deb_package.file_id",
        "deb_package.suite",
        "deb_package.component",
        "deb_package.name",
        "deb_package.version",
        "deb_package.architecture",
      ])
      .where("deb_package.project_id", "=", project.id)
      .where("release.yanked", "=", 0)
      .orderBy("release.created_at", "desc")
      .orderBy("release.id", "desc")
      .execute();
    const stanzas = await stanzasFor(
      db,
      meta.map((m) => m.file_id),
    );
    const rows = meta.map((m) => ({ ...m, stanza: stanzas.get(m.file_id)! }));
    const everDeb = await db
      .selectFrom("deb_package")
      .select("suite")
      .distinct()
      .where("project_id", "=", project.id)
      .execute();
    // A suite whose packages were all yanked or deleted is republished empty, not left stale.
    const suites = [...new Set([...rows.map((r) => r.suite), ...published, ...everDeb.map((e) => e.suite)])];
    if (suites.length === 0) return [];
    const { signers } = await keys.active(project);
    const built = [];
    for (const suite of suites) {
      const packages: SuitePackage[] = rows.filter((r) => r.suite === suite);
      const { files, digests, unstored } = await buildSuite({
        origin: "Packyard",
        label: `${project.username}/${project.slug}`,
        suite,
        date,
        packages,
        signers,
        gzipCache: gzipCacheFor(`${project.id}/${suite}`),
      });
      built.push({ name: suite, files, digests, unstored });
    }
    return built;
  },
};

/** A package file in the pool, by its path (yanked releases' packages stay fetchable). */
export async function findPoolFile(db: Kysely<Database>, projectId: string, poolPath: string) {
  return db
    .selectFrom("deb_package")
    .innerJoin("release_file", "release_file.id", "deb_package.file_id")
    .select(["release_file.sha256", "release_file.size"])
    .where("deb_package.project_id", "=", projectId)
    .where("deb_package.pool_path", "=", poolPath)
    .executeTakeFirst();
}
