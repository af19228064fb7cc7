// The npm registry's state changes (docs/npm.md): a version published (a file of the Packyard
// release of the same version, through uploadReleaseFile: file.uploaded, and release.created
// when the upload made the release), a dist-tag set or removed, a version deprecated or
// undeprecated, a version or a whole package unpublished (the release file deleted through
// deleteReleaseFile: file.deleted). Each is audited once, by the change that makes it.
import { createHash } from "node:crypto";
import { releaseVersion } from "@packyard/contract";
import { assertPackageName, NpmPackageError, readTarballManifest } from "@packyard/formats/npm/package.ts";
import semver from "semver";
import { DomainError, notFound } from "../../platform/core/errors.ts";
import { nowIso } from "../../platform/core/ids.ts";
import { change, type PersonCaller } from "../../platform/core/use-case.ts";
import { type ProjectRow, requireOwnProject, usernameOf } from "../../projects/storage.ts";
import { deleteReleaseFile, type UploadUseCaseDeps, uploadReleaseFile } from "../../releases/use-cases.ts";
import { releaseFilename, servedDeprecation } from "./packument.ts";
import {
  distTagVersion,
  findVersion,
  forgetUnpublished,
  isUnpublished,
  packageVersionSummaries,
  publishTokenClaims,
  recordUnpublished,
  removeDistTag,
  removeTagsOfVersions,
  setDeprecated,
  setDistTag,
} from "./storage.ts";

export interface NpmDeps extends UploadUseCaseDeps {
  /** The server's clock (the unpublish window). */
  clock: () => Date;
}

/** How long after its publish a version may be unpublished: npm's own rule. */
export const UNPUBLISH_WINDOW_HOURS = 72;

const entryOf = (project: ProjectRow) => ({
  ownerId: project.owner_id,
  projectId: project.id,
  projectSlug: project.slug,
});

/** A reader's refusal (a bad name, a broken tarball) as the API's error. */
export function asDomainError(error: unknown): unknown {
  if (error instanceof NpmPackageError) return new DomainError(error.code, error.message);
  return error;
}

export function assertName(name: string): void {
  try {
    assertPackageName(name);
  } catch (error) {
    throw asDomainError(error);
  }
}

/** A version npm publishes (semver) that a Packyard release may also be named. */
export function assertNpmVersion(version: string): void {
  if (semver.valid(version) !== version)
    throw new DomainError("INVALID_VERSION", `${version.slice(0, 130)} is not a valid semver version`);
  const release = releaseVersion.safeParse(version);
  if (!release.success)
    throw new DomainError(
      "INVALID_VERSION",
      `${version.slice(0, 130)} cannot be a Packyard release's version: ${release.error.issues[0]?.message}`,
    );
}

/** A dist-tag npm accepts: not a version or range (`npm install pkg@tag` must mean the tag). */
export function assertTag(tag: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(tag))
    throw new DomainError(
      "VALIDATION_FAILED",
      "A dist-tag is letters, digits, '.', '_' and '-', starting with a letter or digit (at most 128)",
    );
  if (semver.validRange(tag))
    throw new DomainError("VALIDATION_FAILED", `${tag} looks like a version range: tags may not be ranges`);
}

/** Whether `integrity` (an SRI string, several hashes allowed) names the tarball's hashes. */
function integrityProblem(
  bytes: Uint8Array,
  declared: { integrity?: unknown; shasum?: unknown },
): string | undefined {
  const sha512 = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
  const sha1 = createHash("sha1").update(bytes).digest("hex");
  const integrity = typeof declared.integrity === "string" ? declared.integrity.trim() : "";
  const shasum = typeof declared.shasum === "string" ? declared.shasum.trim().toLowerCase() : "";
  if (!integrity && !shasum) return "The version's dist.integrity (or dist.shasum) is missing";
  const entries = integrity.split(/\s+/).filter(Boolean);
  const strong = entries.filter((e) => e.startsWith("sha512-")).map((e) => e.replace(/\?.*$/, ""));
  if (strong.length > 0 && !strong.includes(sha512))
    return `The tarball's integrity is ${sha512}, not the ${strong[0]} of dist.integrity`;
  const weak = entries.filter((e) => e.startsWith("sha1-")).map((e) => e.replace(/\?.*$/, ""));
  const sha1Sri = `sha1-${Buffer.from(sha1, "hex").toString("base64")}`;
  if (weak.length > 0 && !weak.includes(sha1Sri))
    return `The tarball's sha1 integrity is ${sha1Sri}, not the ${weak[0]} of dist.integrity`;
  if (shasum && shasum !== sha1) return `The tarball's shasum is ${sha1}, not the ${shasum} of dist.shasum`;
  if (strong.length === 0 && weak.length === 0 && !shasum)
    return "dist.integrity names no sha512 or sha1 hash of the tarball";
  return undefined;
}

