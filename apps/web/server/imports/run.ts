// The import job (decision 028): reads the source's releases and imports them oldest first, one
// release at a time, each whole or not at all.
//
// - A release whose version the project has with every file the source lists is skipped; one
//   that lacks some of them gets the missing ones. So a re-run imports only what is new, and a
//   job retried after a crash (pg-boss) resumes where it stopped.
// - A release's files are first downloaded to a spool directory (the source verifies sizes and
//   checksums as they stream); only when every file is in hand is the release created and its
//   files uploaded through releases/files.ts uploadFile, the path every upload takes (so .deb and
//   .rpm files land in the repositories and plan limits apply). If anything fails, what this
//   run created for that release is deleted again, and the failure is recorded with its code.
// - Progress is written to the import row after each file; the dashboard polls it.
// - Secrets are read from the row by the job itself; the job's data is the import's id only.
// - Bounded (decision 056): an import has IMPORT_TIME_LIMIT_MS from its first start, after which
//   it ends failed (TIMED_OUT) keeping the releases it imported; its job starts at most
//   IMPORT_ATTEMPTS times, counted on the row, so an import that takes the server down with it is
//   not resumed at every start for ever. A failed import is never resumed.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import {
  filenameProblem,
  type ImportErrorCodeName,
  type ImportFailure,
  type ImportProgress,
  normalizeFilename,
  releaseVersion,
} from "@packyard/contract";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import type { Kysely } from "kysely";
import type { Config } from "../platform/config/config.ts";
import { DomainError } from "../platform/core/errors.ts";
import { SYSTEM } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import type { JobDefinition, JobQueue } from "../platform/jobs/queue.ts";
import type { Logger } from "../platform/observability/logger.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import type { ProjectRow } from "../projects/storage.ts";
import { findRelease, listFileRows, type ReleaseRow } from "../releases/storage.ts";
import { jobCreateRelease, jobDeleteFile, jobDeleteRelease, jobUploadFile } from "../releases/use-cases.ts";
import type { SigningKeyService } from "../signing-keys/keys.ts";
import { ImportError, type ImportSource, type SourceRelease } from "./source.ts";
import { createImportSource, type SourceDeps } from "./sources.ts";
import {
  countImportAttempt,
  emptyProgress,
  findImportRow,
  sourceOf,
  unfinishedImports,
  updateImportRow,
} from "./store.ts";

export const IMPORT_JOB = "import-releases";
/**
 * Starts of an import's job before it is given up (a retry resumes where it stopped): retries
 * after a failure, and resumptions after the server stopped while it ran, together.
 */
export const IMPORT_ATTEMPTS = 4;
/**
 * How long an import may take from its first start, retries and restarts included; under the
 * job's expiry (expireInSeconds), so a running import is never taken for a lost one.
 */
export const IMPORT_TIME_LIMIT_MS = 4 * 3600 * 1000;

type Db = Kysely<Database>;

export interface ImportDeps {
  db: Db;
  blobs: BlobStore;
  keys: Pick<SigningKeyService, "newest">;
  config: Pick<
    Config,
    "secret" | "maxUploadBytes" | "planLimits" | "dataDir" | "githubApiUrl" | "webhookAllowPrivate"
  >;
  logger: Logger;
  /** For tests: sources built another way. */
  createSource?: (input: Parameters<typeof createImportSource>[0], deps: SourceDeps) => ImportSource;
  /** For tests: another time limit than IMPORT_TIME_LIMIT_MS. */
  timeLimitMs?: number;
}

export function importJob(deps: ImportDeps): JobDefinition<{ importId: string }> {
  return {
    name: IMPORT_JOB,
    run: ({ importId }) => runImport(deps, importId),
    // Every attempt failed for a reason of Packyard's own (the database, the disk): the import
    // ends as failed, with what stopped it, instead of staying "running".
    giveUp: ({ importId }, error) => abandonImport(deps, importId, error),
    // A retry resumes: releases already imported are skipped.
    retryLimit: IMPORT_ATTEMPTS - 1,
    retryDelaySeconds: 30,
    retryDelayMaxSeconds: 600,
    // An import of many large files takes long; a dead server's job is found by its heartbeat.
    expireInSeconds: 6 * 3600,
    coalesceByKey: true,
    concurrency: 2,
  };
}

/** Queues an import's job (keyed by its id: one waits at a time). */
export async function queueImport(jobs: Pick<JobQueue, "send">, importId: string): Promise<void> {
  await jobs.send(IMPORT_JOB, { importId }, { key: importId });
}

/**
 * SQLite keeps no jobs across a restart: imports that were queued or running when the process
 * stopped are queued again (and resume), unless their job has started IMPORT_ATTEMPTS times
 * already: then the server stopped during each of them (perhaps because of them), and the
 * import ends failed instead. The queue runs two at a time. On PostgreSQL pg-boss still holds
 * their jobs, and the job itself makes the same check.
 */
