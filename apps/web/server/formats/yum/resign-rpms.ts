// The resign-rpms job (decision 030): after a rotation, every .rpm a project serves that a key
// other than the newest signed is re-signed by the newest key (the successor), during the
// overlap. Per file: the stored bytes are read, their signature replaced (sign-rpm.ts), the new
// bytes placed as a new blob, and the release file and its yum_package row switched to them in
// one transaction that records a package index change, so the YUM repository is re-published
// with the new checksums. The old blob is left to the sweep (decision 022): downloads under way
// keep reading it through the grace period. Files are taken in batches, each its own
// transaction, so a project with thousands of packages never holds one; a retry resumes where
// the last attempt stopped (what is done is recorded per file).
import type { Kysely } from "kysely";
import { nowIso } from "../../platform/core/ids.ts";
import type { Database } from "../../platform/db/schema.ts";
import type { JobDefinition, JobQueue } from "../../platform/jobs/queue.ts";
import type { Logger } from "../../platform/observability/logger.ts";
import type { BlobStore } from "../../platform/storage/blob-store.ts";
import { deleteOrphanBytes, placeBlob } from "../../releases/blobs.ts";
import { recordPackageIndexChange } from "../../repositories/changes.ts";
import type { RepositoryPublisher } from "../../repositories/publisher.ts";
import type { SigningKeyService } from "../../signing-keys/keys.ts";
import { signStagedRpm, yumRecord } from "./ingest.ts";
import { keysToServe } from "./rpm-signers.ts";

export const RESIGN_RPMS_JOB = "resign-rpms";
/** Files read per query; each is switched in its own transaction. */
export const RESIGN_BATCH = 50;

export interface ResignDeps {
  db: Kysely<Database>;
  blobs: BlobStore;
  keys: Pick<SigningKeyService, "newest" | "all" | "active">;
  repos: Pick<RepositoryPublisher, "publish">;
  logger: Logger;
}

type Db = Kysely<Database>;

/** The project's .rpm files not signed by `newest`, after `after` (file id order). */
function staleRpms(db: Db, projectId: string, newest: string, after: string) {
  return db
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .select([
      "yum_package.file_id",
      "yum_package.repo_group",
      "release_file.release_id",
      "release_file.filename",
      "release_file.sha256",
      "release_file.size",
      "release_file.created_at",
    ])
    .where("yum_package.project_id", "=", projectId)
    .where((eb) =>
      eb.or([eb("yum_package.signed_by", "is", null), eb("yum_package.signed_by", "!=", newest)]),
    )
    .where("yum_package.file_id", ">", after)
    .orderBy("yum_package.file_id")
    .limit(RESIGN_BATCH)
    .execute();
}

type StaleRpm = Awaited<ReturnType<typeof staleRpms>>[number];

/** Re-signs one file; false when it was deleted or re-signed by someone else meanwhile. */
async function resignOne(
  deps: ResignDeps,
  projectId: string,
  rpm: StaleRpm,
  key: Awaited<ReturnType<SigningKeyService["newest"]>>,
): Promise<boolean> {
  const { db, blobs } = deps;
  // Not the payload digest: a file stored before uploads checked it is re-signed as it is,
  // rather than failing the rotation's job on every attempt.
  const signed = await signStagedRpm(
    blobs,
    { read: () => blobs.read(rpm.sha256) },
    key,
    Number(rpm.size),
    false,
  );
  const record = yumRecord(
    signed,
    { filename: rpm.filename, releaseId: rpm.release_id, createdAt: rpm.created_at },
    rpm.repo_group,
  );
  const { staged } = signed;
  let placing = false;
  try {
    const switched = await db.transaction().execute(async (tx) => {
      placing = true;
      await placeBlob(tx, staged, nowIso());
      // Only the bytes this pass read: a file deleted, or re-signed by a concurrent attempt,
      // is left as it is.
      const updated = await tx
        .updateTable("release_file")
        .set({
          size: staged.size,
          sha256: staged.sha256,
          sha512: staged.sha512,
          md5: staged.md5,
          sha1: staged.sha1,
        })
        .where("id", "=", rpm.file_id)
        .where("sha256", "=", rpm.sha256)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await tx
        .updateTable("yum_package")
        .set({
          location: record.location,
          primary_xml: record.primary_xml,
          filelists_xml: record.filelists_xml,
          other_xml: record.other_xml,
          signed_by: key.fingerprint,
        })
        .where("file_id", "=", rpm.file_id)
        .execute();
      await recordPackageIndexChange(tx, projectId, rpm.release_id);
      return true;
    });
    if (!switched) await deleteOrphanBytes(db, blobs, staged.sha256).catch(() => {});
    return switched;
  } catch (error) {
    await staged.discard();
    if (placing) await deleteOrphanBytes(db, blobs, staged.sha256).catch(() => {});
    throw error;
  }
}

