// Promotion of a release (decision 035): from one APT suite/component or YUM group to another in
// the same project, or into another project of the same owner, without uploading again.
//
// - Within the project a version is one release and each package file is listed in one place:
//   promoting moves the listing of its .deb files (suite, component) and .rpm files (group).
//   The files, their bytes and their download URLs stay as they are.
// - Into another project the release is copied: a new release of the same version, title and
//   notes, whose files refer to the same stored blobs (no bytes copied; the blob row is held by
//   the transaction, so the sweep cannot remove them meanwhile, domain/blobs.ts). An .rpm is
//   signed again with the target's newest key (keys are per project); the signed file is a new
//   blob. A .deb is listed under its new release's pool path.
// Either way the change is recorded in the package change log in one transaction and the
// target's repositories republish; the promotion is one `release.promoted` entry in the source
// project's audit log. What can be done before the transaction (reading packages, signing .rpm
// files again) is prepared here; use-cases.ts applies it in its change.
import type { PromoteInput, PromotionResult } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import { limitsEnabled } from "../domain/account-plan.ts";
import { type Actor, assertProjectAccess, assertUploadAllowed } from "../domain/authorization.ts";
import { deleteOrphanBytes, placeBlob } from "../domain/blobs.ts";
import { DomainError, isUniqueViolation } from "../domain/errors.ts";
import { newReleaseId, newRowId, nowIso } from "../domain/ids.ts";
import { roleFor } from "../domain/orgs.ts";
import { recordPackageIndexChange } from "../domain/package-index-changes.ts";
import { findProject, type ProjectRow } from "../domain/projects.ts";
import { findRelease, type ReleaseRow } from "../domain/releases.ts";
import { accountHoldings, type LimitsSetting } from "../domain/usage.ts";
import { type AptTarget, debRecord, parseAptTarget, parseDeb } from "../publishing/apt/ingest.ts";
import { signStagedRpm, yumRecord } from "../publishing/yum/ingest.ts";
import type { BlobStore, StagedBlob } from "../storage/blob-store.ts";

type Db = Kysely<Database>;

export interface PromotionDeps {
  db: Db;
  blobs: BlobStore;
  keys: { newest(project: { id: string; name: string }): Promise<SigningKey> };
  limits: LimitsSetting;
}

/** A release file with where its package is listed, if it is one. */
export async function releaseFiles(db: Db, releaseId: string) {
  return db
    .selectFrom("release_file")
    .leftJoin("deb_package", "deb_package.file_id", "release_file.id")
    .leftJoin("yum_package", "yum_package.file_id", "release_file.id")
    .select([
      "release_file.id",
      "release_file.filename",
      "release_file.size",
      "release_file.sha256",
      "release_file.sha512",
      "release_file.md5",
      "release_file.sha1",
      "release_file.kind",
      "release_file.content_type",
      "deb_package.suite",
      "deb_package.component",
      "yum_package.repo_group",
    ])
    .where("release_file.release_id", "=", releaseId)
    .orderBy("release_file.filename")
    .execute();
}
export type SourceFile = Awaited<ReturnType<typeof releaseFiles>>[number];

const isDeb = (f: SourceFile) => f.suite !== null && f.component !== null;
const isRpm = (f: SourceFile) => f.repo_group !== null;