function published(version: string, name: string) {
  return new DomainError(
    "VERSION_EXISTS",
    `You cannot publish over the previously published versions: ${name}@${version} exists`,
  );
}

function unpublishedBefore(version: string, name: string) {
  return new DomainError(
    "VERSION_EXISTS",
    `${name}@${version} was unpublished and cannot be published again: publish a new version`,
  );
}

export interface PublishInput {
  /** "owner/slug". */
  project: string;
  name: string;
  version: string;
  /** The version's manifest from the publish body (package.json and what npm adds). */
  manifest: Record<string, unknown>;
  tarball: Uint8Array;
  /** dist-tags the publish sets (npm sends `{ [tag]: version }`; none: latest). */
  tags: string[];
}

/**
 * A version published: its tarball checked against what the body declares (integrity, shasum)
 * and against its own package.json (name, version), then stored as the release file
 * `acme-sdk-1.2.0.tgz` of the release `1.2.0`, with its npm row and tags in the same transaction.
 */
export async function publishVersion(deps: NpmDeps, caller: PersonCaller, input: PublishInput) {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, "publish");
  const { name, version, manifest } = input;
  assertName(name);
  assertNpmVersion(version);
  for (const tag of input.tags) assertTag(tag);
  const dist = (manifest.dist ?? {}) as Record<string, unknown>;
  const problem = integrityProblem(input.tarball, dist);
  if (problem) throw new DomainError("VALIDATION_FAILED", problem);
  if (await findVersion(db, project.id, name, version)) throw published(version, name);
  if (await isUnpublished(db, project.id, name, version)) throw unpublishedBefore(version, name);

  const sha512 = `sha512-${createHash("sha512").update(input.tarball).digest("base64")}`;
  const shasum = createHash("sha1").update(input.tarball).digest("hex");
  const provenance =
    caller.actor.kind === "key" && caller.actor.publishOnly
      ? await publishTokenClaims(db, caller.actor.keyId)
      : null;
  const publishedBy = (await usernameOf(db, caller.actor.userId)) || null;
  const stored = storedManifest(manifest, { name, version, integrity: sha512, shasum });
  const maxDecompressedBytes = Math.max(256 * 1024 * 1024, deps.config.maxUploadBytes * 4);

  const bytes = input.tarball;
  const result = await uploadReleaseFile(deps, caller, {
    project: input.project,
    version,
    filename: releaseFilename(name, version),
    body: (async function* () {
      yield bytes;
    })(),
    declaredSize: bytes.byteLength,
    createRelease: true,
    attach: {
      // The package.json inside the tarball must be the version published.
      async ingest(staged) {
        const inside = await readTarballManifest(staged.read(), { maxDecompressedBytes }).catch((error) => {
          throw asDomainError(error);
        });
        if (inside.manifest.name !== name || inside.manifest.version !== version)
          throw new DomainError(
            "VALIDATION_FAILED",
            `The tarball's package.json is ${String(inside.manifest.name)}@${String(inside.manifest.version)}, not ${name}@${version}`,
          );
        return null;
      },
      async store(tx, file) {
        if (await isUnpublished(tx, project.id, name, version)) throw unpublishedBefore(version, name);
        await tx
          .insertInto("npm_version")
          .values({
            file_id: file.id,
            project_id: project.id,
            name,
            version,
            manifest: JSON.stringify(stored),
            integrity: sha512,
            shasum,
            deprecated: null,
            provenance,
            published_by: publishedBy,
            created_at: file.createdAt,
          })
          .execute();
        for (const tag of input.tags.length > 0 ? input.tags : ["latest"])
          await setDistTag(tx, project.id, name, tag, version, file.createdAt);
      },
    },
  }).catch(async (error: unknown) => {
    // Two publishes of one version at once: the loser's file or row is a duplicate.
    if (error instanceof DomainError && error.code === "FILE_EXISTS") {
      if (await findVersion(db, project.id, name, version)) throw published(version, name);
      throw new DomainError(
        "FILE_EXISTS",
        `The release ${version} already has a file ${releaseFilename(name, version)} (not this package's): ${error.message}`,
      );
    }
    throw error;
  });
  return { project, release: result.release, file: result.file };
}