/**
 * Re-signs every .rpm of the project that the newest key did not sign, then re-publishes its
 * repositories. Returns how many files were re-signed.
 */
export async function resignProjectRpms(deps: ResignDeps, projectId: string): Promise<number> {
  const project = await deps.db
    .selectFrom("project")
    .select(["id", "name"])
    .where("id", "=", projectId)
    .executeTakeFirst();
  if (!project) return 0;
  const key = await deps.keys.newest(project);
  let resigned = 0;
  let after = "";
  for (;;) {
    const batch = await staleRpms(deps.db, project.id, key.fingerprint, after);
    for (const rpm of batch) if (await resignOne(deps, project.id, rpm, key)) resigned++;
    if (batch.length < RESIGN_BATCH) break;
    after = batch[batch.length - 1]!.file_id;
  }
  if (resigned > 0) {
    deps.logger.info(`re-signed ${resigned} .rpm file(s) of project ${project.id} with ${key.fingerprint}`);
    await deps.repos.publish(project.id);
  }
  return resigned;
}

export function resignRpmsJob(deps: ResignDeps): JobDefinition<{ projectId: string }> {
  return {
    name: RESIGN_RPMS_JOB,
    run: async ({ projectId }) => {
      await resignProjectRpms(deps, projectId);
    },
    retryLimit: 10,
    retryDelaySeconds: 30,
    retryDelayMaxSeconds: 3600,
    // A long pass that is taken for lost is retried by another server: both are safe together
    // (each file switches only from the bytes it read), and the retry skips what is done.
    expireInSeconds: 3600,
    coalesceByKey: true,
    concurrency: 1,
  };
}

/** Queues the re-signing of the project's .rpm files (after a rotation). */
export function queueRpmResign(jobs: Pick<JobQueue, "send">, projectId: string): Promise<void> {
  return jobs.send(RESIGN_RPMS_JOB, { projectId }, { key: projectId });
}

/** Projects serving an .rpm that their newest key did not sign (the lifecycle job's catch-up). */
export async function projectsWithStaleRpms(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("yum_package")
    .select("yum_package.project_id")
    .distinct()
    .where((eb) =>
      eb.or([
        eb("yum_package.signed_by", "is", null),
        eb.not(
          eb.exists(
            eb
              .selectFrom("signing_key as newest")
              .select("newest.id")
              .whereRef("newest.project_id", "=", "yum_package.project_id")
              .whereRef("newest.fingerprint", "=", "yum_package.signed_by")
              .where((k) =>
                k.not(
                  k.exists(
                    k
                      .selectFrom("signing_key as later")
                      .select("later.id")
                      .whereRef("later.project_id", "=", "newest.project_id")
                      .whereRef("later.generation", ">", "newest.generation"),
                  ),
                ),
              ),
          ),
        ),
      ]),
    )
    .execute();
  return rows.map((r) => r.project_id);
}

/** The public keys gpg.key serves: the active ones and any a served .rpm still needs. */
export async function rpmVerifyingKeys(
  deps: Pick<ResignDeps, "db" | "keys">,
  project: { id: string; name: string },
) {
  const { rows } = await deps.keys.active(project);
  const signers = await deps.db
    .selectFrom("yum_package")
    .select("signed_by")
    .distinct()
    .where("project_id", "=", project.id)
    .execute();
  const all = await deps.keys.all(project.id);
  return keysToServe(
    all,
    rows.map((r) => r.fingerprint),
    new Set(signers.map((s) => s.signed_by)),
  );
}
