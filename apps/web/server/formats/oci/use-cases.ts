// The registry's state changes: a blob upload finished, a manifest pushed (and tagged), a
// manifest or tag deleted. The route has checked the caller's grant (access.ts); these make the
// change in one transaction, with its audit entry for what a person sees (manifests and tags;
// blobs are the parts of a push and are not logged one by one).
import { createHash, randomUUID } from "node:crypto";
import {
  assertTag,
  blobsOf,
  isDigestReference,
  OciError,
  type ParsedManifest,
  parseManifest,
  platformName,
  sha256Of,
} from "@packyard/formats/oci/manifest.ts";
import type { Kysely, Transaction } from "kysely";
import { limitsEnabled } from "../../billing/plan.ts";
import { accountHoldings, type LimitsSetting } from "../../billing/usage.ts";
import { assertUploadAllowed } from "../../platform/core/authorization.ts";
import { nowIso } from "../../platform/core/ids.ts";
import { type Caller, change, inTransaction } from "../../platform/core/use-case.ts";
import type { Database } from "../../platform/db/schema.ts";
import { type BlobStore, BlobTooLargeError, type StagedBlob } from "../../platform/storage/blob-store.ts";
import type { ProjectRow } from "../../projects/storage.ts";
import { adoptPlacedBytes, placeBytes, startPlacingBlob } from "../../releases/blobs.ts";
import {
  appendChunk,
  createUpload,
  deleteUpload,
  ensureRepository,
  findRepository,
  heldBlobs,
  heldManifests,
  holdBlobIn,
  type UploadChunk,
} from "./storage.ts";

type Db = Kysely<Database>;

export interface RegistryDeps {
  db: Db;
  blobs: BlobStore;
  /** The largest blob accepted (MAX_UPLOAD_BYTES). */
  maxBytes: number;
  /** Whether plan limits apply (PLAN_LIMITS): storage counts image blobs once per owner. */
  limits: LimitsSetting;
}

/**
 * PLAN_LIMIT unless the owner's plan has room for `bytes` more (a blob about to be received,
 * its size from Content-Length when the client sent one), as for release files.
 */
export async function assertRoomFor(deps: RegistryDeps, project: ProjectRow, bytes: number | undefined) {
  if (!limitsEnabled(deps.limits)) return;
  assertUploadAllowed(await accountHoldings(deps.db, project.owner_id), project, bytes);
}

/** Where an image lives: the project, the image's name in it ("" the default), its full name. */
export interface ImageRef {
  project: ProjectRow;
  image: string;
  name: string;
}

async function repositoryFor(db: Db, ref: ImageRef) {
  return (
    (await findRepository(db, ref.project.id, ref.image)) ??
    (await inTransaction(db, (tx) => ensureRepository(tx, ref.project.id, ref.image)))
  );
}

function tooLarge(error: unknown): never {
  if (error instanceof BlobTooLargeError) throw new OciError("SIZE_INVALID", error.message);
  throw error;
}

async function stage(deps: RegistryDeps, body: AsyncIterable<Uint8Array>): Promise<StagedBlob> {
  return deps.blobs.stage(body, { maxBytes: deps.maxBytes, extraDigestsUpTo: 0 }).catch(tooLarge);
}

/** Records staged bytes as a blob the repository holds, if they are what `digest` names. */
async function keepStaged(deps: RegistryDeps, repositoryId: string, staged: StagedBlob, digest: string) {
  if (staged.sha256 !== sha256Of(digest)) {
    await staged.discard();
    throw new OciError("DIGEST_INVALID", `The content's digest is sha256:${staged.sha256}, not ${digest}`);
  }
  try {
    await inTransaction(deps.db, async (tx) => {
      const { placed } = await startPlacingBlob(tx, staged, nowIso());
      try {
        await holdBlobIn(tx, repositoryId, staged.sha256, staged.size);
        await placed;
      } finally {
        await placed.catch(() => {});
      }
    });
  } finally {
    await staged.discard();
  }
}

/** A whole blob in one request (POST ?digest= or a PUT that finishes an empty upload). */
export async function uploadWholeBlob(
  deps: RegistryDeps,
  ref: ImageRef,
  digest: string,
  body: AsyncIterable<Uint8Array>,
): Promise<void> {
  sha256Of(digest);
  const repository = await repositoryFor(deps.db, ref);
  await keepStaged(deps, repository.id, await stage(deps, body), digest);
}

