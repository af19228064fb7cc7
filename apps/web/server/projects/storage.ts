// Projects: create, read, update, delete, with per-owner slugs and the plan's private-project
// limit enforced here, on the server (creating a private project, making one private).
import {
  type CreateProjectInput,
  type Project,
  projectSlug,
  splitProjectRef,
  type UpdateProjectInput,
} from "@packyard/contract";
import { type Kysely, type Selectable, sql } from "kysely";
import { type Clock, resolveUsername, UsernameMovedError, usernameKey } from "../accounts/usernames.ts";
import { accountPlan, limitsEnabled } from "../billing/plan.ts";
import { type LimitsSetting, privateProjectCount } from "../billing/usage.ts";
import { requireOrganization, roleFor } from "../orgs/storage.ts";
import {
  type Access,
  type Actor,
  assertAccountAccess,
  assertPrivateProjectAllowed,
  assertProjectAccess,
  assertSsoSatisfied,
  canViewProject,
  isPerson,
  visibleProjectIds,
} from "../platform/core/authorization.ts";
import { DomainError, isUniqueViolation, notFound } from "../platform/core/errors.ts";
import { newRowId, nowIso } from "../platform/core/ids.ts";
import { inTransaction } from "../platform/core/use-case.ts";
import type { Database, ProjectTable } from "../platform/db/schema.ts";

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

/**
 * A project the actor reaches, by `slug` or `owner/slug` (owner: a username or an
 * organization's slug): its own, or an organization's it is a member of. A slug alone that names
 * several of them is AMBIGUOUS_PROJECT. Then the actor's access is checked (authorization.ts):
 * NOT_FOUND when it may not even read it, FORBIDDEN or KEY_SCOPE when it may not do `needed`.
 */
export async function requireOwnProject(db: Db, actor: Actor, ref: string, needed: Access) {
  const { owner, slug } = splitProjectRef(ref);
  // A slug in a URL that no project could have is a malformed request, not a missing project.
  const valid = projectSlug.safeParse(slug);
  if (!valid.success) throw new DomainError("INVALID_SLUG", valid.error.issues[0]?.message ?? "Invalid slug");
  const person = isPerson(actor);
  let query = db
    .selectFrom("project")
    .leftJoin("org_member", (join) =>
      join
        .onRef("org_member.org_id", "=", "project.owner_id")
        .on("org_member.user_id", "=", person ? actor.userId : ""),
    )
    .leftJoin("organization", "organization.id", "project.owner_id")
    .selectAll("project")
    .select(["org_member.role as member_role", "organization.slug as org_slug", "organization.sso_enforced"])
    .where("project.slug", "=", slug)
    .where((eb) =>
      eb.or([eb("project.owner_id", "=", actor.userId), eb("org_member.user_id", "is not", null)]),
    );
  if (owner !== undefined) {
    query = query
      .innerJoin("user as owner", "owner.id", "project.owner_id")
      .where(sql<string>`lower(owner.username)`, "=", usernameKey(owner));
  }
  const rows = await query.limit(2).execute();
  if (rows.length > 1)
    throw new DomainError(
      "AMBIGUOUS_PROJECT",
      `You reach more than one project named ${slug}: name it as owner/${slug}`,
    );
  const found = rows[0];
  if (!found) throw notFound("Project not found");
  const { member_role: role, org_slug, sso_enforced, ...project } = found;
  if (role && org_slug)
    assertSsoSatisfied(
      actor,
      { id: project.owner_id, slug: org_slug, enforced: Boolean(sso_enforced) },
      role,
    );
  assertProjectAccess(actor, project, needed, role ?? null);
  return project as ProjectRow;
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
    if (!(await canView(db, current, viewer))) throw notFound("Project not found");
    return current;
  }
  const owner = await resolveUsername(db, username, options.clock);
  if (!owner) throw notFound("Project not found");
  const project = await findProject(db, owner.userId, slug);
  const visible = project && (await canView(db, project, viewer)) ? project : undefined;
  if (owner.moved) {
    if (options.privateAtOldName && visible?.visibility === "private") return visible;
    throw new UsernameMovedError(owner);
  }
  if (!project) {
    // The owner moved the project to another owner (decision 040): its old URLs follow it, to
    // whoever may see it there, as an old username's do.
    const moved = await transferredProject(db, owner.userId, slug);
    if (moved && (await canView(db, moved.project, viewer))) {
      if (options.privateAtOldName && moved.project.visibility === "private") return moved.project;
      throw new UsernameMovedError({ userId: moved.project.owner_id, username: moved.owner });
    }
  }
  if (!visible) throw notFound("Project not found");
  return visible;
}