/** What is kept of the body's manifest: npm's own fields, never what the registry decides. */
function storedManifest(
  manifest: Record<string, unknown>,
  fixed: { name: string; version: string; integrity: string; shasum: string },
): Record<string, unknown> {
  const {
    _attachments,
    _npmUser,
    _packyard,
    _rev,
    _resolved,
    _integrity,
    _from,
    _id,
    deprecated,
    dist,
    ...rest
  } = manifest;
  const kept: Record<string, unknown> = {};
  if (dist && typeof dist === "object")
    for (const [key, value] of Object.entries(dist as Record<string, unknown>))
      if (["fileCount", "unpackedSize", "signatures", "attestations"].includes(key)) kept[key] = value;
  return {
    ...rest,
    name: fixed.name,
    version: fixed.version,
    dist: { ...kept, integrity: fixed.integrity, shasum: fixed.shasum },
  };
}

/** The project the caller may publish to, and the package's versions there (404 when none). */
async function packageOf(deps: NpmDeps, caller: PersonCaller, ref: string, name: string) {
  const project = await requireOwnProject(deps.db, caller.actor, ref, "publish");
  const versions = await packageVersionSummaries(deps.db, project.id, name);
  if (versions.length === 0) throw notFound(`${name} is not in this registry`);
  return { project, versions };
}

/** A dist-tag pointed at an existing version; setting it where it already is records nothing. */
export async function setPackageDistTag(
  deps: NpmDeps,
  caller: PersonCaller,
  input: { project: string; name: string; tag: string; version: string },
): Promise<void> {
  assertTag(input.tag);
  const { project, versions } = await packageOf(deps, caller, input.project, input.name);
  if (!versions.some((v) => v.version === input.version))
    throw notFound(`${input.name}@${input.version} is not in this registry`);
  await change(deps.db, caller, async (tx, record) => {
    const current = await distTagVersion(tx, project.id, input.name, input.tag);
    if (current === input.version) return;
    await setDistTag(tx, project.id, input.name, input.tag, input.version, nowIso());
    record.audit({
      ...entryOf(project),
      action: "npm.dist_tag_set",
      target: input.name,
      details: { tag: input.tag, version: input.version, ...(current ? { previous: current } : {}) },
    });
  });
}

/** A dist-tag removed; `latest` stays (npm's rule: every package has one). */
export async function removePackageDistTag(
  deps: NpmDeps,
  caller: PersonCaller,
  input: { project: string; name: string; tag: string },
): Promise<void> {
  if (input.tag === "latest")
    throw new DomainError("VALIDATION_FAILED", "The latest dist-tag cannot be removed: point it elsewhere");
  const { project } = await packageOf(deps, caller, input.project, input.name);
  await change(deps.db, caller, async (tx, record) => {
    const current = await distTagVersion(tx, project.id, input.name, input.tag);
    if (!current) throw notFound(`${input.name} has no dist-tag ${input.tag}`);
    await removeDistTag(tx, project.id, input.name, input.tag);
    record.audit({
      ...entryOf(project),
      action: "npm.dist_tag_removed",
      target: input.name,
      details: { tag: input.tag, version: current },
    });
  });
}

/**
 * What `npm deprecate` and `npm unpublish pkg@version` send: the whole packument back, changed.
 * A version whose `deprecated` differs is deprecated (a message) or undeprecated (none, or ""),
 * a version left out is unpublished (within the window). Anything else in the body is ignored:
 * the registry keeps its own names, files, tags and dates.
 */
