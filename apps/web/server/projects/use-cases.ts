// A project's state changes (issue 39, decision 070): create, edit, delete, transfer, its
// repository settings and its signing keys. Each decides with authorization.ts, makes the change
// in one transaction with its audit entry (use-case.ts) and announces it after the commit. The
// REST routes (projects/routes.ts, repository-settings.ts, signing-keys.ts), the dashboard's
// actions and the key lifecycle job call these and only map what comes back.
import type {
  CreateProjectInput,
  Project,
  RepositorySettings,
  UpdateProjectInput,
  UpdateRepositorySettingsInput,
} from "@packyard/contract";
import type { SigningKeyAlgorithm } from "@packyard/formats/openpgp/index.ts";
import type { LimitsSetting } from "../billing/usage.ts";
import { resignQueue } from "../formats/registry.ts";
import {
  type Actor,
  assertAccountAccess,
  REPOSITORY_SETTINGS_ACCESS,
  SIGNING_KEY_ROTATE_ACCESS,
} from "../platform/core/authorization.ts";
import { type Caller, change, type Db, type Tx } from "../platform/core/use-case.ts";
import type { JobQueue } from "../platform/jobs/queue.ts";
import type { RepositoryPublisher } from "../repositories/publisher.ts";
import type { SigningKeyRow, SigningKeyService } from "../signing-keys/keys.ts";
import { DAY_MS, getRepositorySettings, updateRepositorySettings } from "./repository-settings.ts";
import {
  updateProject as editProject,
  createProject as insertProject,
  transferProject as moveProject,
  ownerNameOf,
  type ProjectRow,
  deleteProject as removeProject,
  requireOwnProject,
} from "./storage.ts";

/** The person or key asking: a job changes no project (the lifecycle job rotates keys, below). */
function actorOf(caller: Caller): Actor {
  if (caller.actor.kind === "system") throw new Error("A project is changed by a person or a key, not a job");
  return caller.actor;
}

async function ownerIdOf(tx: Tx, projectId: string): Promise<string> {
  const row = await tx
    .selectFrom("project")
    .select("owner_id")
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  return row.owner_id;
}

/** A project, the caller's own or under the organization named `owner` (its admins and owners). */
export async function createProject(
  deps: { db: Db; limits: LimitsSetting },
  caller: Caller,
  input: CreateProjectInput,
): Promise<Project> {
  const actor = actorOf(caller);
  assertAccountAccess(actor, "publish");
  return change(deps.db, caller, async (tx, record) => {
    const created = await insertProject(tx, actor, input, deps.limits);
    const ownerId = await ownerIdOf(tx, created.id);
    record.audit({
      ownerId,
      projectId: created.id,
      projectSlug: created.slug,
      action: "project.created",
      target: created.slug,
      details: { visibility: created.visibility },
    });
    // Its signing key is made now, so the fingerprint is there from the first page view.
    record.emit({ type: "created", projectId: created.id, keyAlgorithm: input.keyAlgorithm });
    return created;
  });
}

const PROJECT_FIELDS = ["name", "description", "visibility", "homepage", "sourceUrl", "license"] as const;

/** The project's fields an edit changed, by their API names. */
function changedProjectFields(before: ProjectRow, after: Project): string[] {
  const old: Record<(typeof PROJECT_FIELDS)[number], string | null> = {
    name: before.name,
    description: before.description,
    visibility: before.visibility,
    homepage: before.homepage,
    sourceUrl: before.source_url,
    license: before.license,
  };
  return PROJECT_FIELDS.filter((field) => (old[field] ?? null) !== (after[field] ?? null));
}

/**
 * An edit of the project's fields, recorded as one entry: project.visibility_changed when its
 * visibility changed (with whatever else changed in the same edit), project.updated otherwise,
 * none when nothing changed.
 */
export async function updateProject(
  deps: { db: Db; limits: LimitsSetting },
  caller: Caller,
  input: { project: string; changes: UpdateProjectInput },
): Promise<Project> {
  const actor = actorOf(caller);
  const before = await requireOwnProject(deps.db, actor, input.project, "manage");
  return change(deps.db, caller, async (tx, record) => {
    const updated = await editProject(tx, actor, input.project, input.changes, deps.limits);
    const changed = changedProjectFields(before, updated);
    if (changed.length > 0) {
      const visibility = changed.includes("visibility");
      record.audit({
        ownerId: before.owner_id,
        projectId: before.id,
        projectSlug: before.slug,
        action: visibility ? "project.visibility_changed" : "project.updated",
        target: before.slug,
        details: visibility ? { from: before.visibility, to: updated.visibility, changed } : { changed },
      });
    }
    return updated;
  });
}

/** Deletes the project with its releases and files (projects/storage.ts's deleteProject). */
export async function deleteProject(
  deps: { db: Db },
  caller: Caller,
  input: { project: string },
): Promise<ProjectRow> {
  const actor = actorOf(caller);
  const project = await requireOwnProject(deps.db, actor, input.project, "manage");
  await change(deps.db, caller, async (tx, record) => {
    await removeProject(tx, actor, input.project);
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      projectSlug: project.slug,
      action: "project.deleted",
      target: project.slug,
    });
  });
  return project;
}

/**
 * Moves the project to an organization the caller administers, or back to the caller. Recorded
 * in the new owner's log (and the project's), and in the old owner's, which keeps where it went.
 */