/** Starts an upload; its id is the Location the client sends its chunks to. */
export async function startUpload(deps: RegistryDeps, ref: ImageRef): Promise<string> {
  const repository = await repositoryFor(deps.db, ref);
  const id = randomUUID();
  await createUpload(deps.db, repository.id, id);
  return id;
}

/**
 * Mounts a blob from another repository the caller may read (checked by the route): true when
 * that repository holds it, and now this one does too.
 */
export async function mountBlob(deps: RegistryDeps, ref: ImageRef, from: ImageRef, digest: string) {
  const sha256 = sha256Of(digest);
  const source = await findRepository(deps.db, from.project.id, from.image);
  if (!source) return false;
  return inTransaction(deps.db, async (tx) => {
    const held = await tx
      .selectFrom("oci_blob")
      .select("size")
      .where("repository_id", "=", source.id)
      .where("sha256", "=", sha256)
      .executeTakeFirst();
    // The blob's row held, and its bytes checked under it: no sweep takes them before the commit.
    if (!held || !(await adoptPlacedBytes(tx, deps.blobs, sha256, Number(held.size), nowIso()))) return false;
    const target = await ensureRepository(tx, ref.project.id, ref.image);
    await holdBlobIn(tx, target.id, sha256, Number(held.size));
    return true;
  });
}

/**
 * A chunk of an upload (PATCH, or the body of the finishing PUT). Stored under its own sha256
 * as it streams in; `start`, from Content-Range, must be where the upload is (416 otherwise).
 */
export async function appendToUpload(
  deps: RegistryDeps,
  upload: { id: string; size: number; chunks: UploadChunk[] },
  body: AsyncIterable<Uint8Array>,
  start: number | undefined,
): Promise<number> {
  if (start !== undefined && start !== upload.size)
    throw new OciError("BLOB_UPLOAD_INVALID", `The upload is at ${upload.size}, not ${start}`, {
      status: 416,
    });
  const staged = await stage(deps, body);
  if (staged.size === 0) {
    await staged.discard();
    return upload.size;
  }
  if (upload.size + staged.size > deps.maxBytes) {
    await staged.discard();
    throw new OciError("SIZE_INVALID", `A blob may be at most ${deps.maxBytes} bytes`);
  }
  try {
    await staged.commit();
  } finally {
    await staged.discard();
  }
  const chunks = [...upload.chunks, { sha256: staged.sha256, size: staged.size }];
  if (!(await appendChunk(deps.db, upload.id, upload.size, chunks)))
    throw new OciError("BLOB_UPLOAD_INVALID", "Another request added to this upload meanwhile", {
      status: 416,
    });
  return upload.size + staged.size;
}

/** Finishes an upload whose chunks make the blob `digest`. */
export async function finishUpload(
  deps: RegistryDeps,
  repositoryId: string,
  upload: { id: string; size: number; chunks: UploadChunk[] },
  digest: string,
): Promise<void> {
  const sha256 = sha256Of(digest);
  const [only] = upload.chunks;
  if (upload.chunks.length === 1 && only?.sha256 === sha256) {
    // The usual push (one PATCH with the whole layer): its chunk is the blob, already stored.
    const kept = await inTransaction(deps.db, async (tx) => {
      if (!(await adoptPlacedBytes(tx, deps.blobs, sha256, only.size, nowIso()))) return false;
      await holdBlobIn(tx, repositoryId, sha256, only.size);
      await deleteUpload(tx, upload.id);
      return true;
    });
    if (!kept) throw new OciError("BLOB_UPLOAD_UNKNOWN", "The upload's content is gone: start it again");
    return;
  }
  const blobs = deps.blobs;
  async function* concatenated() {
    for (const chunk of upload.chunks)
      for await (const bytes of await blobs.open(chunk.sha256)) yield bytes as Uint8Array;
  }
  await keepStaged(deps, repositoryId, await stage(deps, concatenated()), digest);
  await deleteUpload(deps.db, upload.id);
}

