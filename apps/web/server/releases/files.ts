// Release files: immutable once uploaded (replace = delete + upload). An upload is validated
// before a byte is read, streamed into a staged blob, and only then recorded; any failure —
// a bad name, a duplicate, a size over the limit, the plan's limits, a dropped connection, a
// full disk — leaves no file, no row and no blob behind.
import { filenameProblem, normalizeFilename, releaseVersion } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely } from "kysely";
import { limitsEnabled } from "../billing/plan.ts";
import { accountHoldings, type LimitsSetting } from "../billing/usage.ts";
import { classifyFile } from "../formats/files/file-types.ts";
import type { Ingested, PackageFormat, StoredFile } from "../formats/format.ts";
import { formatOfFile, formatOfKind, type UploadTargets } from "../formats/registry.ts";
import { assertUploadAllowed } from "../platform/core/authorization.ts";
import { DomainError, isUniqueViolation, notFound } from "../platform/core/errors.ts";
import { newRowId, nowIso } from "../platform/core/ids.ts";
import { inTransaction, type Tx } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import {
  type BlobStore,
  BlobTooLargeError,
  type StagedBlob,
  StorageFullError,
} from "../platform/storage/blob-store.ts";
import type { ProjectRow } from "../projects/storage.ts";
import { recordPackageIndexChange } from "../repositories/changes.ts";
import { fillDigestsSoon } from "./blob-digests.ts";
import { deleteOrphanBytes, startPlacingBlob } from "./blobs.ts";
import { ensureReleaseCreated, findRelease, type ReleaseFileRow, type ReleaseRow } from "./storage.ts";

type Db = Kysely<Database>;

export function assertValidFilename(filename: string): void {
  const problem = filenameProblem(filename);
  if (problem) throw new DomainError("INVALID_FILENAME", problem);
}

export function assertValidVersion(version: string): void {
  const parsed = releaseVersion.safeParse(version);
  if (!parsed.success)
    throw new DomainError("INVALID_VERSION", parsed.error.issues[0]?.message ?? "Invalid version");
}

async function fileExists(db: Db, releaseId: string, filename: string) {
  return Boolean(
    await db
      .selectFrom("release_file")
      .select("id")
      .where("release_id", "=", releaseId)
      .where("filename", "=", filename)
      .executeTakeFirst(),
  );
}

/**
 * Files up to this size get all four digests while they are received; larger ones only sha256,
 * the rest right after the upload (decision 036). A format may ask for more (a .deb always gets
 * all four) or fewer (PackageFormat.uploadDigests).
 */
export const EAGER_DIGEST_BYTES = 16 * 1024 * 1024;

export interface UploadInput {
  project: ProjectRow;
  version: string;
  filename: string;
  body: AsyncIterable<Uint8Array>;
  /** From Content-Length when the client sent one: lets an oversized upload fail before reading. */
  declaredSize?: number;
  maxBytes: number;
  /** Create the release when the version has none yet (PUT does; the browser creates it first). */
  createRelease: boolean;
  /** Where a package goes, per format (parseUploadTargets); absent: the format's default. */
  targets?: UploadTargets;
  /** The key packages are signed with before they are stored (.rpm files). */
  rpmSigningKey?: () => Promise<SigningKey>;
  /** Whether plan limits apply (PLAN_LIMITS): private projects over the plan, storage. */
  limits: LimitsSetting;
  /** The body's chunks are nobody else's once read (StageOptions.releaseChunks). */
  releaseChunks?: boolean;
  /**
   * A registry's package (npm, PyPI): read from the staged bytes before anything is recorded (a
   * bad one throws, leaving nothing), and its rows written in the upload's transaction after the
   * release file's row.
   */
  attach?: UploadAttachment;
}

/** What a registry adds to an upload (formats/npm, formats/pypi): its package, read and stored. */
export interface UploadAttachment {
  ingest(staged: Pick<StagedBlob, "read" | "size" | "sha256">): Promise<unknown>;
  store(tx: Tx, file: StoredFile, ingested: unknown): Promise<void>;
}

