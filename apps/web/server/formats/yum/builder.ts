// The YUM format for the repository publisher: one repository per group ("" is the root),
// joined from the fragments stored at upload — never by re-reading packages — into
// checksum-named primary, filelists and other files, a repomd.xml and its signature.
import { gzipMemberCacheBytes, nameHash } from "@packyard/formats/compress/gzip-members.ts";
import { signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import { buildRepodataFiles, type RepodataMemberCaches } from "@packyard/formats/yum/repodata-blocks.ts";
import { renderRepomd } from "@packyard/formats/yum/repomd-xml.ts";
import type { Kysely } from "kysely";
import type { Database, YumPackageTable } from "../../platform/db/schema.ts";
import { type MemoryBudget, stringBytes } from "../../repositories/memory-budget.ts";
import { type PackageLoader, PackageSets, type ReleasedPackage } from "../../repositories/package-sets.ts";
import type { FormatBuilder } from "../../repositories/publisher.ts";
import { type GroupOrder, orderGroup } from "./group-order.ts";

interface RpmRow
  extends ReleasedPackage,
    Pick<YumPackageTable, "repo_group" | "name" | "epoch" | "version" | "release" | "arch"> {
  /**
   * The file's id and its bytes' sha256: the fragments of those bytes never change (a file
   * re-signed after a rotation, decision 030, gets new bytes, new fragments and a new id here).
   */
  id: string;
  /** Group, name, epoch, version, release and arch: what makes two packages the same. */
  identity: string;
  /** Name, then arch: the order packages are listed in. */
  order: string;
  /** nameHash(name): where blocks start (computed once per row, not on every build). */
  nameHash: number;
  primary: string;
  filelists: string;
  other: string;
}

/** What a group's build keeps for the next: its compressed members and blocks, and its order. */
interface GroupCache {
  repodata: RepodataMemberCaches;
  order: GroupOrder<RpmRow>;
}

const loadRpms: PackageLoader<RpmRow> = async (db, projectId, releaseIds) => {
  let query = db
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "release.id as release_id",
      "release.created_at as release_created_at",
      "yum_package.file_id as id",
      "release_file.created_at as file_created_at",
      "release_file.sha256",
      "yum_package.repo_group",
      "yum_package.name",
      "yum_package.epoch",
      "yum_package.version",
      "yum_package.release",
      "yum_package.arch",
      "yum_package.primary_xml as primary",
      "yum_package.filelists_xml as filelists",
      "yum_package.other_xml as other",
    ])
    .where("release.yanked", "=", 0);
  // Filtering on the release's project lets the database start from the few releases named
  // (12 ms → 0.2 ms at 10,000 packages in SQLite); on the package's, from every package.
  query = releaseIds
    ? query.where("release.project_id", "=", projectId).where("release.id", "in", releaseIds)
    : query.where("yum_package.project_id", "=", projectId);
  // Computed once per row, not on every build: rows stay in memory between builds.
  return (await query.execute()).map(({ sha256, ...row }) => ({
    ...row,
    // File ids have one length: the order by id is the order by file id.
    id: `${row.id}:${sha256}`,
    identity: `${row.repo_group}\u0000${row.name}\u0000${row.epoch}\u0000${row.version}\u0000${row.release}\u0000${row.arch}`,
    order: `${row.name}\u0000${row.arch}`,
    nameHash: nameHash(row.name),
  }));
};

/**
 * The YUM format for the repository publisher. Like APT's, it keeps within `budget` each
 * project's package rows (brought up to date from the change log) and each group's compressed
 * blocks.
 */
export function createYumBuilder(budget: MemoryBudget): FormatBuilder {
  const packageSets = new PackageSets(loadRpms, {
    budget,
    name: "yum",
    weigh: (row) =>
      stringBytes([row.primary, row.filelists, row.other, row.identity, row.order, row.id, row.release_id]) +
      240,
  });
  return {
    format: "yum",
    async build({ db, project, signers, date, published }) {
      const rows = await packageSets.current(db, project.id);
      const byGroup = new Map<string, RpmRow[]>();
      // A group whose packages were all yanked or deleted is republished empty, not left stale.
      for (const group of published) byGroup.set(group, []);
      for (const row of rows) {
        const list = byGroup.get(row.repo_group);
        if (list) list.push(row);
        else byGroup.set(row.repo_group, [row]);
      }
      if (byGroup.size === 0) return [];
      const timestamp = Math.floor(date.getTime() / 1000);
      const encoder = new TextEncoder();
      const built = [];
      for (const [group, groupRows] of byGroup) {
        const cacheKey = `blocks/yum/${project.id}/${group}`;
        const previous = budget.get<GroupCache>(cacheKey);
        // The same name-epoch-version-release.arch twice: the newest release's build wins. A
        // stable order: an unchanged repository republishes byte-identical files.
        const { packages, order } = orderGroup(groupRows, previous?.order);
        const next: RepodataMemberCaches = {};
        const data = buildRepodataFiles(packages, timestamp, { previous: previous?.repodata, next });
        // The members, the blocks' and the order's lists of rows (the rows themselves are the set's).
        let bytes = (next.blocks?.size ?? 0) * 96 + packages.length * 8 + order.sorted.length * 40;
        for (const type of ["primary", "filelists", "other"] as const) {
          const cache = next[type];
          if (cache) bytes += gzipMemberCacheBytes(cache);
        }
        const kept: GroupCache = { repodata: next, order };
        budget.set(cacheKey, kept, bytes);
        const repomd = renderRepomd({ revision: timestamp, entries: data.map((d) => d.entry) });
        const files = new Map<string, Uint8Array>();
        for (const d of data) files.set(d.path, d.bytes);
        const repomdBytes = encoder.encode(repomd);
        files.set("repodata/repomd.xml", repomdBytes);
        files.set(
          "repodata/repomd.xml.asc",
          encoder.encode(await signDetachedArmored(repomdBytes, signers, { date })),
        );
        built.push({ name: group, files });
      }
      return built;
    },
  };
}

/** A package file of a YUM group, by its location (yanked releases' packages stay fetchable). */
export async function findYumPackageFile(
  db: Kysely<Database>,
  projectId: string,
  group: string,
  location: string,
) {
  return db
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "release_file.sha256",
      "release_file.size",
      // What its download statistics name it by (decision 033).
      "release_file.id",
      "release_file.filename",
      "release.version",
      // What an entitlement token's version range compares (rpm's order).
      "yum_package.version as package_version",
    ])
    .where("yum_package.project_id", "=", projectId)
    .where("yum_package.repo_group", "=", group)
    .where("yum_package.location", "=", location)
    .executeTakeFirst();
}
