// Projects: create, read, update, delete, with per-owner slugs and the plan's private-project
// limit enforced here, on the server (creating a private project, making one private).
import {
  type CreateProjectInput,
  type Project,
  projectSlug,
  type UpdateProjectInput,
} from "@packyard/contract";
import { type Kysely, type Selectable, sql } from "kysely";
import type { Database, ProjectTable } from "../db/schema.ts";
import { accountPlan, limitsEnabled } from "./account-plan.ts";
import {
  type Actor,
  assertAccountAccess,
  assertPrivateProjectAllowed,
  assertProjectAccess,
  canViewProject,
  visibleProjectIds,
} from "./authorization.ts";
import { emitProjectEvent } from "./changes.ts";
import { DomainError, isUniqueViolation, notFound } from "./errors.ts";
import { newRowId, nowIso } from "./ids.ts";
import { type LimitsSetting, privateProjectCount } from "./usage.ts";
import { type Clock, resolveUsername, UsernameMovedError, usernameKey } from "./usernames.ts";

export type ProjectRow = Selectable<ProjectTable>;
type Db = Kysely<Database>;

export async function findProject(db: Db, ownerId: string, slug: string): Promise<ProjectRow | undefined> {
  return db
    .selectFrom("project")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .where("slug", "=", slug)
    .executeTakeFirst();
}

/** The actor's own project, or NOT_FOUND; then the key's scope is checked. */
export async function requireOwnProject(db: Db, actor: Actor, slug: string, needed: "read" | "publish") {
  // A slug in a URL that no project could have is a malformed request, not a missing project.
  const valid = projectSlug.safeParse(slug);
  if (!valid.success) throw new DomainError("INVALID_SLUG", valid.error.issues[0]?.message ?? "Invalid slug");
  const project = await findProject(db, actor.userId, slug);
  if (!project) throw notFound("Project not found");
  assertProjectAccess(actor, project, needed);
  return project;
}

/**
 * A project by its owner's username (any case) and slug, if the viewer may see it; else
 * NOT_FOUND. An old username still held for its owner throws UsernameMovedError (a NOT_FOUND
 * carrying the owner's current name) for callers that redirect (usernames.ts) — except, with
 * `privateAtOldName` (/dl), for a private project the viewer may see: it is found at the old
 * name too, because the credentials a machine holds for it (apt's auth.conf.d) name the path
 * with the old name and apt does not send them to the redirect's target. To anyone else the
 * old name of a private project answers like any other, so nothing tells it exists.
 */
/** The project `slug` of the user whose current name is `username` (any case), if any. */
export function findProjectByCurrentName(
  db: Db,
  username: string,
  slug: string,
): Promise<ProjectRow | undefined> {
  return db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .selectAll("project")
    .where(sql<string>`lower(username)`, "=", usernameKey(username))
    .where("project.slug", "=", slug)
    .executeTakeFirst();
}

export async function findVisibleProject(
  db: Db,
  username: string,
  slug: string,
  viewer: Actor | null,
  options: { clock?: Clock; privateAtOldName?: boolean } = {},
): Promise<ProjectRow> {
  // The common case in one query: the name is someone's current name.
  const current = await findProjectByCurrentName(db, username, slug);
  if (current) {
    if (!canViewProject(current, viewer)) throw notFound("Project not found");
    return current;
  }
  const owner = await resolveUsername(db, username, options.clock);
  if (!owner) throw notFound("Project not found");
  const project = await findProject(db, owner.userId, slug);
  const visible = project && canViewProject(project, viewer) ? project : undefined;
  if (owner.moved) {
    if (options.privateAtOldName && visible?.visibility === "private") return visible;
    throw new UsernameMovedError(owner);
  }
  if (!visible) throw notFound("Project not found");
  return visible;
}

export async function projectStats(db: Db, projectIds: string[]) {
  const stats = new Map<string, { releaseCount: number; downloads: number; latestVersion: string | null }>();
  if (projectIds.length === 0) return stats;
  const counts = await db
    .selectFrom("release")
    .select(["project_id", (eb) => eb.fn.countAll<number | string>().as("n")])
    .where("project_id", "in", projectIds)
    .groupBy("project_id")
    .execute();
  const downloads = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select(["release.project_id", (eb) => eb.fn.sum<number | string>("release_file.download_count").as("n")])
    .where("release.project_id", "in", projectIds)
    .groupBy("release.project_id")
    .execute();
  const latest = await db
    .selectFrom("release")
    .select(["project_id", "version", "created_at", "id"])
    .where("project_id", "in", projectIds)
    .where("yanked", "=", 0)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  for (const id of projectIds) stats.set(id, { releaseCount: 0, downloads: 0, latestVersion: null });
  for (const c of counts) stats.get(c.project_id)!.releaseCount = Number(c.n);
  for (const d of downloads) stats.get(d.project_id)!.downloads = Number(d.n ?? 0);
  for (const r of latest) {
    const s = stats.get(r.project_id)!;
    if (s.latestVersion === null) s.latestVersion = r.version;
  }
  return stats;
}