/** A manifest pushed by tag or digest: stored, its blobs checked, the tag moved to it. */
export async function pushManifest(
  deps: RegistryDeps,
  caller: Caller,
  ref: ImageRef,
  input: { reference: string; bytes: Uint8Array; contentType: string | undefined },
): Promise<{ sha256: string; manifest: ParsedManifest }> {
  const manifest = parseManifest(input.bytes, input.contentType);
  const sha256 = createHash("sha256").update(input.bytes).digest("hex");
  const byDigest = isDigestReference(input.reference);
  if (byDigest && sha256Of(input.reference) !== sha256)
    throw new OciError("DIGEST_INVALID", `The manifest's digest is sha256:${sha256}, not ${input.reference}`);
  if (!byDigest) assertTag(input.reference);
  const { project } = ref;
  await change(deps.db, caller, async (tx, record) => {
    const pushedBy = await whoPushed(tx, caller);
    const repository = await ensureRepository(tx, project.id, ref.image);
    const needed = blobsOf(manifest).map((d) => sha256Of(d.digest));
    const held = await heldBlobs(tx, repository.id, needed);
    const missing = blobsOf(manifest).find((d) => !held.has(sha256Of(d.digest)));
    if (missing)
      throw new OciError("MANIFEST_BLOB_UNKNOWN", `This image has no blob ${missing.digest}: push it first`, {
        digest: missing.digest,
      });
    const children = manifest.manifests.map((d) => sha256Of(d.digest));
    const present = await heldManifests(tx, repository.id, children);
    const absent = manifest.manifests.find((d) => !present.has(sha256Of(d.digest)));
    if (absent)
      throw new OciError(
        "MANIFEST_BLOB_UNKNOWN",
        `This image has no manifest ${absent.digest}: push it first`,
        {
          digest: absent.digest,
        },
      );
    const now = nowIso();
    await placeBytes(tx, deps.blobs, input.bytes, sha256, now);
    const inserted = await tx
      .insertInto("oci_manifest")
      .values({
        repository_id: repository.id,
        sha256,
        media_type: manifest.mediaType,
        artifact_type: manifest.artifactType ?? null,
        size: input.bytes.byteLength,
        subject: manifest.subject ? sha256Of(manifest.subject.digest) : null,
        annotations: manifest.annotations ? JSON.stringify(manifest.annotations) : null,
        pushed_by: pushedBy,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["repository_id", "sha256"]).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
      const refs = [
        ...needed.map((s) => ({ sha256: s, kind: "blob" as const, platform: null })),
        ...manifest.manifests.map((d) => ({
          sha256: sha256Of(d.digest),
          kind: "manifest" as const,
          platform: d.platform ? platformName(d.platform) : null,
        })),
      ];
      const unique = [...new Map(refs.map((r) => [r.sha256, r])).values()];
      if (unique.length > 0)
        await tx
          .insertInto("oci_manifest_ref")
          .values(unique.map((r) => ({ repository_id: repository.id, manifest: sha256, ...r })))
          .execute();
    }
    if (!byDigest)
      await tx
        .insertInto("oci_tag")
        .values({
          repository_id: repository.id,
          name: input.reference,
          sha256,
          pushed_by: pushedBy,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.columns(["repository_id", "name"]).doUpdateSet({ sha256, pushed_by: pushedBy, updated_at: now }),
        )
        .execute();
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      action: "image.pushed",
      target: byDigest ? `${ref.name}@sha256:${sha256}` : `${ref.name}:${input.reference}`,
      details: { digest: `sha256:${sha256}`, mediaType: manifest.mediaType, size: input.bytes.byteLength },
    });
    record.emit({
      type: "image.pushed",
      projectId: project.id,
      name: ref.name,
      tag: byDigest ? null : input.reference,
      digest: `sha256:${sha256}`,
      mediaType: manifest.mediaType,
      size: input.bytes.byteLength,
    });
  });
  return { sha256, manifest };
}

/** Deletes a tag (by name) or a manifest and every tag on it (by digest): false if none. */
export async function deleteManifest(
  deps: RegistryDeps,
  caller: Caller,
  ref: ImageRef,
  reference: string,
): Promise<boolean> {
  const repository = await findRepository(deps.db, ref.project.id, ref.image);
  if (!repository) return false;
  const byDigest = isDigestReference(reference);
  return change(deps.db, caller, async (tx, record) => {
    let deleted: number;
    if (byDigest) {
      const sha256 = sha256Of(reference);
      await tx
        .deleteFrom("oci_tag")
        .where("repository_id", "=", repository.id)
        .where("sha256", "=", sha256)
        .execute();
      const result = await tx
        .deleteFrom("oci_manifest")
        .where("repository_id", "=", repository.id)
        .where("sha256", "=", sha256)
        .executeTakeFirst();
      deleted = Number(result.numDeletedRows);
    } else {
      const result = await tx
        .deleteFrom("oci_tag")
        .where("repository_id", "=", repository.id)
        .where("name", "=", reference)
        .executeTakeFirst();
      deleted = Number(result.numDeletedRows);
    }
    if (deleted > 0) {
      record.audit({
        ownerId: ref.project.owner_id,
        projectId: ref.project.id,
        action: "image.deleted",
        target: byDigest ? `${ref.name}@${reference}` : `${ref.name}:${reference}`,
      });
      record.emit({
        type: "image.deleted",
        projectId: ref.project.id,
        name: ref.name,
        tag: byDigest ? null : reference,
        digest: byDigest ? reference : null,
      });
    }
    return deleted > 0;
  });
}

