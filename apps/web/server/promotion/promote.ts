// Promotion of a release (decision 035): from one APT suite/component or YUM group to another in
// the same project, or into another project of the same owner, without uploading again.
//
// - Within the project a version is one release and each package file is listed in one place:
//   promoting moves the listing of its .deb files (suite, component) and .rpm files (group).
//   The files, their bytes and their download URLs stay as they are.
// - Into another project the release is copied: a new release of the same version, title and
//   notes, whose files refer to the same stored blobs (no bytes copied; the blob row is held by
//   the transaction, so the sweep cannot remove them meanwhile, releases/blobs.ts). An .rpm is
//   signed again with the target's newest key (keys are per project); the signed file is a new
//   blob. A .deb is listed under its new release's pool path.
// Either way the change is recorded in the package change log in one transaction and the
// target's repositories republish; the promotion is one `release.promoted` entry in the source
// project's audit log. What can be done before the transaction (reading packages, signing .rpm
// files again) is prepared here; use-cases.ts applies it in its change.
import type { PromoteInput, PromotionResult } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely, Transaction } from "kysely";
import { limitsEnabled } from "../billing/plan.ts";
import { accountHoldings, type LimitsSetting } from "../billing/usage.ts";
import type { PackageFormat, StoredFile } from "../formats/format.ts";
import { formats } from "../formats/registry.ts";
import { roleFor } from "../orgs/storage.ts";
import { type Actor, assertProjectAccess, assertUploadAllowed } from "../platform/core/authorization.ts";
import { DomainError, isUniqueViolation } from "../platform/core/errors.ts";
import { newReleaseId, newRowId, nowIso } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";
import type { BlobStore, StagedBlob } from "../platform/storage/blob-store.ts";
import { findProject, type ProjectRow } from "../projects/storage.ts";
import { deleteOrphanBytes, placeBlob } from "../releases/blobs.ts";
import { findRelease, type ReleaseRow } from "../releases/storage.ts";
import { recordPackageIndexChange } from "../repositories/changes.ts";

type Db = Kysely<Database>;

export interface PromotionDeps {
  db: Db;
  blobs: BlobStore;
  keys: { newest(project: { id: string; name: string }): Promise<SigningKey> };
  limits: LimitsSetting;
}

/** A release file, and where it is listed when it is a package (its format and target there). */
export interface SourceFile {
  id: string;
  filename: string;
  size: number | string | bigint;
  sha256: string;
  sha512: string;
  md5: string;
  sha1: string;
  kind: string;
  content_type: string;
  listing?: { format: PackageFormat; target: unknown };
}

/** A release's files with where its packages are listed, by filename. */
export async function releaseFiles(db: Db, releaseId: string): Promise<SourceFile[]> {
  const files: SourceFile[] = await db
    .selectFrom("release_file")
    .select(["id", "filename", "size", "sha256", "sha512", "md5", "sha1", "kind", "content_type"])
    .where("release_id", "=", releaseId)
    .orderBy("filename")
    .execute();
  for (const format of formats) {
    const listed = await format.listed(db, releaseId);
    for (const file of files) if (listed.has(file.id)) file.listing = { format, target: listed.get(file.id) };
  }
  return files;
}

/**
 * The target named (another project of the source's owner: the caller's, or the organization's),
 * or the source itself; PROMOTION_TARGET_NOT_FOUND for a slug that owner has no project of.
 */
export async function targetProject(db: Db, actor: Actor, source: ProjectRow, slug: string | undefined) {
  if (slug === undefined || slug === source.slug) return source;
  const target = await findProject(db, source.owner_id, slug);
  if (!target)
    throw new DomainError("PROMOTION_TARGET_NOT_FOUND", `You have no project named ${slug} to promote to`);
  assertProjectAccess(actor, target, "publish", await roleFor(db, actor, target.owner_id));
  return target;
}

/** A package whose listing moves: its new target, and the change that moves it (its format's). */
interface Move {
  file: SourceFile;
  target: string;
  apply(tx: Transaction<Database>): Promise<void>;
}

/** A promotion within the project, ready to apply: the files whose listing moves, and how. */
export interface PreparedMove {
  project: ProjectRow;
  release: ReleaseRow;
  files: SourceFile[];
  moves: Move[];
}