function aptTargetFor(file: SourceFile, input: PromoteInput): AptTarget {
  return parseAptTarget(input.distribution ?? file.suite!, input.component ?? file.component!);
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

type Move =
  | { file: SourceFile; kind: "deb"; target: AptTarget }
  | { file: SourceFile; kind: "rpm"; group: string };

/** A promotion within the project, ready to apply: the files whose listing moves, and their new stanzas. */
export interface PreparedMove {
  project: ProjectRow;
  release: ReleaseRow;
  files: SourceFile[];
  moves: Move[];
  records: Map<string, ReturnType<typeof debRecord>>;
}

export async function prepareMove(
  deps: Pick<PromotionDeps, "blobs">,
  project: ProjectRow,
  release: ReleaseRow,
  files: SourceFile[],
  input: PromoteInput,
): Promise<PreparedMove> {
  const moves: Move[] = [];
  for (const file of files) {
    if (isDeb(file)) {
      const target = aptTargetFor(file, input);
      if (target.suite !== file.suite || target.component !== file.component)
        moves.push({ file, kind: "deb", target });
    } else if (isRpm(file) && input.group !== undefined && input.group !== file.repo_group) {
      moves.push({ file, kind: "rpm", group: input.group });
    }
  }
  if (moves.length === 0) {
    throw new DomainError(
      "PROMOTION_SAME_TARGET",
      `Release ${release.version} is already where you asked to promote it: name another distribution, component, group or project`,
    );
  }
  // A new component changes the pool path, so the stanza is rendered again from the package.
  const records = new Map<string, ReturnType<typeof debRecord>>();
  for (const move of moves) {
    if (move.kind !== "deb") continue;
    const parsed = await parseDeb(deps.blobs.read(move.file.sha256));
    records.set(move.file.id, debRecord(parsed, debFile(move.file, release.id), move.target));
  }
  return { project, release, files, moves, records };
}

/** Moves the listings, in the caller's transaction; the project's packages changed. */
export async function applyMove(tx: Transaction<Database>, prepared: PreparedMove): Promise<PromotionResult> {
  const { project, release, files, moves, records } = prepared;
  for (const move of moves) {
    if (move.kind === "deb") {
      const { suite, component, pool_path, stanza } = records.get(move.file.id)!;
      await tx
        .updateTable("deb_package")
        .set({ suite, component, pool_path, stanza })
        .where("file_id", "=", move.file.id)
        .execute();
    } else {
      await tx
        .updateTable("yum_package")
        .set({ repo_group: move.group })
        .where("file_id", "=", move.file.id)
        .execute();
    }
  }
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
        target: !move
          ? listing(file)
          : move.kind === "deb"
            ? `${move.target.suite}/${move.target.component}`
            : move.group,
        resigned: false,
      };
    }),
  };
}

function listing(file: SourceFile): string | null {
  if (isDeb(file)) return `${file.suite}/${file.component}`;
  if (isRpm(file)) return file.repo_group;
  return null;
}

function debFile(file: SourceFile, releaseId: string) {
  return {
    filename: file.filename,
    releaseId,
    size: Number(file.size),
    md5: file.md5,
    sha1: file.sha1,
    sha256: file.sha256,
  };
}

/** A stored file as a release file of the copy: the same blob, or the re-signed one. */
export interface CopiedFile {
  source: SourceFile;
  digests: { size: number; sha256: string; sha512: string; md5: string; sha1: string };
  /** The re-signed .rpm, staged; placed by the copy's transaction. */
  staged?: StagedBlob;
  deb?: ReturnType<typeof debRecord>;
  yum?: ReturnType<typeof yumRecord>;
  signedBy?: string;
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
      if (isDeb(file)) {
        const parsed = await parseDeb(blobs.read(file.sha256));
        copy.deb = debRecord(parsed, debFile(file, releaseId), aptTargetFor(file, input));
      } else if (isRpm(file)) {
        key ??= await deps.keys.newest(target);
        const group = input.group ?? file.repo_group!;
        // Each project has keys of its own, so the target's never signed the source's file.
        const rpm = await signStagedRpm(
          blobs,
          { read: () => blobs.read(file.sha256) },
          key,
          Number(file.size),
        );
        copy.staged = rpm.staged;
        copy.digests = {
          size: rpm.staged.size,
          sha256: rpm.staged.sha256,
          sha512: rpm.staged.sha512,
          md5: rpm.staged.md5,
          sha1: rpm.staged.sha1,
        };
        copy.signedBy = key.fingerprint;
        copy.yum = yumRecord(rpm, { filename: file.filename, releaseId, createdAt }, group);
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
  prepared.packaged = copied.some((c) => c.deb || c.yum);
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
    if (copy.deb)
      await tx
        .insertInto("deb_package")
        .values({ file_id: fileId, project_id: target.id, ...copy.deb })
        .execute();
    if (copy.yum)
      await tx
        .insertInto("yum_package")
        .values({ file_id: fileId, project_id: target.id, ...copy.yum, signed_by: copy.signedBy ?? null })
        .execute();
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
      target: copy.deb ? `${copy.deb.suite}/${copy.deb.component}` : copy.yum ? copy.yum.repo_group : null,
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