/** PLAN_LIMIT unless the owner's plan has room for a file of `bytes` (undefined: not known yet). */
async function checkUploadLimits(db: Db, input: UploadInput, bytes: number | undefined): Promise<void> {
  if (!limitsEnabled(input.limits)) return;
  assertUploadAllowed(await accountHoldings(db, input.project.owner_id), input.project, bytes);
}

/** A stored upload: its release (created by it, or not) and its file. */
export interface StoredUpload {
  release: ReleaseRow;
  file: ReleaseFileRow;
  releaseCreated: boolean;
  /** A .deb or an .rpm: the project's repositories change with it. */
  packaged: boolean;
}

/**
 * Runs the recording of an upload (`record`, on the transaction it is given) once its bytes are
 * staged: a use case's change, which says who uploaded and what happened (releases/use-cases.ts).
 */
export type UploadCommit = (record: (tx: Tx) => Promise<StoredUpload>) => Promise<StoredUpload>;

/**
 * Validates, streams the body into a staged blob and checks it (plan, package) outside any
 * transaction, then records the file, and the release when `createRelease` and the version has
 * none yet, in the transaction `commit` runs: a long upload holds no connection.
 */
export async function uploadFile(
  db: Db,
  blobs: BlobStore,
  input: UploadInput,
  commit: UploadCommit = (record) => inTransaction(db, record),
): Promise<StoredUpload> {
  // Names are kept in NFC, so two names that look the same are one name.
  const filename = normalizeFilename(input.filename);
  assertValidFilename(filename);
  assertValidVersion(input.version);
  if (input.declaredSize !== undefined && input.declaredSize > input.maxBytes) {
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `The file is larger than the limit of ${input.maxBytes} bytes`,
    );
  }
  // Cheap checks first, so a duplicate is refused before the body is read.
  const existing = await findRelease(db, input.project.id, input.version);
  if (!existing && !input.createRelease) throw notFound("Release not found");
  if (existing && (await fileExists(db, existing.id, filename))) {
    throw new DomainError("FILE_EXISTS", `${filename} already exists in release ${input.version}`);
  }
  // The plan: refused before a byte is read when the size is declared (or the account is over
  // its limits already), else once the staged size is known, before anything is recorded.
  await checkUploadLimits(db, input, input.declaredSize);

  const { kind, contentType } = classifyFile(filename);
  const format = formatOfFile(filename);
  let staged: Awaited<ReturnType<BlobStore["stage"]>>;
  try {
    staged = await blobs.stage(input.body, {
      maxBytes: input.maxBytes,
      // Received at the speed of one hash (decision 036): a file gets sha512, sha1 and md5 while
      // received only when small, else just after — unless its format asks otherwise (a .deb
      // always gets md5 and sha1 for its Packages stanza; an .rpm's unsigned original none).
      extraDigestsUpTo: EAGER_DIGEST_BYTES,
      ...format?.uploadDigests,
      releaseChunks: input.releaseChunks,
    });
  } catch (error) {
    if (error instanceof BlobTooLargeError) throw new DomainError("PAYLOAD_TOO_LARGE", error.message);
    if (error instanceof StorageFullError) throw new DomainError("INSUFFICIENT_STORAGE", error.message);
    throw error;
  }

  // What is stored and served: the upload itself, or what its format made of it (a signed .rpm).
  let stored: StagedBlob = staged;
  let placing = false;
  try {
    if (input.declaredSize !== staged.size) await checkUploadLimits(db, input, staged.size);
    // Packages are read once, now, from the staged bytes; a bad one is refused before anything
    // is recorded or placed.
    let ingested: Ingested<unknown> | undefined;
    if (format) {
      ingested = await format.ingest({
        blobs,
        staged,
        maxBytes: input.maxBytes,
        signingKey: input.rpmSigningKey,
      });
      stored = ingested.restaged ?? staged;
    }
    const attached = input.attach ? await input.attach.ingest(staged) : undefined;
    // A signed .rpm is a little larger than the upload: the plan is checked for what is stored.
    if (stored !== staged) await checkUploadLimits(db, input, stored.size);
    // The bytes are placed and the rows that refer to them recorded in one transaction that
    // holds the blob's row, so no delete of identical content can remove them in between.
    const result = await commit(async (tx) => {
      placing = true;
      const createdAt = nowIso();
      // The blob's row first: held until the commit, while its bytes are placed and the rows
      // that refer to them written (releases/blobs.ts).
      const { placed } = await startPlacingBlob(tx, stored, createdAt);
      try {
        const { release, created: releaseCreated } = existing
          ? { release: existing, created: false }
          : await ensureReleaseCreated(tx, input.project.id, input.version, false);
        const row: ReleaseFileRow = {
          id: newRowId(),
          release_id: release.id,
          filename,
          size: stored.size,
          sha256: stored.sha256,
          sha512: stored.sha512,
          md5: stored.md5,
          sha1: stored.sha1,
          kind,
          content_type: contentType,
          download_count: 0,
          created_at: createdAt,
        };
        await tx.insertInto("release_file").values(row).execute();
        const storedFile: StoredFile = {
          ...stored,
          id: row.id,
          projectId: input.project.id,
          releaseId: release.id,
          filename,
          createdAt,
        };
        if (format && ingested)
          await format.store(tx, storedFile, ingested.parsed, targetOf(format, input.targets));
        if (input.attach) await input.attach.store(tx, storedFile, attached);
        // One statement: the project's updated_at, and its index revision for a package.
        if (format) await recordPackageIndexChange(tx, input.project.id, row.release_id, createdAt);
        else
          await tx
            .updateTable("project")
            .set({ updated_at: createdAt })
            .where("id", "=", input.project.id)
            .execute();
        await placed;
        return { release, file: row, releaseCreated, packaged: Boolean(format) };
      } finally {
        await placed.catch(() => {});
      }
    });
    // Digests the upload left out are computed now, after the answer (releases/blob-digests.ts).
    const { file } = result;
    if (!file.sha512 || !file.sha1 || !file.md5) fillDigestsSoon(db, blobs, file.sha256);
    return result;
  } catch (error) {
    await stored.discard();
    // Bytes placed by a transaction that rolled back may have no row of their own.
    if (placing) await deleteOrphanBytes(db, blobs, stored.sha256).catch(() => {});
    if (isUniqueViolation(error)) {
      throw new DomainError("FILE_EXISTS", `${filename} already exists in release ${input.version}`);
    }
    if (error instanceof StorageFullError) throw new DomainError("INSUFFICIENT_STORAGE", error.message);
    throw error;
  } finally {
    // An original its format replaced (an unsigned .rpm) is never stored (else: already settled).
    await staged.discard();
  }
}

/**
 * Deletes a file's rows. Its bytes, when no other file shares them, are removed by the sweep
 * after the grace period (releases/blobs.ts, decision 022).
 */
export async function deleteFile(db: Db, release: ReleaseRow, filename: string): Promise<ReleaseFileRow> {
  const file = await db
    .selectFrom("release_file")
    .selectAll()
    .where("release_id", "=", release.id)
    .where("filename", "=", normalizeFilename(filename))
    .executeTakeFirst();
  if (!file) throw notFound("File not found");
  const packaged = isPackaged(file);
  await inTransaction(db, async (tx) => {
    await tx.deleteFrom("release_file").where("id", "=", file.id).execute();
    if (packaged) await recordPackageIndexChange(tx, release.project_id, release.id);
  });
  return file;
}

/** The upload's target in `format`'s repositories: the one given, else the format's default. */
function targetOf(format: PackageFormat, targets: UploadTargets | undefined): unknown {
  return targets && format.id in targets ? targets[format.id] : format.parseTarget(() => undefined);
}

/** Whether a file is in the project's repositories (its deletion changes them). */
export function isPackaged(file: Pick<ReleaseFileRow, "kind">): boolean {
  return formatOfKind(file.kind) !== undefined;
}
