// The registry's rows (migration 0036): a project's images (repositories), the blobs each holds,
// manifests and what they need, tags, and uploads in progress. Bytes live in the shared blob
// store under their sha256, held by `blob` rows (releases/blobs.ts's rule: placed inside a
// transaction that holds the row).
import type { Kysely, Transaction } from "kysely";
import { newRowId, nowIso } from "../../platform/core/ids.ts";
import type { Database } from "../../platform/db/schema.ts";
import { findProjectByCurrentName, type ProjectRow } from "../../projects/storage.ts";
import { isPostgres } from "../../releases/blobs.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** A repository name's parts: `{owner}/{project}` is the project's default image (""). */
export interface RepositoryName {
  owner: string;
  slug: string;
  image: string;
}

export function splitRepositoryName(name: string): RepositoryName | undefined {
  const [owner, slug, ...rest] = name.split("/");
  if (!owner || !slug) return undefined;
  return { owner, slug, image: rest.join("/") };
}

/** The project a repository name names (its owner's current username, any case), if any. */
export function projectOfName(db: Db, name: RepositoryName): Promise<ProjectRow | undefined> {
  return findProjectByCurrentName(db as Kysely<Database>, name.owner, name.slug);
}

export function findRepository(db: Db, projectId: string, image: string) {
  return db
    .selectFrom("oci_repository")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("name", "=", image)
    .executeTakeFirst();
}

/** The repository's id, created with its first push. */
export async function ensureRepository(tx: Transaction<Database>, projectId: string, image: string) {
  await tx
    .insertInto("oci_repository")
    .values({ id: newRowId(), project_id: projectId, name: image, created_at: nowIso() })
    .onConflict((oc) => oc.columns(["project_id", "name"]).doNothing())
    .execute();
  const row = await findRepository(tx, projectId, image);
  if (!row) throw new Error("the repository row vanished");
  return row;
}

/** The size of a blob the repository holds, if it holds it. */
export async function heldBlob(db: Db, repositoryId: string, sha256: string) {
  const row = await db
    .selectFrom("oci_blob")
    .select("size")
    .where("repository_id", "=", repositoryId)
    .where("sha256", "=", sha256)
    .executeTakeFirst();
  return row ? { size: Number(row.size) } : undefined;
}

/** Records that the repository holds a blob (an upload, a mount), keeping its first time. */
export async function holdBlobIn(
  tx: Transaction<Database>,
  repositoryId: string,
  sha256: string,
  size: number,
) {
  await tx
    .insertInto("oci_blob")
    .values({ repository_id: repositoryId, sha256, size, created_at: nowIso() })
    .onConflict((oc) => oc.columns(["repository_id", "sha256"]).doNothing())
    .execute();
}

export interface UploadChunk {
  sha256: string;
  size: number;
}

export async function findUpload(db: Db, repositoryId: string, id: string) {
  const row = await db
    .selectFrom("oci_upload")
    .selectAll()
    .where("id", "=", id)
    .where("repository_id", "=", repositoryId)
    .executeTakeFirst();
  return row
    ? { ...row, size: Number(row.size), chunks: JSON.parse(row.chunks) as UploadChunk[] }
    : undefined;
}

export async function createUpload(db: Db, repositoryId: string, id: string) {
  const now = nowIso();
  await db
    .insertInto("oci_upload")
    .values({ id, repository_id: repositoryId, chunks: "[]", size: 0, created_at: now, updated_at: now })
    .execute();
}

/**
 * Appends a chunk if the upload is still at `offset` (one statement: two PATCHes racing on the
 * same upload cannot both append at the same offset). False when it moved meanwhile.
 */
