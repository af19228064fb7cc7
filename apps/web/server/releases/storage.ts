// Releases of a project: versions unique per project, newest first, yank and unyank, and the
// "latest" rule of spec §4 (the first release in the list that is not yanked).
import type {
  CreateReleaseInput,
  Release,
  ReleaseFile,
  ReleaseSummary,
  UpdateReleaseInput,
} from "@packyard/contract";
import type { Kysely, Selectable } from "kysely";
import { DomainError, isUniqueViolation, notFound } from "../platform/core/errors.ts";
import { newReleaseId, nowIso } from "../platform/core/ids.ts";
import { inTransaction } from "../platform/core/use-case.ts";
import type { Database, ReleaseFileTable, ReleaseTable } from "../platform/db/schema.ts";
import { type ProjectRow, usernameOf } from "../projects/storage.ts";
import { recordPackageIndexChange } from "../repositories/changes.ts";

// The changes below run on any executor: a use case's transaction (releases/use-cases.ts) says
// who made them and emits their events once they have committed.

export type ReleaseRow = Selectable<ReleaseTable>;
export type ReleaseFileRow = Selectable<ReleaseFileTable>;
type Db = Kysely<Database>;

export interface ReleaseUrls {
  /** Public download URL of a file: /dl/{owner}/{project}/releases/{version}/{filename}. */
  fileUrl(version: string, filename: string): string;
}

/** Download URLs as the API and the pages hand them out: {baseUrl}/dl/{owner}/{slug}/releases/{version}/{file}. */
export function releaseUrls(baseUrl: string, owner: string, slug: string): ReleaseUrls {
  return {
    fileUrl: (version, filename) =>
      `${baseUrl}/dl/${owner}/${slug}/releases/${encodeURIComponent(version)}/${encodeURIComponent(filename)}`,
  };
}

export async function listReleaseRows(db: Db, projectId: string): Promise<ReleaseRow[]> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export async function findRelease(
  db: Db,
  projectId: string,
  version: string,
): Promise<ReleaseRow | undefined> {
  if (version === "latest") return resolveLatest(db, projectId);
  return db
    .selectFrom("release")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("version", "=", version)
    .executeTakeFirst();
}

export async function requireRelease(db: Db, projectId: string, version: string): Promise<ReleaseRow> {
  const release = await findRelease(db, projectId, version);
  if (!release) throw notFound("Release not found");
  return release;
}

/** Spec §4: the first release in the project's list (newest first) that is not yanked. */
export async function resolveLatest(db: Db, projectId: string): Promise<ReleaseRow | undefined> {
  return db
    .selectFrom("release")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("yanked", "=", 0)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .executeTakeFirst();
}

export async function listFileRows(db: Db, releaseId: string): Promise<ReleaseFileRow[]> {
  return db
    .selectFrom("release_file")
    .selectAll()
    .where("release_id", "=", releaseId)
    .orderBy("filename")
    .execute();
}

export function toFileDto(row: ReleaseFileRow, version: string, urls: ReleaseUrls): ReleaseFile {
  return {
    filename: row.filename,
    size: Number(row.size),
    sha256: row.sha256,
    // "" while it is computed, just after the upload of a large file (releases/blob-digests.ts).
    sha512: row.sha512 || null,
    kind: row.kind as ReleaseFile["kind"],
    contentType: row.content_type,
    downloads: Number(row.download_count),
    createdAt: row.created_at,
    url: urls.fileUrl(version, row.filename),
  };
}

export function toReleaseDto(row: ReleaseRow, files: ReleaseFileRow[], urls: ReleaseUrls): Release {
  return {
    id: row.id,
    version: row.version,
    title: row.title,
    notes: row.notes,
    yanked: Number(row.yanked) === 1,
    yankedReason: row.yanked_reason,
    yankedAt: row.yanked_at,
    createdAt: row.created_at,
    publishedAt: row.published_at,
    files: files.map((f) => toFileDto(f, row.version, urls)),
  };
}

export async function describeRelease(db: Db, row: ReleaseRow, urls: ReleaseUrls): Promise<Release> {
  return toReleaseDto(row, await listFileRows(db, row.id), urls);
}

/** describeRelease for a release of this project row, with its owner's download URLs. */
export async function describeProjectRelease(
  db: Db,
  baseUrl: string,
  project: Pick<ProjectRow, "owner_id" | "slug">,
  row: ReleaseRow,
): Promise<Release> {
  return describeRelease(db, row, releaseUrls(baseUrl, await usernameOf(db, project.owner_id), project.slug));
}

