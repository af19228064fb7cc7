// The npm registry's rows (migration 0039): a package's versions (each the file of a Packyard
// release, its row gone with the file: a release deleted by hand or by retention takes the
// version with it), its dist-tags, and the versions once unpublished, which never come back.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** A version as the packument and the tarball route need it, without its manifest. */
export interface NpmVersionSummary {
  fileId: string;
  name: string;
  version: string;
  integrity: string;
  shasum: string;
  deprecated: string | null;
  provenance: string | null;
  publishedBy: string | null;
  createdAt: string;
  /** The Packyard release holding it (its version is the npm version) and the file's name. */
  releaseVersion: string;
  /** The release was yanked (and why): npm shows the version as deprecated (packument.ts). */
  yanked: boolean;
  yankedReason: string | null;
  filename: string;
  size: number;
}

export interface NpmVersionRow extends NpmVersionSummary {
  /** JSON of the version's manifest (package.json and what npm adds). */
  manifest: string;
}

function versionQuery(db: Db, projectId: string) {
  return db
    .selectFrom("npm_version")
    .innerJoin("release_file", "release_file.id", "npm_version.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .where("npm_version.project_id", "=", projectId)
    .select([
      "npm_version.file_id as fileId",
      "npm_version.name as name",
      "npm_version.version as version",
      "npm_version.integrity as integrity",
      "npm_version.shasum as shasum",
      "npm_version.deprecated as deprecated",
      "npm_version.provenance as provenance",
      "npm_version.published_by as publishedBy",
      "npm_version.created_at as createdAt",
      "release.version as releaseVersion",
      "release.yanked as yanked",
      "release.yanked_reason as yankedReason",
      "release_file.filename as filename",
      "release_file.size as size",
    ]);
}

const withSize = <T extends { size: unknown; yanked: unknown }>(row: T) => ({
  ...row,
  size: Number(row.size),
  yanked: Number(row.yanked) === 1,
});

/** Every version of a package, with its manifest, oldest first. */
export async function packageVersions(db: Db, projectId: string, name: string): Promise<NpmVersionRow[]> {
  const rows = await versionQuery(db, projectId)
    .select("npm_version.manifest as manifest")
    .where("npm_version.name", "=", name)
    .orderBy("npm_version.created_at")
    .orderBy("npm_version.version")
    .execute();
  return rows.map(withSize);
}

/** Every version of a package, without manifests (the rules of an unpublish, a dist-tag). */
export async function packageVersionSummaries(
  db: Db,
  projectId: string,
  name: string,
): Promise<NpmVersionSummary[]> {
  const rows = await versionQuery(db, projectId).where("npm_version.name", "=", name).execute();
  return rows.map(withSize);
}

export async function findVersion(
  db: Db,
  projectId: string,
  name: string,
  version: string,
): Promise<NpmVersionSummary | undefined> {
  const row = await versionQuery(db, projectId)
    .where("npm_version.name", "=", name)
    .where("npm_version.version", "=", version)
    .executeTakeFirst();
  return row && withSize(row);
}

/** What a package's document depends on besides its immutable versions: its packument's revision. */
export async function packageRevisionRows(db: Db, projectId: string, name: string) {
  const rows = await db
    .selectFrom("npm_version")
    .innerJoin("release_file", "release_file.id", "npm_version.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .where("npm_version.project_id", "=", projectId)
    .where("npm_version.name", "=", name)
    .select([
      "npm_version.file_id as fileId",
      "npm_version.version as version",
      "npm_version.created_at as createdAt",
      "npm_version.deprecated as deprecated",
      "release.version as releaseVersion",
      "release.yanked as yanked",
      "release.yanked_reason as yankedReason",
    ])
    .execute();
  return rows.map((row) => ({ ...row, yanked: Number(row.yanked) === 1 }));
}

/** The manifests of chosen versions (a search's hits), by file id. */
export async function manifestsOf(db: Db, fileIds: string[]): Promise<Map<string, string>> {
  if (fileIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("npm_version")
    .select(["file_id", "manifest"])
    .where("file_id", "in", fileIds)
    .execute();
  return new Map(rows.map((row) => [row.file_id, row.manifest]));
}

/** Every version in the project, without manifests (search picks each package's latest). */
export async function projectVersionSummaries(db: Db, projectId: string): Promise<NpmVersionSummary[]> {
  const rows = await versionQuery(db, projectId).execute();
  return rows.map(withSize);
}

/** The package's dist-tags as stored (some may name versions gone since). */
export async function distTagsOf(db: Db, projectId: string, name: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom("npm_dist_tag")
    .select(["tag", "version"])
    .where("project_id", "=", projectId)
    .where("name", "=", name)
    .execute();
  return new Map(rows.map((row) => [row.tag, row.version]));
}

/** Every dist-tag in the project, by package name. */
export async function projectDistTags(db: Db, projectId: string): Promise<Map<string, Map<string, string>>> {
  const rows = await db
    .selectFrom("npm_dist_tag")
    .select(["name", "tag", "version"])
    .where("project_id", "=", projectId)
    .execute();
  const byName = new Map<string, Map<string, string>>();
  for (const row of rows) {
    const tags = byName.get(row.name) ?? new Map<string, string>();
    tags.set(row.tag, row.version);
    byName.set(row.name, tags);
  }
  return byName;
}

export async function setDistTag(
  tx: Db,
  projectId: string,
  name: string,
  tag: string,
  version: string,
  now: string,
): Promise<void> {
  await tx
    .insertInto("npm_dist_tag")
    .values({ project_id: projectId, name, tag, version, updated_at: now })
    .onConflict((oc) => oc.columns(["project_id", "name", "tag"]).doUpdateSet({ version, updated_at: now }))
    .execute();
}

/** The version a package's dist-tag points at, if it has that tag. */
export async function distTagVersion(
  db: Db,
  projectId: string,
  name: string,
  tag: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("npm_dist_tag")
    .select("version")
    .where("project_id", "=", projectId)
    .where("name", "=", name)
    .where("tag", "=", tag)
    .executeTakeFirst();
  return row?.version;
}

export async function removeDistTag(tx: Db, projectId: string, name: string, tag: string): Promise<void> {
  await tx
    .deleteFrom("npm_dist_tag")
    .where("project_id", "=", projectId)
    .where("name", "=", name)
    .where("tag", "=", tag)
    .execute();
}

/** Removes the tags that name `versions` (they are being unpublished). */
export async function removeTagsOfVersions(
  tx: Db,
  projectId: string,
  name: string,
  versions: string[],
): Promise<void> {
  if (versions.length === 0) return;
  await tx
    .deleteFrom("npm_dist_tag")
    .where("project_id", "=", projectId)
    .where("name", "=", name)
    .where("version", "in", versions)
    .execute();
}

export async function setDeprecated(tx: Db, fileId: string, message: string | null): Promise<void> {
  await tx.updateTable("npm_version").set({ deprecated: message }).where("file_id", "=", fileId).execute();
}

export async function isUnpublished(db: Db, projectId: string, name: string, version: string) {
  return Boolean(
    await db
      .selectFrom("npm_unpublished")
      .select("version")
      .where("project_id", "=", projectId)
      .where("name", "=", name)
      .where("version", "=", version)
      .executeTakeFirst(),
  );
}

export async function recordUnpublished(
  db: Db,
  projectId: string,
  name: string,
  version: string,
  now: string,
): Promise<void> {
  await db
    .insertInto("npm_unpublished")
    .values({ project_id: projectId, name, version, unpublished_at: now })
    .onConflict((oc) => oc.columns(["project_id", "name", "version"]).doNothing())
    .execute();
}

export async function forgetUnpublished(db: Db, projectId: string, name: string, version: string) {
  await db
    .deleteFrom("npm_unpublished")
    .where("project_id", "=", projectId)
    .where("name", "=", name)
    .where("version", "=", version)
    .execute();
}

/** The CI claims a trusted-publishing token was granted for (JSON), if it was one. */
export async function publishTokenClaims(db: Db, tokenId: string): Promise<string | null> {
  const row = await db
    .selectFrom("publish_token")
    .select("claims")
    .where("id", "=", tokenId)
    .executeTakeFirst();
  return row?.claims ?? null;
}