export async function appendChunk(
  db: Db,
  id: string,
  offset: number,
  chunks: UploadChunk[],
): Promise<boolean> {
  const size = chunks.reduce((sum, c) => sum + c.size, 0);
  const result = await db
    .updateTable("oci_upload")
    .set({ chunks: JSON.stringify(chunks), size, updated_at: nowIso() })
    .where("id", "=", id)
    .where("size", "=", offset)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteUpload(db: Db, id: string) {
  await db.deleteFrom("oci_upload").where("id", "=", id).execute();
}

export interface ManifestRow {
  repository_id: string;
  sha256: string;
  media_type: string;
  artifact_type: string | null;
  size: number;
  subject: string | null;
  annotations: string | null;
}

/** A manifest of the repository by digest (sha256 hex) or by tag. */
export async function findManifest(
  db: Db,
  repositoryId: string,
  ref: { sha256: string } | { tag: string },
): Promise<ManifestRow | undefined> {
  let query = db
    .selectFrom("oci_manifest")
    .selectAll("oci_manifest")
    .where("oci_manifest.repository_id", "=", repositoryId);
  query =
    "sha256" in ref
      ? query.where("oci_manifest.sha256", "=", ref.sha256)
      : query
          .innerJoin("oci_tag", (join) =>
            join
              .onRef("oci_tag.repository_id", "=", "oci_manifest.repository_id")
              .onRef("oci_tag.sha256", "=", "oci_manifest.sha256"),
          )
          .where("oci_tag.name", "=", ref.tag);
  const row = await query.executeTakeFirst();
  return row ? { ...row, size: Number(row.size) } : undefined;
}

/** Which of these digests (sha256 hex) the repository holds as manifests. */
export async function heldManifests(db: Db, repositoryId: string, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const rows = await db
    .selectFrom("oci_manifest")
    .select("sha256")
    .where("repository_id", "=", repositoryId)
    .where("sha256", "in", sha256s)
    .execute();
  return new Set(rows.map((r) => r.sha256));
}

/**
 * Which of these blobs (sha256 hex) the repository holds. In a transaction on PostgreSQL the rows
 * are locked (FOR SHARE) until it commits, so the collection (collect.ts) cannot release a blob a
 * manifest being pushed relies on.
 */
export async function heldBlobs(db: Db, repositoryId: string, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  let query = db
    .selectFrom("oci_blob")
    .select("sha256")
    .where("repository_id", "=", repositoryId)
    .where("sha256", "in", sha256s);
  if (db.isTransaction && isPostgres(db)) query = query.forShare();
  const rows = await query.execute();
  return new Set(rows.map((r) => r.sha256));
}

/** Tags in lexical order after `last`, at most `n` (+1, to tell whether more follow). */
export async function listTags(db: Db, repositoryId: string, options: { last?: string; n?: number }) {
  let query = db
    .selectFrom("oci_tag")
    .select("name")
    .where("repository_id", "=", repositoryId)
    .orderBy("name");
  if (options.last !== undefined) query = query.where("name", ">", options.last);
  if (options.n !== undefined) query = query.limit(options.n + 1);
  return (await query.execute()).map((r) => r.name);
}

/** The manifests whose subject is `sha256`, optionally of one artifact type. */
export async function referrersOf(db: Db, repositoryId: string, sha256: string, artifactType?: string) {
  let query = db
    .selectFrom("oci_manifest")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("subject", "=", sha256)
    .orderBy("created_at")
    .orderBy("sha256");
  if (artifactType !== undefined) query = query.where("artifact_type", "=", artifactType);
  return (await query.execute()).map((row) => ({ ...row, size: Number(row.size) }));
}

/** Every image that has a manifest, with its project and owner (the catalog). */
export function listImages(db: Db) {
  return (
    db
      .selectFrom("oci_repository")
      .innerJoin("project", "project.id", "oci_repository.project_id")
      .innerJoin("user", "user.id", "project.owner_id")
      .select(["oci_repository.name as image", "project.slug", "project.visibility", "user.username"])
      // Only images with something in them: an upload started is not an image yet.
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("oci_manifest")
            .select("sha256")
            .whereRef("oci_manifest.repository_id", "=", "oci_repository.id"),
        ),
      )
      .execute()
  );
}