export async function listReleaseSummaries(db: Db, projectId: string): Promise<ReleaseSummary[]> {
  const rows = await listReleaseRows(db, projectId);
  if (rows.length === 0) return [];
  const stats = await db
    .selectFrom("release_file")
    .select([
      "release_id",
      (eb) => eb.fn.countAll<number | string>().as("files"),
      (eb) => eb.fn.sum<number | string>("download_count").as("downloads"),
    ])
    .where(
      "release_id",
      "in",
      rows.map((r) => r.id),
    )
    .groupBy("release_id")
    .execute();
  const byId = new Map(stats.map((s) => [s.release_id, s]));
  return rows.map((row) => {
    const { files: _files, notes: _notes, ...rest } = toReleaseDto(row, [], { fileUrl: () => "" });
    const s = byId.get(row.id);
    return { ...rest, fileCount: Number(s?.files ?? 0), downloads: Number(s?.downloads ?? 0) };
  });
}

export async function createRelease(
  db: Db,
  projectId: string,
  input: CreateReleaseInput,
): Promise<ReleaseRow> {
  const now = nowIso();
  const row: ReleaseRow = {
    id: newReleaseId(),
    project_id: projectId,
    version: input.version,
    title: input.title || null,
    notes: input.notes || null,
    yanked: 0,
    yanked_reason: null,
    yanked_at: null,
    created_at: now,
    published_at: now,
  };
  try {
    await db.insertInto("release").values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("VERSION_EXISTS", `Release ${input.version} already exists`);
    throw error;
  }
  await touchProject(db, projectId);
  return row;
}

/** The release for an upload: the existing one, or a new one. */
export async function ensureRelease(db: Db, projectId: string, version: string): Promise<ReleaseRow> {
  return (await ensureReleaseCreated(db, projectId, version)).release;
}

/**
 * The release for an upload, saying whether this call created it (the audit log records who
 * did). Two uploads may race to create it: the insert that loses does nothing rather than fail,
 * so it can run inside the upload's transaction (a failed statement would abort it on PostgreSQL).
 */
export async function ensureReleaseCreated(
  db: Db,
  projectId: string,
  version: string,
  /** False when the caller sets the project's updated_at itself (an upload). */
  touch = true,
): Promise<{ release: ReleaseRow; created: boolean }> {
  const existing = await findRelease(db, projectId, version);
  if (existing) return { release: existing, created: false };
  const now = nowIso();
  const row: ReleaseRow = {
    id: newReleaseId(),
    project_id: projectId,
    version,
    title: null,
    notes: null,
    yanked: 0,
    yanked_reason: null,
    yanked_at: null,
    created_at: now,
    published_at: now,
  };
  const inserted = await db
    .insertInto("release")
    .values(row)
    .onConflict((conflict) => conflict.columns(["project_id", "version"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
    return { release: await requireRelease(db, projectId, version), created: false };
  if (touch) await touchProject(db, projectId);
  return { release: row, created: true };
}

export async function updateRelease(
  db: Db,
  release: ReleaseRow,
  input: UpdateReleaseInput,
): Promise<ReleaseRow> {
  const changes: Partial<ReleaseRow> = {};
  if (input.title !== undefined) changes.title = input.title || null;
  if (input.notes !== undefined) changes.notes = input.notes || null;
  if (Object.keys(changes).length)
    await db.updateTable("release").set(changes).where("id", "=", release.id).execute();
  return { ...release, ...changes };
}

export async function setYanked(
  db: Db,
  release: ReleaseRow,
  yank: { reason: string } | null,
): Promise<ReleaseRow> {
  const changes = yank
    ? { yanked: 1, yanked_reason: yank.reason, yanked_at: nowIso() }
    : { yanked: 0, yanked_reason: null, yanked_at: null };
  await inTransaction(db, async (tx) => {
    await tx.updateTable("release").set(changes).where("id", "=", release.id).execute();
    await touchProject(tx, release.project_id);
    await recordPackageIndexChange(tx, release.project_id, release.id);
  });
  return { ...release, ...changes };
}

export async function deleteRelease(db: Db, release: ReleaseRow): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom("release").where("id", "=", release.id).execute();
    await touchProject(tx, release.project_id);
    await recordPackageIndexChange(tx, release.project_id, release.id);
  });
}

async function touchProject(db: Db, projectId: string) {
  await db.updateTable("project").set({ updated_at: nowIso() }).where("id", "=", projectId).execute();
}
