// Changing a project's releases and their files (spec §4): creating, editing, yanking and
// unyanking, deleting a release; uploading and deleting files. Each is one change (use-case.ts):
// authorized here, made on the change's transaction by releases/storage.ts and releases/files.ts,
// with its audit entry and the events webhooks, the publisher and the serving cache hear.
import type { CreateReleaseInput, UpdateReleaseInput } from "@packyard/contract";
import type { SigningKey } from "@packyard/formats/openpgp/index.ts";
import type { LimitsSetting } from "../billing/usage.ts";
import { type Caller, change, type Db, type PersonCaller, type Record } from "../platform/core/use-case.ts";
import type { Logger } from "../platform/observability/logger.ts";
import type { BlobStore } from "../platform/storage/blob-store.ts";
import { type ProjectRow, requireOwnProject } from "../projects/storage.ts";
import * as files from "./files.ts";
import type { ReleaseFileRow, ReleaseRow } from "./storage.ts";
import * as releases from "./storage.ts";

/** A person's caller: releases are changed by a session or a key (jobs have their own entries). */
export type { PersonCaller };

export interface ReleaseUseCaseDeps {
  db: Db;
}

export interface UploadUseCaseDeps extends ReleaseUseCaseDeps {
  blobs: BlobStore;
  /** The project's newest signing key, which an .rpm is signed with before it is stored. */
  keys: { newest(project: ProjectRow): Promise<SigningKey> };
  config: LimitsSetting & { maxUploadBytes: number };
  logger: Pick<Logger, "error">;
}

/** A release as its project and the changed row: what the answers describe. */
export interface ReleaseResult {
  project: ProjectRow;
  release: ReleaseRow;
}

const entryOf = (project: ProjectRow) => ({
  ownerId: project.owner_id,
  projectId: project.id,
  projectSlug: project.slug,
});

/** The project by the ref the caller named, if the caller may publish to it, and its release. */
async function releaseOf(db: Db, caller: PersonCaller, ref: string, version: string): Promise<ReleaseResult> {
  const project = await requireOwnProject(db, caller.actor, ref, "publish");
  return { project, release: await releases.requireRelease(db, project.id, version) };
}

export async function createRelease(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; release: CreateReleaseInput },
): Promise<ReleaseResult> {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, "publish");
  const release = await change(db, caller, async (tx, record) => {
    const row = await releases.createRelease(tx, project.id, input.release);
    record.audit({ ...entryOf(project), action: "release.created", target: row.version });
    record.emit({ type: "release.created", projectId: project.id, releaseId: row.id });
    return row;
  });
  return { project, release };
}

/** Title and notes; an edit that changes neither records nothing. */
export async function updateRelease(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; version: string; changes: UpdateReleaseInput },
): Promise<ReleaseResult> {
  const { db } = deps;
  const { project, release: before } = await releaseOf(db, caller, input.project, input.version);
  const release = await change(db, caller, async (tx, record) => {
    const updated = await releases.updateRelease(tx, before, input.changes);
    const changed = (["title", "notes"] as const).filter((field) => before[field] !== updated[field]);
    if (changed.length)
      record.audit({
        ...entryOf(project),
        action: "release.updated",
        target: updated.version,
        details: { changed },
      });
    return updated;
  });
  return { project, release };
}

/** Yank: hidden from latest and the repositories; its files stay downloadable. */
export async function yankRelease(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; version: string; reason: string },
): Promise<ReleaseResult> {
  const { db } = deps;
  const { project, release: before } = await releaseOf(db, caller, input.project, input.version);
  const release = await change(db, caller, async (tx, record) => {
    const updated = await releases.setYanked(tx, before, { reason: input.reason });
    record.audit({
      ...entryOf(project),
      action: "release.yanked",
      target: before.version,
      details: { reason: input.reason },
    });
    record.emit({ type: "packages-changed", projectId: project.id });
    record.emit({ type: "release.yanked", projectId: project.id, releaseId: before.id });
    return updated;
  });
  return { project, release };
}