/** canViewProject with the viewer's role in the owning organization, when that matters. */
async function canView(db: Db, project: ProjectRow, viewer: Actor | null): Promise<boolean> {
  if (canViewProject(project, viewer)) return true;
  const role = await roleFor(db, viewer, project.owner_id);
  return role !== null && canViewProject(project, viewer, role);
}

/** The project `slug` of ownerId was transferred: where it is now (the latest move). */
async function transferredProject(db: Db, fromOwnerId: string, slug: string) {
  const row = await db
    .selectFrom("project_transfer")
    .innerJoin("project", "project.id", "project_transfer.project_id")
    .innerJoin("user", "user.id", "project.owner_id")
    .selectAll("project")
    .select("user.username as owner_username")
    .where("project_transfer.from_owner_id", "=", fromOwnerId)
    .where("project_transfer.slug", "=", slug)
    .orderBy("project_transfer.transferred_at", "desc")
    .executeTakeFirst();
  if (!row?.owner_username) return undefined;
  const { owner_username, ...project } = row;
  return { project: project as ProjectRow, owner: owner_username };
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
  owner: OwnerName,
  stats: { releaseCount: number; downloads: number; latestVersion: string | null },
): Project {
  return {
    id: row.id,
    owner: owner.name,
    ownerKind: owner.kind,
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

/** An owner's name in URLs (a username or an organization's slug), and which it is. */
export interface OwnerName {
  name: string;
  kind: "user" | "organization";
}

export async function ownerNameOf(db: Db, ownerId: string): Promise<OwnerName> {
  const row = await db
    .selectFrom("user")
    .leftJoin("organization", "organization.id", "user.id")
    .select(["user.username", "organization.id as org"])
    .where("user.id", "=", ownerId)
    .executeTakeFirst();
  return { name: row?.username ?? "", kind: row?.org ? "organization" : "user" };
}

export async function describeProjects(db: Db, rows: ProjectRow[]): Promise<Project[]> {
  const stats = await projectStats(
    db,
    rows.map((r) => r.id),
  );
  const owners = new Map<string, OwnerName>();
  for (const row of rows)
    if (!owners.has(row.owner_id)) owners.set(row.owner_id, await ownerNameOf(db, row.owner_id));
  return rows.map((row) => toProjectDto(row, owners.get(row.owner_id)!, stats.get(row.id)!));
}

/**
 * The projects the actor reaches: its account's, and (for a person) those of the organizations
 * it belongs to; a key's chosen ones only.
 */
export async function listProjects(db: Db, actor: Actor): Promise<Project[]> {
  let query = db
    .selectFrom("project")
    .selectAll()
    .where((eb) =>
      eb.or([
        eb("owner_id", "=", actor.userId),
        ...(isPerson(actor)
          ? [
              eb(
                "owner_id",
                "in",
                // Not those of an organization that requires single sign-on, unless this
                // session came from its provider or the member owns it (authorization.ts).
                eb
                  .selectFrom("org_member")
                  .innerJoin("organization", "organization.id", "org_member.org_id")
                  .select("org_member.org_id")
                  .where("org_member.user_id", "=", actor.userId)
                  .where((inner) =>
                    inner.or([
                      inner("organization.sso_enforced", "=", 0),
                      inner("org_member.role", "=", "owner"),
                      inner(
                        "org_member.org_id",
                        "=",
                        actor.kind === "session" ? (actor.ssoOrganizationId ?? "") : "",
                      ),
                    ]),
                  ),
              ),
            ]
          : []),
      ]),
    );
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
  const ownerId = await newProjectOwner(db, actor, input.owner);
  if (input.visibility === "private") await checkPrivateProjectLimit(db, limits, ownerId);
  const now = nowIso();
  const row: ProjectRow = {
    id: newRowId(),
    owner_id: ownerId,
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
      throw new DomainError(
        "PROJECT_EXISTS",
        ownerId === actor.userId
          ? `You already have a project named ${input.slug}`
          : `${input.owner} already has a project named ${input.slug}`,
      );
    throw error;
  }
  return toProjectDto(row, await ownerNameOf(db, ownerId), {
    releaseCount: 0,
    downloads: 0,
    latestVersion: null,
  });
}

/**
 * Whose a new project is: the actor's own account, or the organization named `owner` (its admins
 * and owners may create projects in it).
 */
async function newProjectOwner(db: Db, actor: Actor, owner: string | undefined): Promise<string> {
  if (owner === undefined || owner === "") return actor.userId;
  const own = await ownerNameOf(db, actor.userId);
  if (usernameKey(own.name) === usernameKey(owner)) return actor.userId;
  const { org } = await requireOrganization(db, actor, owner, "admin");
  return org.id;
}

/**
 * Moves a project to another owner: an organization whose admin or owner the actor is, or the
 * actor itself. Its releases, files, keys and repositories go with it; the old owner's URLs
 * (/dl, /releases) redirect to the new ones (findVisibleProject), so apt and dnf keep installing
 * from their old source lines, and APT's Label stays what clients have seen.
 */
export async function transferProject(
  db: Db,
  actor: Actor,
  ref: string,
  to: string,
  limits: LimitsSetting,
): Promise<Project> {
  const project = await requireOwnProject(db, actor, ref, "manage");
  if (!isPerson(actor)) throw new DomainError("FORBIDDEN", "An organization's key cannot transfer projects");
  const target = await newProjectOwner(db, actor, to);
  if (target === project.owner_id)
    throw new DomainError("VALIDATION_FAILED", "The project already belongs to this owner", {
      owner: "The project already belongs to this owner",
    });
  if (project.visibility === "private") await checkPrivateProjectLimit(db, limits, target);
  const from = await ownerNameOf(db, project.owner_id);
  const now = nowIso();
  try {
    await inTransaction(db, async (tx) => {
      await tx
        .updateTable("project")
        .set({
          owner_id: target,
          updated_at: now,
          apt_label: project.apt_label ?? `${from.name}/${project.slug}`,
        })
        .where("id", "=", project.id)
        .execute();
      await tx
        .insertInto("project_transfer")
        .values({
          id: newRowId(),
          project_id: project.id,
          from_owner_id: project.owner_id,
          slug: project.slug,
          transferred_at: now,
        })
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError("PROJECT_EXISTS", `${to} already has a project named ${project.slug}`);
    throw error;
  }
  const [dto] = await describeProjects(db, [{ ...project, owner_id: target, updated_at: now }]);
  return dto!;
}

export async function updateProject(
  db: Db,
  actor: Actor,
  slug: string,
  input: UpdateProjectInput,
  limits: LimitsSetting,
): Promise<Project> {
  const project = await requireOwnProject(db, actor, slug, "manage");
  if (input.visibility === "private" && project.visibility !== "private") {
    await checkPrivateProjectLimit(db, limits, project.owner_id, project.id);
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
  const project = await requireOwnProject(db, actor, slug, "manage");
  await db.deleteFrom("project").where("id", "=", project.id).execute();
}