export async function resumeUnfinishedImports(db: Db, jobs: JobQueue, logger: Logger): Promise<void> {
  if (jobs.engine !== "in-process") return;
  let resumed = 0;
  for (const { id, attempts } of await unfinishedImports(db)) {
    if (attempts >= IMPORT_ATTEMPTS) {
      await failAfterAttempts(db, id, attempts);
      logger.warn(`import ${id} was started ${attempts} times without finishing: not resumed`);
    } else {
      await queueImport(jobs, id);
      resumed++;
    }
  }
  if (resumed > 0) logger.info(`resuming ${resumed} unfinished import(s)`);
}

/** Ends an import whose job has had its attempts without ending it: failed, keeping its progress. */
async function failAfterAttempts(db: Db, importId: string, attempts: number): Promise<void> {
  await endWithFatalError(db, importId, {
    version: null,
    code: "INTERNAL_ERROR",
    message: `The import was started ${attempts} times without finishing (the server stopped while it ran); it is not tried again`,
    subject: null,
  });
}

type FailureCode = ImportErrorCodeName;

class ReleaseFailure extends Error {
  readonly code: FailureCode;
  readonly subject: string | null;
  constructor(code: FailureCode, message: string, subject: string | null) {
    super(message);
    this.code = code;
    this.subject = subject;
  }
}