export async function prepareMove(
  deps: Pick<PromotionDeps, "blobs">,
  project: ProjectRow,
  release: ReleaseRow,
  files: SourceFile[],
  input: PromoteInput,
): Promise<PreparedMove> {
  const moving: { file: SourceFile; format: PackageFormat; target: unknown }[] = [];
  for (const file of files) {
    if (!file.listing) continue;
    const { format, target: current } = file.listing;
    const target = format.promotedTarget(current, input);
    if (format.describe(target) !== format.describe(current)) moving.push({ file, format, target });
  }
  if (moving.length === 0) {
    throw new DomainError(
      "PROMOTION_SAME_TARGET",
      `Release ${release.version} is already where you asked to promote it: name another distribution, component, group or project`,
    );
  }
  const moves: Move[] = [];
  for (const { file, format, target } of moving) {
    const apply = await format.retarget(deps.blobs, storedFile(file, project.id, release.id), target);
    moves.push({ file, target: format.describe(target), apply });
  }
  return { project, release, files, moves };
}

/** Moves the listings, in the caller's transaction; the project's packages changed. */
export async function applyMove(tx: Transaction<Database>, prepared: PreparedMove): Promise<PromotionResult> {
  const { project, release, files, moves } = prepared;
  for (const move of moves) await move.apply(tx);
  await tx.updateTable("project").set({ updated_at: nowIso() }).where("id", "=", project.id).execute();
  await recordPackageIndexChange(tx, project.id, release.id);
  return {
    project: project.slug,
    version: release.version,
    mode: "moved",
    files: files.map((file) => {
      const move = moves.find((m) => m.file.id === file.id);
      return {
        filename: file.filename,
        sha256: file.sha256,
        target: move ? move.target : listing(file),
        resigned: false,
      };
    }),
  };
}

/** Where a file is listed now ("stable/main", a YUM group), or null when it is no package. */
function listing(file: SourceFile): string | null {
  return file.listing ? file.listing.format.describe(file.listing.target) : null;
}

/** A source file as its format stores it: in `releaseId` of `projectId`, with these bytes. */
function storedFile(
  file: SourceFile,
  projectId: string,
  releaseId: string,
  createdAt = "",
  digests: { size: number; sha256: string; md5: string; sha1: string } = {
    size: Number(file.size),
    sha256: file.sha256,
    md5: file.md5,
    sha1: file.sha1,
  },
): StoredFile {
  return {
    id: file.id,
    projectId,
    releaseId,
    filename: file.filename,
    createdAt,
    size: digests.size,
    sha256: digests.sha256,
    md5: digests.md5,
    sha1: digests.sha1,
  };
}

/** A stored file as a release file of the copy: the same blob, or the re-signed one. */
export interface CopiedFile {
  source: SourceFile;
  digests: { size: number; sha256: string; sha512: string; md5: string; sha1: string };
  /** The re-signed .rpm, staged; placed by the copy's transaction. */
  staged?: StagedBlob;
  /** A package: its format, what the format read of it, and its target in the copy. */
  package?: { format: PackageFormat; parsed: unknown; target: unknown };
  /** The copy's release_file id, once recorded. */
  fileId?: string;
}

/** A copy into another project, ready to apply: its files, the re-signed ones staged. */
export interface PreparedCopy {
  target: ProjectRow;
  release: ReleaseRow;
  releaseId: string;
  createdAt: string;
  copied: CopiedFile[];
  /** Whether any file is a package listed in the target's repositories. */
  packaged: boolean;
}