export async function updatePackage(
  deps: NpmDeps,
  caller: PersonCaller,
  input: { project: string; name: string; versions: Record<string, unknown> },
): Promise<{ deprecated: number; unpublished: string[] }> {
  const { project, versions } = await packageOf(deps, caller, input.project, input.name);
  const changes: { fileId: string; version: string; message: string | null; was: string | null }[] = [];
  const removed: string[] = [];
  for (const row of versions) {
    const sent = input.versions[row.version];
    if (!sent || typeof sent !== "object") {
      removed.push(row.version);
      continue;
    }
    const value = (sent as Record<string, unknown>).deprecated;
    const message = typeof value === "string" && value.trim() !== "" ? value : null;
    if (message !== null && message.length > 1024)
      throw new DomainError("VALIDATION_FAILED", "A deprecation message may be at most 1024 characters");
    // What the packument showed comes back unchanged (a yanked release's message included).
    if (message === servedDeprecation(row) || message === row.deprecated) continue;
    changes.push({ fileId: row.fileId, version: row.version, message, was: row.deprecated });
  }
  if (removed.length > 0) assertUnpublishable(deps, input.name, versions, removed);
  if (changes.length > 0)
    await change(deps.db, caller, async (tx, record) => {
      for (const c of changes) {
        await setDeprecated(tx, c.fileId, c.message);
        record.audit({
          ...entryOf(project),
          action: c.message === null ? "npm.undeprecated" : "npm.deprecated",
          target: `${input.name}@${c.version}`,
          details: c.message === null ? { previous: c.was } : { message: c.message },
        });
      }
    });
  for (const version of removed)
    await unpublishOne(deps, caller, { project, ref: input.project }, input.name, version);
  return { deprecated: changes.length, unpublished: removed };
}

/**
 * UNPUBLISH_WINDOW unless every version in `removing` was published within the last 72 hours
 * (npm's rule). Past it, deprecate the version, or delete its release in Packyard.
 */
function assertUnpublishable(
  deps: NpmDeps,
  name: string,
  versions: { version: string; createdAt: string }[],
  removing: string[],
): void {
  const since = deps.clock().getTime() - UNPUBLISH_WINDOW_HOURS * 3600_000;
  const old = versions.filter((v) => removing.includes(v.version) && Date.parse(v.createdAt) < since);
  if (old.length > 0)
    throw new DomainError(
      "NPM_UNPUBLISH_WINDOW",
      `${name}@${old[0]!.version} was published more than ${UNPUBLISH_WINDOW_HOURS} hours ago and can no longer be unpublished: deprecate it instead (npm deprecate), or delete the release's file in Packyard`,
    );
}

async function unpublishOne(
  deps: NpmDeps,
  caller: PersonCaller,
  target: { project: ProjectRow; ref: string },
  name: string,
  version: string,
): Promise<void> {
  const { project } = target;
  const row = await findVersion(deps.db, project.id, name, version);
  if (!row) return;
  const now = nowIso();
  // Recorded first: once the file is gone, the version can never be published again.
  await recordUnpublished(deps.db, project.id, name, version, now);
  try {
    await deleteReleaseFile(deps, caller, {
      project: target.ref,
      version: row.releaseVersion,
      filename: row.filename,
    });
  } catch (error) {
    await forgetUnpublished(deps.db, project.id, name, version).catch(() => {});
    throw error;
  }
  await removeTagsOfVersions(deps.db, project.id, name, [version]);
}

/** One version unpublished (`DELETE …/-/{tarball}/-rev/{rev}`); true when it existed. */
export async function unpublishVersion(
  deps: NpmDeps,
  caller: PersonCaller,
  input: { project: string; name: string; version: string },
): Promise<boolean> {
  const project = await requireOwnProject(deps.db, caller.actor, input.project, "publish");
  const versions = await packageVersionSummaries(deps.db, project.id, input.name);
  if (!versions.some((v) => v.version === input.version)) {
    if (await isUnpublished(deps.db, project.id, input.name, input.version)) return false;
    throw notFound(`${input.name}@${input.version} is not in this registry`);
  }
  assertUnpublishable(deps, input.name, versions, [input.version]);
  await unpublishOne(deps, caller, { project, ref: input.project }, input.name, input.version);
  return true;
}

/** A whole package unpublished (`npm unpublish pkg --force`): every version within the window. */
export async function unpublishPackage(
  deps: NpmDeps,
  caller: PersonCaller,
  input: { project: string; name: string },
): Promise<string[]> {
  const { project, versions } = await packageOf(deps, caller, input.project, input.name);
  const all = versions.map((v) => v.version);
  assertUnpublishable(deps, input.name, versions, all);
  for (const version of all)
    await unpublishOne(deps, caller, { project, ref: input.project }, input.name, version);
  await deps.db
    .deleteFrom("npm_dist_tag")
    .where("project_id", "=", project.id)
    .where("name", "=", input.name)
    .execute();
  return all;
}