/** How the dashboard names who pushed: the account, and the key's name (never a secret). */
async function whoPushed(tx: Transaction<Database>, caller: Caller): Promise<string | null> {
  const { actor } = caller;
  if (actor.kind === "system") return null;
  if (actor.kind === "key" && actor.keyName !== undefined) return actor.keyName;
  const user = await tx
    .selectFrom("user")
    .select("username")
    .where("id", "=", actor.userId)
    .executeTakeFirst();
  const name = user?.username ?? "a deleted account";
  if (actor.kind !== "key") return name;
  const key = await tx.selectFrom("apikey").select("name").where("id", "=", actor.keyId).executeTakeFirst();
  return key?.name ? `${name} · key “${key.name}”` : name;
}

/** Counts a pull: a manifest fetched by tag, or by digest as a platform of an index. */
export async function countPull(
  db: Db,
  repositoryId: string,
  reference: { tag: string } | { sha256: string },
  day: string,
) {
  let platform = "";
  if ("sha256" in reference) {
    const child = await db
      .selectFrom("oci_manifest_ref")
      .select("platform")
      .where("repository_id", "=", repositoryId)
      .where("sha256", "=", reference.sha256)
      .where("kind", "=", "manifest")
      .where("platform", "is not", null)
      .executeTakeFirst();
    platform = child?.platform ?? "";
  }
  const tag = "tag" in reference ? reference.tag : "";
  await db
    .insertInto("oci_pull_day")
    .values({ repository_id: repositoryId, day, tag, platform, pulls: 1 })
    .onConflict((oc) =>
      oc
        .columns(["repository_id", "day", "tag", "platform"])
        .doUpdateSet((eb) => ({ pulls: eb("oci_pull_day.pulls", "+", 1) })),
    )
    .execute();
}

/**
 * Retention of tags (retention/use-cases.ts): deletes the tags of each of the project's images
 * beyond its newest `keep` (by when they were last pushed), as the caller (the retention job);
 * their manifests stay pullable by digest. Returns what went, as `{image}:{tag}`. The run's own
 * audit entry names them; each deletion is announced (image.deleted webhooks).
 */
export async function pruneImageTags(
  db: Db,
  caller: Caller,
  projectId: string,
  keep: number,
): Promise<string[]> {
  const project = await db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .select(["project.slug", "user.username"])
    .where("project.id", "=", projectId)
    .executeTakeFirst();
  if (!project) return [];
  const repositories = await db
    .selectFrom("oci_repository")
    .select(["id", "name"])
    .where("project_id", "=", projectId)
    .execute();
  const removed: string[] = [];
  for (const repository of repositories) {
    const beyond = await db
      .selectFrom("oci_tag")
      .select(["name", "updated_at"])
      .where("repository_id", "=", repository.id)
      .orderBy("updated_at", "desc")
      .orderBy("name")
      .offset(keep)
      .limit(RETENTION_TAGS_PER_RUN)
      .execute();
    if (beyond.length === 0) continue;
    const name = [project.username, project.slug, repository.name].filter(Boolean).join("/").toLowerCase();
    await change(db, caller, async (tx, record) => {
      for (const tag of beyond) {
        // Only if not pushed again since it was read: a tag moved meanwhile is new again.
        const result = await tx
          .deleteFrom("oci_tag")
          .where("repository_id", "=", repository.id)
          .where("name", "=", tag.name)
          .where("updated_at", "=", tag.updated_at)
          .executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) continue;
        removed.push(`${name}:${tag.name}`);
        record.emit({ type: "image.deleted", projectId, name, tag: tag.name, digest: null });
      }
    });
  }
  return removed;
}

/** Tags one retention run deletes per image at most; the next run goes on. */
const RETENTION_TAGS_PER_RUN = 1000;