export async function prepareCopy(
  deps: PromotionDeps,
  target: ProjectRow,
  release: ReleaseRow,
  files: SourceFile[],
  input: PromoteInput,
): Promise<PreparedCopy> {
  const { db, blobs } = deps;
  if (await findRelease(db, target.id, release.version)) {
    throw new DomainError("VERSION_EXISTS", `Release ${release.version} already exists in ${target.slug}`);
  }
  const releaseId = newReleaseId();
  const createdAt = nowIso();
  const prepared: PreparedCopy = { target, release, releaseId, createdAt, copied: [], packaged: false };
  const { copied } = prepared;
  try {
    let key: SigningKey | undefined;
    // Each project has keys of its own, so the target's never signed the source's file.
    const signingKey = async () => (key ??= await deps.keys.newest(target));
    for (const file of files) {
      const digests = {
        size: Number(file.size),
        sha256: file.sha256,
        sha512: file.sha512,
        md5: file.md5,
        sha1: file.sha1,
      };
      const copy: CopiedFile = { source: file, digests };
      copied.push(copy);
      if (file.listing) {
        const { format } = file.listing;
        // Read (an .rpm signed by the target's key) as if uploaded to the target, then placed.
        const { parsed, restaged } = await format.ingest({
          blobs,
          staged: { ...digests, read: () => blobs.read(file.sha256) },
          maxBytes: digests.size,
          signingKey,
        });
        copy.package = { format, parsed, target: format.promotedTarget(file.listing.target, input) };
        if (restaged) {
          copy.staged = restaged;
          copy.digests = {
            size: restaged.size,
            sha256: restaged.sha256,
            sha512: restaged.sha512,
            md5: restaged.md5,
            sha1: restaged.sha1,
          };
        }
      }
    }
    if (limitsEnabled(deps.limits)) {
      const bytes = copied.reduce((sum, c) => sum + c.digests.size, 0);
      assertUploadAllowed(await accountHoldings(db, target.owner_id), target, bytes);
    }
  } catch (error) {
    await discardCopy(deps, prepared);
    throw error;
  }
  prepared.packaged = copied.some((c) => c.package);
  return prepared;
}

/** The files a copy that did not happen signed again: their staged and orphaned bytes removed. */
export async function discardCopy(deps: Pick<PromotionDeps, "db" | "blobs">, prepared: PreparedCopy) {
  for (const copy of prepared.copied) {
    if (!copy.staged) continue;
    await copy.staged.discard();
    await deleteOrphanBytes(deps.db, deps.blobs, copy.staged.sha256).catch(() => {});
  }
}

/** Records the copy, in the caller's transaction; each copied file's id is set on it. */
export async function applyCopy(tx: Transaction<Database>, prepared: PreparedCopy): Promise<PromotionResult> {
  const { target, release, releaseId, createdAt, copied } = prepared;
  try {
    await tx
      .insertInto("release")
      .values({
        id: releaseId,
        project_id: target.id,
        version: release.version,
        title: release.title,
        notes: release.notes,
        yanked: 0,
        yanked_reason: null,
        yanked_at: null,
        created_at: createdAt,
        published_at: createdAt,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("VERSION_EXISTS", `Release ${release.version} already exists in ${target.slug}`);
    throw error;
  }
  for (const copy of copied) {
    if (copy.staged) await placeBlob(tx, copy.staged, createdAt);
    else await holdBlob(tx, copy.digests.sha256);
    const fileId = newRowId();
    copy.fileId = fileId;
    await tx
      .insertInto("release_file")
      .values({
        id: fileId,
        release_id: releaseId,
        filename: copy.source.filename,
        ...copy.digests,
        kind: copy.source.kind,
        content_type: copy.source.content_type,
        download_count: 0,
        created_at: createdAt,
      })
      .execute();
    if (copy.package) {
      const { format, parsed, target: packageTarget } = copy.package;
      const file = storedFile(copy.source, target.id, releaseId, createdAt, copy.digests);
      await format.store(tx, { ...file, id: fileId }, parsed, packageTarget);
    }
  }
  await tx.updateTable("project").set({ updated_at: createdAt }).where("id", "=", target.id).execute();
  if (prepared.packaged) await recordPackageIndexChange(tx, target.id, releaseId);
  return {
    project: target.slug,
    version: release.version,
    mode: "copied",
    files: copied.map((copy) => ({
      filename: copy.source.filename,
      sha256: copy.digests.sha256,
      target: copy.package ? copy.package.format.describe(copy.package.target) : null,
      resigned: copy.staged !== undefined,
    })),
  };
}

/**
 * Takes the lock of a stored blob's row and clears a sweep's mark, inside the transaction that
 * then records a file referring to it: the sweep cannot remove the bytes in between (blobs.ts).
 */
async function holdBlob(tx: Transaction<Database>, sha256: string): Promise<void> {
  const held = await tx
    .updateTable("blob")
    .set({ unreferenced_since: null })
    .where("sha256", "=", sha256)
    .executeTakeFirst();
  if (Number(held.numUpdatedRows) !== 1) throw new Error(`blob ${sha256} is no longer stored`);
}