export async function transferProject(
  deps: { db: Db; limits: LimitsSetting },
  caller: Caller,
  input: { project: string; owner: string },
): Promise<Project> {
  const actor = actorOf(caller);
  const before = await requireOwnProject(deps.db, actor, input.project, "manage");
  const from = await ownerNameOf(deps.db, before.owner_id);
  return change(deps.db, caller, async (tx, record) => {
    const moved = await moveProject(tx, actor, input.project, input.owner, deps.limits);
    const entry = {
      action: "project.transferred" as const,
      target: before.slug,
      details: { from: from.name, to: moved.owner },
    };
    record.audit({
      ownerId: await ownerIdOf(tx, before.id),
      projectId: before.id,
      projectSlug: before.slug,
      ...entry,
    });
    record.audit({ ownerId: before.owner_id, projectSlug: before.slug, ...entry });
    return moved;
  });
}

/**
 * Changes the project's repository settings (decision 027), recorded as one project.updated entry
 * naming the settings that changed (none when nothing did). A change to what Release says
 * announces the project's packages changed, so its repositories are re-published.
 */
export async function updateProjectRepositorySettings(
  deps: { db: Db },
  caller: Caller,
  input: { project: string; settings: UpdateRepositorySettingsInput },
): Promise<RepositorySettings> {
  const actor = actorOf(caller);
  const project = await requireOwnProject(deps.db, actor, input.project, REPOSITORY_SETTINGS_ACCESS);
  const before = await getRepositorySettings(deps.db, actor, input.project);
  return change(deps.db, caller, async (tx, record) => {
    const { settings, releaseChanged } = await updateRepositorySettings(
      tx,
      actor,
      input.project,
      input.settings,
    );
    const changed = (Object.keys(settings) as (keyof RepositorySettings)[]).filter(
      (field) => JSON.stringify(before[field]) !== JSON.stringify(settings[field]),
    );
    if (changed.length > 0)
      record.audit({
        ownerId: project.owner_id,
        projectId: project.id,
        projectSlug: project.slug,
        action: "project.updated",
        target: project.slug,
        details: { changed, repositorySettings: true },
      });
    if (releaseChanged) record.emit({ type: "packages-changed", projectId: project.id });
    return settings;
  });
}

interface KeyDeps {
  db: Db;
  keys: SigningKeyService;
  repos: Pick<RepositoryPublisher, "publish">;
  /** Queues the re-signing of the project's .rpm files by its newest key (decision 030). */
  resignRpms?: (projectId: string) => Promise<void>;
}

/** The re-signing queue of `jobs`, as KeyDeps takes it. */
export function rpmResignQueue(jobs: Pick<JobQueue, "send">): (projectId: string) => Promise<void> {
  return resignQueue(jobs);
}

/**
 * Stores a prepared successor key with its entry, announces key.rotated when this rotation made
 * it, then re-signs: the repositories now, the .rpm files through their job (decision 030).
 */
async function rotate(
  deps: KeyDeps,
  caller: Caller,
  project: { id: string; name: string; owner_id: string; slug?: string },
  options: { algorithm?: SigningKeyAlgorithm; overlapMs?: number; retireAt?: Date },
  details: (successor: SigningKeyRow) => Record<string, unknown>,
  publish: boolean,
): Promise<SigningKeyRow> {
  // The key is made before the transaction: generating one takes a while.
  const prepared = await deps.keys.prepareRotation(project, options.algorithm);
  const successor = await change(deps.db, caller, async (tx, record) => {
    const { row, created, previous } = await deps.keys.storeRotation(tx, prepared, options);
    record.audit({
      ownerId: project.owner_id,
      projectId: project.id,
      ...(project.slug ? { projectSlug: project.slug } : {}),
      action: "signing_key.rotated",
      target: row.fingerprint,
      details: details(row),
    });
    if (created)
      record.emit({ type: "key.rotated", projectId: project.id, fingerprint: row.fingerprint, previous });
    return row;
  });
  if (publish) await deps.repos.publish(project.id);
  await deps.resignRpms?.(project.id);
  return successor;
}

/**
 * Rotates the project's signing key: a new key signs from now on; the current ones keep signing
 * through the overlap, so machines that trust only the old key keep working until they fetch
 * the new keyring.
 */
export async function rotateSigningKey(
  deps: KeyDeps,
  caller: Caller,
  input: { project: string; algorithm?: SigningKeyAlgorithm; overlapDays: number },
): Promise<{ project: ProjectRow; successor: SigningKeyRow }> {
  const actor = actorOf(caller);
  const project = await requireOwnProject(deps.db, actor, input.project, SIGNING_KEY_ROTATE_ACCESS);
  const successor = await rotate(
    deps,
    caller,
    project,
    { algorithm: input.algorithm, overlapMs: input.overlapDays * DAY_MS },
    (key) => ({ algorithm: key.algorithm, overlapDays: input.overlapDays }),
    true,
  );
  return { project, successor };
}

/**
 * The key lifecycle job's rotation (caller SYSTEM): a successor for a key nearing its expiry,
 * the current key retiring at `retireAt`. The job re-publishes itself when its plan says so.
 */
export async function rotateExpiringSigningKey(
  deps: KeyDeps,
  caller: Caller,
  input: { project: { id: string; name: string; owner_id: string }; retireAt: Date },
): Promise<SigningKeyRow> {
  return rotate(
    deps,
    caller,
    input.project,
    { retireAt: input.retireAt },
    (key) => ({ algorithm: key.algorithm, reason: "expiry" }),
    false,
  );
}