/** Undoes a yank; a release that was not yanked is announced and recorded as nothing. */
export async function unyankRelease(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; version: string },
): Promise<ReleaseResult> {
  const { db } = deps;
  const { project, release: before } = await releaseOf(db, caller, input.project, input.version);
  const wasYanked = Number(before.yanked) === 1;
  const release = await change(db, caller, async (tx, record) => {
    const updated = await releases.setYanked(tx, before, null);
    record.emit({ type: "packages-changed", projectId: project.id });
    if (wasYanked) {
      record.audit({ ...entryOf(project), action: "release.unyanked", target: before.version });
      record.emit({ type: "release.unyanked", projectId: project.id, releaseId: before.id });
    }
    return updated;
  });
  return { project, release };
}

export async function deleteRelease(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; version: string },
): Promise<ReleaseResult> {
  const { db } = deps;
  const { project, release } = await releaseOf(db, caller, input.project, input.version);
  await change(db, caller, async (tx, record) => {
    await releases.deleteRelease(tx, release);
    record.audit({ ...entryOf(project), action: "release.deleted", target: release.version });
    record.emit({ type: "packages-changed", projectId: project.id });
  });
  return { project, release };
}

/** What an upload names beyond its project: files.ts's UploadInput, less what the deps give. */
export type FileUpload = Omit<files.UploadInput, "project" | "maxBytes" | "limits" | "rpmSigningKey">;

/** One file into a release; the release is created with it when `createRelease` and it has none. */
export async function uploadReleaseFile(
  deps: UploadUseCaseDeps,
  caller: PersonCaller,
  input: FileUpload & { project: string },
): Promise<ReleaseResult & { file: ReleaseFileRow }> {
  const project = await requireOwnProject(deps.db, caller.actor, input.project, "publish");
  const { release, file } = await storeFile(deps, caller, project, input);
  return { project, release, file };
}

/**
 * Several files into an existing release, stored whole or not at all: `receive` hands each file
 * to `store` as it arrives; when one fails, the files stored before it are deleted again.
 */
export async function uploadReleaseFiles(
  deps: UploadUseCaseDeps,
  caller: PersonCaller,
  input: {
    project: string;
    version: string;
    receive: (
      store: (file: Omit<FileUpload, "version" | "createRelease">) => Promise<ReleaseFileRow>,
    ) => Promise<void>;
  },
): Promise<ReleaseResult & { files: ReleaseFileRow[] }> {
  const { project, release } = await releaseOf(deps.db, caller, input.project, input.version);
  const stored: ReleaseFileRow[] = [];
  try {
    await input.receive(async (upload) => {
      const { file } = await storeFile(deps, caller, project, {
        ...upload,
        version: input.version,
        createRelease: false,
      });
      stored.push(file);
      return file;
    });
  } catch (error) {
    for (const file of stored)
      await removeFile(deps.db, caller, project, release, file.filename).catch((cause) =>
        deps.logger.error(`undoing the upload of ${file.filename} failed`, cause),
      );
    throw error;
  }
  return { project, release, files: stored };
}

async function storeFile(
  deps: UploadUseCaseDeps,
  caller: PersonCaller,
  project: ProjectRow,
  upload: FileUpload,
) {
  const { db, blobs, keys, config } = deps;
  const input: files.UploadInput = {
    ...upload,
    project,
    maxBytes: config.maxUploadBytes,
    limits: config,
    rpmSigningKey: () => keys.newest(project),
  };
  // The bytes are staged before the change; only their recording is in its transaction.
  return files.uploadFile(db, blobs, input, (store) =>
    change(db, caller, async (tx, record) => {
      const stored = await store(tx);
      recordUpload(record, project, stored);
      return stored;
    }),
  );
}