export function toProjectDto(
  row: ProjectRow,
  owner: string,
  stats: { releaseCount: number; downloads: number; latestVersion: string | null },
): Project {
  return {
    id: row.id,
    owner,
    slug: row.slug,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    homepage: row.homepage,
    sourceUrl: row.source_url,
    license: row.license,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...stats,
  };
}

export async function usernameOf(db: Db, userId: string): Promise<string> {
  const user = await db.selectFrom("user").select("username").where("id", "=", userId).executeTakeFirst();
  return user?.username ?? "";
}

export async function describeProjects(db: Db, rows: ProjectRow[]): Promise<Project[]> {
  const stats = await projectStats(
    db,
    rows.map((r) => r.id),
  );
  const owners = new Map<string, string>();
  for (const row of rows)
    if (!owners.has(row.owner_id)) owners.set(row.owner_id, await usernameOf(db, row.owner_id));
  return rows.map((row) => toProjectDto(row, owners.get(row.owner_id)!, stats.get(row.id)!));
}

export async function listProjects(db: Db, actor: Actor): Promise<Project[]> {
  let query = db.selectFrom("project").selectAll().where("owner_id", "=", actor.userId);
  const visible = visibleProjectIds(actor);
  if (visible !== "*") {
    if (visible.length === 0) return [];
    query = query.where("id", "in", visible);
  }
  return describeProjects(db, await query.orderBy("updated_at", "desc").execute());
}

/**
 * Checks the owner's plan has room for one more private project (excluding one being changed);
 * nothing to check with PLAN_LIMITS=off.
 */
async function checkPrivateProjectLimit(
  db: Db,
  limits: LimitsSetting,
  ownerId: string,
  excludeProjectId?: string,
) {
  if (!limitsEnabled(limits)) return;
  const count = await privateProjectCount(db, ownerId, excludeProjectId);
  assertPrivateProjectAllowed((await accountPlan(db, ownerId)).plan, count);
}

export async function createProject(
  db: Db,
  actor: Actor,
  input: CreateProjectInput,
  limits: LimitsSetting,
): Promise<Project> {
  assertAccountAccess(actor, "publish");
  if (input.visibility === "private") await checkPrivateProjectLimit(db, limits, actor.userId);
  const now = nowIso();
  const row: ProjectRow = {
    id: newRowId(),
    owner_id: actor.userId,
    slug: input.slug,
    name: input.name,
    description: input.description || null,
    visibility: input.visibility,
    homepage: input.homepage ?? null,
    source_url: input.sourceUrl ?? null,
    license: input.license || null,
    created_at: now,
    updated_at: now,
    index_revision: 0,
    published_revision: 0,
    apt_label: null,
    key_expiry_days: input.keyExpiryDays ?? null,
    apt_valid_until_days: null,
    apt_origin: null,
    apt_codename: null,
    signed_by: null,
  };
  try {
    await db.insertInto("project").values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("PROJECT_EXISTS", `You already have a project named ${input.slug}`);
    throw error;
  }
  // Its signing key is made now, so the fingerprint is there from the first page view.
  await emitProjectEvent(db, { type: "created", projectId: row.id, keyAlgorithm: input.keyAlgorithm });
  return toProjectDto(row, await usernameOf(db, actor.userId), {
    releaseCount: 0,
    downloads: 0,
    latestVersion: null,
  });
}

export async function updateProject(
  db: Db,
  actor: Actor,
  slug: string,
  input: UpdateProjectInput,
  limits: LimitsSetting,
): Promise<Project> {
  const project = await requireOwnProject(db, actor, slug, "publish");
  if (input.visibility === "private" && project.visibility !== "private") {
    await checkPrivateProjectLimit(db, limits, actor.userId, project.id);
  }
  const changes: Partial<ProjectRow> = { updated_at: nowIso() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description || null;
  if (input.visibility !== undefined) changes.visibility = input.visibility;
  if ("homepage" in input) changes.homepage = input.homepage ?? null;
  if ("sourceUrl" in input) changes.source_url = input.sourceUrl ?? null;
  if (input.license !== undefined) changes.license = input.license || null;
  await db.updateTable("project").set(changes).where("id", "=", project.id).execute();
  const [dto] = await describeProjects(db, [{ ...project, ...changes }]);
  return dto!;
}

/**
 * Deletes the project's row; its releases, files, generations and index-file rows cascade. The
 * bytes no other project shares (release blobs and index files) are removed by the sweep after
 * the grace period (maintenance.ts, decision 022).
 */
export async function deleteProject(db: Db, actor: Actor, slug: string): Promise<void> {
  const project = await requireOwnProject(db, actor, slug, "publish");
  await db.deleteFrom("project").where("id", "=", project.id).execute();
}