function failureOf(error: unknown): ReleaseFailure {
  if (error instanceof ReleaseFailure) return error;
  if (error instanceof ImportError)
    return new ReleaseFailure(error.code, error.message, error.subject ?? null);
  return new ReleaseFailure(
    "INTERNAL_ERROR",
    `Unexpected failure: ${(error as Error)?.message ?? error}`,
    null,
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "4 hours", "90 minutes", "2 seconds". */
function formatDuration(ms: number): string {
  if (ms >= 3600_000 && ms % 3600_000 === 0) return plural(ms / 3600_000, "hour");
  if (ms >= 60_000 && ms % 60_000 === 0) return plural(ms / 60_000, "minute");
  return plural(Math.round(ms / 1000), "second");
}

/** "Imported 12 releases (34 files, 56 MB); skipped 3 already present; 1 failed: 1.2.0 — …" */
export function importSummary(progress: ImportProgress, errors: ImportFailure[]): string {
  const fatal = errors.find((e) => e.version === null);
  if (fatal) return `Import failed: ${fatal.code} — ${fatal.message}`;
  const parts = [
    `Imported ${plural(progress.releasesDone, "release")} (${plural(progress.filesDone, "file")}, ${formatFileSize(progress.bytesDone)})`,
  ];
  if (progress.releasesSkipped > 0) parts.push(`skipped ${progress.releasesSkipped} already present`);
  if (errors.length > 0)
    parts.push(
      `${errors.length} failed: ${errors.map((e) => `${e.version} — ${e.code}: ${e.message}`).join("; ")}`,
    );
  return parts.join("; ");
}

/** Oldest first; releases without a date keep the source's order, before the dated ones. */
function oldestFirst(releases: SourceRelease[]): SourceRelease[] {
  return releases
    .map((release, index) => ({ release, index }))
    .sort((a, b) => {
      const x = a.release.publishedAt ?? "";
      const y = b.release.publishedAt ?? "";
      return x < y ? -1 : x > y ? 1 : a.index - b.index;
    })
    .map((entry) => entry.release);
}

export async function runImport(deps: ImportDeps, importId: string): Promise<void> {
  const { db, logger } = deps;
  const row = await findImportRow(db, importId);
  if (!row || !["queued", "running"].includes(row.status)) return;
  const project = await db
    .selectFrom("project")
    .selectAll()
    .where("id", "=", row.project_id)
    .executeTakeFirst();
  if (!project) return;
  // Counted before anything is read: an attempt the process dies in is counted too.
  const attempts = await countImportAttempt(db, importId);
  if (attempts > IMPORT_ATTEMPTS) {
    await failAfterAttempts(db, importId, attempts - 1);
    return;
  }

  const progress = emptyProgress();
  const errors: ImportFailure[] = [];
  const save = () => updateImportRow(db, importId, { progress, errors });
  const startedAt = row.started_at ?? new Date().toISOString();
  await updateImportRow(db, importId, {
    status: "running",
    progress,
    errors,
    ...(row.started_at ? {} : { startedAt }),
  });

  const spool = join(deps.config.dataDir, "import-spool", importId);
  const controller = new AbortController();
  const limitMs = deps.timeLimitMs ?? IMPORT_TIME_LIMIT_MS;
  const timedOut = new ImportError(
    "TIMED_OUT",
    `The import did not finish within ${formatDuration(limitMs)}; the releases it imported are kept, and importing again goes on from there`,
  );
  // Aborting stops whatever is being read or downloaded; the loop below then ends the import.
  const deadline = setTimeout(
    () => controller.abort(timedOut),
    Math.max(0, Date.parse(startedAt) + limitMs - Date.now()),
  );
  try {
    let releases: SourceRelease[];
    try {
      const input = sourceOf(row, deps.config.secret);
      const sourceDeps: SourceDeps = {
        githubApiUrl: deps.config.githubApiUrl,
        allowPrivate: deps.config.webhookAllowPrivate,
      };
      const source = (deps.createSource ?? createImportSource)(input, sourceDeps);
      releases = oldestFirst(await source.listReleases(controller.signal));
    } catch (error) {
      const failure = failureOf(controller.signal.aborted ? timedOut : error);
      if (failure.code === "INTERNAL_ERROR") throw error;
      errors.push({ version: null, code: failure.code, message: failure.message, subject: failure.subject });
      await finish(deps, importId, progress, errors);
      return;
    }
    progress.releasesTotal = releases.length;
    await save();

    for (const release of releases) {
      if (controller.signal.aborted) break;
      progress.current = release.version;
      await save();
      // Files count as they arrive; a release that fails after some takes its counts back.
      const before = { files: progress.filesDone, bytes: progress.bytesDone };
      try {
        const imported = await importRelease(
          deps,
          project,
          release,
          spool,
          controller.signal,
          async (bytes) => {
            progress.filesDone += 1;
            progress.bytesDone += bytes;
            await save();
          },
        );
        if (imported) progress.releasesDone += 1;
        else progress.releasesSkipped += 1;
      } catch (error) {
        progress.filesDone = before.files;
        progress.bytesDone = before.bytes;
        // Out of time: not this release's failure, but the import's (below).
        if (controller.signal.aborted) break;
        const failure = failureOf(error);
        if (failure.code === "INTERNAL_ERROR")
          logger.error(`import ${importId}: ${release.version} failed`, error);
        progress.releasesFailed += 1;
        errors.push({
          version: release.version,
          code: failure.code,
          message: failure.message,
          subject: failure.subject,
        });
      }
      progress.current = null;
      await save();
    }
    if (controller.signal.aborted) {
      progress.current = null;
      errors.push({ version: null, code: timedOut.code, message: timedOut.message, subject: null });
    }
    await finish(deps, importId, progress, errors);
  } finally {
    clearTimeout(deadline);
    controller.abort();
    await rm(spool, { recursive: true, force: true }).catch(() => {});
  }
}

/** Ends an import whose job gave up: failed, keeping the progress it had made. */
export async function abandonImport(deps: ImportDeps, importId: string, error: unknown): Promise<void> {
  await endWithFatalError(deps.db, importId, {
    version: null,
    code: "INTERNAL_ERROR",
    message: `The import stopped after ${IMPORT_ATTEMPTS} attempts: ${(error as Error)?.message ?? error}`,
    subject: null,
  });
}

/** Ends an unfinished import as failed with `fatal`, keeping the progress it had made. */
async function endWithFatalError(db: Db, importId: string, fatal: ImportFailure): Promise<void> {
  const row = await findImportRow(db, importId);
  if (!row || !["queued", "running"].includes(row.status)) return;
  const progress = { ...(JSON.parse(row.progress) as ImportProgress), current: null };
  const errors = [...(JSON.parse(row.errors) as ImportFailure[]), fatal];
  await updateImportRow(db, importId, {
    status: "failed",
    progress,
    errors,
    summary: importSummary(progress, errors),
    finishedAt: new Date().toISOString(),
  });
}

async function finish(deps: ImportDeps, importId: string, progress: ImportProgress, errors: ImportFailure[]) {
  const imported = progress.releasesDone + progress.releasesSkipped;
  // An error of the whole import (version null: the source, the time limit) fails it, whatever
  // releases it brought in before.
  const fatal = errors.some((error) => error.version === null);
  const status = errors.length === 0 ? "succeeded" : imported > 0 && !fatal ? "partial" : "failed";
  const summary = importSummary(progress, errors);
  await updateImportRow(deps.db, importId, {
    status,
    progress,
    errors,
    summary,
    finishedAt: new Date().toISOString(),
  });
  deps.logger.info(`import ${importId} ${status}: ${summary}`);
}

/**
 * Imports one release: true when something was added, false when the project had it all.
 * Throws ReleaseFailure or ImportError; what it created by then is deleted again.
 */
async function importRelease(
  deps: ImportDeps,
  project: ProjectRow,
  release: SourceRelease,
  spool: string,
  signal: AbortSignal,
  fileDone: (bytes: number) => Promise<void>,
): Promise<boolean> {
  const { db, config } = deps;
  const version = release.version;
  const parsedVersion = releaseVersion.safeParse(version);
  if (!parsedVersion.success)
    throw new ReleaseFailure(
      "SOURCE_INVALID",
      `${version} is not a valid Packyard version: ${parsedVersion.error.issues[0]?.message}`,
      version,
    );
  // Every name checked before a byte is read.
  const names = new Set<string>();
  for (const file of release.files) {
    const name = normalizeFilename(file.filename);
    const problem = filenameProblem(name);
    if (problem) throw new ReleaseFailure("FILE_REFUSED", `${file.filename}: ${problem}`, file.filename);
    if (names.has(name))
      throw new ReleaseFailure("FILE_REFUSED", `${file.filename} is listed twice`, file.filename);
    names.add(name);
    if (file.size !== undefined && file.size > config.maxUploadBytes)
      throw new ReleaseFailure(
        "FILE_REFUSED",
        `${file.filename} (${formatFileSize(file.size)}) is larger than this server's upload limit of ${formatFileSize(config.maxUploadBytes)}`,
        file.filename,
      );
  }

  const existing = await findRelease(db, project.id, version);
  const present = new Set(existing ? (await listFileRows(db, existing.id)).map((f) => f.filename) : []);
  const missing = release.files.filter((f) => !present.has(normalizeFilename(f.filename)));
  if (existing && missing.length === 0) return false;

  // Every missing file into the spool first.
  const dir = join(spool, "release");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    const spooled: { filename: string; path: string; size: number }[] = [];
    for (const [index, file] of missing.entries()) {
      const path = join(dir, String(index));
      const size = await download(file.open.bind(file), path, signal, config.maxUploadBytes, file.filename);
      spooled.push({ filename: normalizeFilename(file.filename), path, size });
    }

    // All in hand: the release, then its files.
    let created: ReleaseRow | undefined;
    let target = existing;
    if (!target) {
      try {
        target = created = await jobCreateRelease({ db }, SYSTEM, {
          projectId: project.id,
          release: {
            version,
            title: release.title?.trim().slice(0, 200) || undefined,
            notes: release.notes?.slice(0, 100_000) || undefined,
          },
        });
      } catch (error) {
        if (!(error instanceof DomainError && error.code === "VERSION_EXISTS")) throw error;
        // Another run made it meanwhile: add to it.
        target = await findRelease(db, project.id, version);
        if (!target) throw error;
      }
    }
    const uploaded: string[] = [];
    try {
      for (const file of spooled) {
        try {
          await jobUploadFile({ db, blobs: deps.blobs }, SYSTEM, {
            project,
            version,
            filename: file.filename,
            body: createReadStream(file.path),
            declaredSize: file.size,
            maxBytes: config.maxUploadBytes,
            createRelease: false,
            rpmSigningKey: () => deps.keys.newest(project),
            limits: config,
          });
        } catch (error) {
          if (error instanceof DomainError && error.code === "FILE_EXISTS") continue;
          if (error instanceof DomainError)
            throw new ReleaseFailure(
              "FILE_REFUSED",
              `${file.filename}: ${error.message} (${error.code})`,
              file.filename,
            );
          throw error;
        }
        uploaded.push(file.filename);
        await fileDone(file.size);
      }
    } catch (error) {
      // Nothing of this release is kept: the release this run created, or the files it added.
      if (created)
        await jobDeleteRelease({ db }, SYSTEM, created).catch((e) =>
          deps.logger.error("undoing an import failed", e),
        );
      else if (target)
        for (const filename of uploaded)
          await jobDeleteFile({ db }, SYSTEM, { release: target, filename }).catch((e) =>
            deps.logger.error("undoing an import failed", e),
          );
      throw error;
    }
    return true;
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

/** The file's bytes into `path`; its size. At most maxBytes (else FILE_REFUSED). */
async function download(
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>,
  path: string,
  signal: AbortSignal,
  maxBytes: number,
  filename: string,
): Promise<number> {
  const stream = await open(signal);
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.byteLength;
      if (size > maxBytes)
        callback(
          new ReleaseFailure(
            "FILE_REFUSED",
            `${filename} is larger than this server's upload limit of ${formatFileSize(maxBytes)}`,
            filename,
          ),
        );
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(stream as NodeReadableStream<Uint8Array>),
      count,
      createWriteStream(path),
    );
  } catch (error) {
    if (error instanceof ImportError || error instanceof ReleaseFailure) throw error;
    if (signal.aborted) throw error;
    throw new ImportError(
      "SOURCE_UNREACHABLE",
      `Downloading ${filename} failed: ${(error as Error).message}`,
      filename,
    );
  }
  return size;
}