/** The entries and events of a stored upload: the release first when the upload created it. */
function recordUpload(record: Record, project: ProjectRow, stored: files.StoredUpload): void {
  const { release, file } = stored;
  if (stored.releaseCreated) {
    record.audit({ ...entryOf(project), action: "release.created", target: release.version });
    record.emit({ type: "release.created", projectId: project.id, releaseId: release.id });
  }
  record.audit({
    ...entryOf(project),
    action: "file.uploaded",
    target: file.filename,
    details: { version: release.version, size: Number(file.size), sha256: file.sha256 },
  });
  if (stored.packaged) record.emit({ type: "packages-changed", projectId: project.id });
  record.emit({ type: "file.uploaded", projectId: project.id, releaseId: release.id, fileId: file.id });
}

export async function deleteReleaseFile(
  deps: ReleaseUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; version: string; filename: string },
): Promise<ReleaseResult & { file: ReleaseFileRow }> {
  const { project, release } = await releaseOf(deps.db, caller, input.project, input.version);
  const file = await removeFile(deps.db, caller, project, release, input.filename);
  return { project, release, file };
}

function removeFile(
  db: Db,
  caller: PersonCaller,
  project: ProjectRow,
  release: ReleaseRow,
  filename: string,
) {
  return change(db, caller, async (tx, record) => {
    const file = await files.deleteFile(tx, release, filename);
    record.audit({
      ...entryOf(project),
      action: "file.deleted",
      target: filename,
      details: { version: release.version },
    });
    if (files.isPackaged(file)) record.emit({ type: "packages-changed", projectId: project.id });
    record.emit({
      type: "file.deleted",
      projectId: project.id,
      releaseId: release.id,
      file: { filename: file.filename, sha256: file.sha256, kind: file.kind },
    });
    return file;
  });
}

// ---------------------------------------------------------------------------------------------
// A job's changes (an import, a retention run): the same changes and events as a person's, with
// no entry of their own — the job records what it did as a whole (retention.run).

export async function jobCreateRelease(
  deps: ReleaseUseCaseDeps,
  caller: Caller,
  input: { projectId: string; release: CreateReleaseInput },
): Promise<ReleaseRow> {
  return change(deps.db, caller, async (tx, record) => {
    const row = await releases.createRelease(tx, input.projectId, input.release);
    record.emit({ type: "release.created", projectId: input.projectId, releaseId: row.id });
    return row;
  });
}

export async function jobUploadFile(
  deps: Pick<UploadUseCaseDeps, "db" | "blobs">,
  caller: Caller,
  input: files.UploadInput,
): Promise<files.StoredUpload> {
  const { db, blobs } = deps;
  const projectId = input.project.id;
  return files.uploadFile(db, blobs, input, (store) =>
    change(db, caller, async (tx, record) => {
      const stored = await store(tx);
      const { release, file } = stored;
      if (stored.releaseCreated) record.emit({ type: "release.created", projectId, releaseId: release.id });
      if (stored.packaged) record.emit({ type: "packages-changed", projectId });
      record.emit({ type: "file.uploaded", projectId, releaseId: release.id, fileId: file.id });
      return stored;
    }),
  );
}

export async function jobDeleteRelease(
  deps: ReleaseUseCaseDeps,
  caller: Caller,
  release: ReleaseRow,
): Promise<void> {
  await change(deps.db, caller, async (tx, record) => {
    await releases.deleteRelease(tx, release);
    record.emit({ type: "packages-changed", projectId: release.project_id });
  });
}

export async function jobDeleteFile(
  deps: ReleaseUseCaseDeps,
  caller: Caller,
  input: { release: ReleaseRow; filename: string },
): Promise<void> {
  const { release } = input;
  await change(deps.db, caller, async (tx, record) => {
    const file = await files.deleteFile(tx, release, input.filename);
    if (files.isPackaged(file)) record.emit({ type: "packages-changed", projectId: release.project_id });
    record.emit({
      type: "file.deleted",
      projectId: release.project_id,
      releaseId: release.id,
      file: { filename: file.filename, sha256: file.sha256, kind: file.kind },
    });
  });
}
