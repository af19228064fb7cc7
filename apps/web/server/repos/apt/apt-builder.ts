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

export const aptBuilder: FormatBuilder = {
  format: "apt",
  async build({ db, project, keys, date, published }) {
    const rows = await db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .innerJoin("release", "release.id", "release_file.release_id")
      .select([
        "deb_package.suite",
        "deb_package.component",
        "deb_package.name",
        "deb_package.version",
        "deb_package.architecture",
        "deb_package.stanza",
      ])
      .where("deb_package.project_id", "=", project.id)
      .where("release.yanked", "=", 0)
      .orderBy("release.created_at", "desc")
      .orderBy("release.id", "desc")
      .execute();
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
      const { files, digests } = await buildSuite({
        origin: "Packyard",
        label: `${project.username}/${project.slug}`,
        suite,
        date,
        packages,
        signers,
        gzipCache: gzipCacheFor(`${project.id}/${suite}`),
      });
      built.push({ name: suite, files, digests });
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
