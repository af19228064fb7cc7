// API keys of a user or an organization: created through better-auth's api-key plugin (only the
// server sets their scope), listed and deleted by owner. Used by the /api-keys page, by
// /api/v1/keys and by /api/v1/orgs/{slug}/keys. An organization's key has the organization's id
// as its owner (decision 040), so it reaches the organization's projects and outlives whoever
// made it; a person's key may be scoped to projects of organizations the person belongs to, and
// reaches them only through the person's role (authorization.ts).
import { type ApiKeyInfo, splitProjectRef } from "@packyard/contract";
import type { Kysely } from "kysely";
import { usernameKey } from "../accounts/usernames.ts";
import type { Auth } from "../auth/auth.ts";
import { type KeyScope, scopeFromPermissions, scopeToPermissions } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Database } from "../platform/db/schema.ts";

type Db = Kysely<Database>;

export class UnknownProjectError extends Error {
  constructor() {
    super("Choose only your own projects");
  }
}

/**
 * The projects a key of `ownerId` may be scoped to: the owner's own, and for a person those of the
 * organizations they belong to (an organization is nobody's member, so its keys get its own).
 */
function reachableProjects(db: Db, ownerId: string) {
  return db
    .selectFrom("project")
    .innerJoin("user as owner", "owner.id", "project.owner_id")
    .select(["project.id", "project.slug", "project.name", "project.owner_id", "owner.username as owner"])
    .where((eb) =>
      eb.or([
        eb("project.owner_id", "=", ownerId),
        eb(
          "project.owner_id",
          "in",
          eb.selectFrom("org_member").select("org_member.org_id").where("org_member.user_id", "=", ownerId),
        ),
      ]),
    );
}

/** A project a key may be scoped to, named as the API names it (`owner/slug` for another owner's). */
export interface ScopeProject {
  id: string;
  slug: string;
  name: string;
}

/**
 * The projects a key of `ownerId` may be scoped to (reachableProjects), for choosing them: the
 * owner's own first, then each organization's, by name.
 */
export async function listScopeProjects(db: Db, ownerId: string): Promise<ScopeProject[]> {
  const rows = await reachableProjects(db, ownerId).execute();
  return rows
    .map((r) => ({
      own: r.owner_id === ownerId,
      id: r.id,
      slug: r.owner_id === ownerId ? r.slug : `${r.owner ?? ""}/${r.slug}`,
      name: r.name,
    }))
    .sort((a, b) => Number(b.own) - Number(a.own) || a.slug.localeCompare(b.slug))
    .map(({ id, slug, name }) => ({ id, slug, name }));
}

export interface CreatedKey {
  id: string;
  name: string | null;
  /** The secret: shown once, never stored in the clear. */
  key: string;
  expiresAt: string | null;
}

export interface KeySummary {
  id: string;
  name: string | null;
  /** The first characters of the key (its prefix and a few more), for recognising it. */
  start: string | null;
  prefix: string | null;
  scope: KeyScope;
  lastRequest: string | null;
  expiresAt: string | null;
  createdAt: string;
  expired: boolean;
}

const iso = (d: Date | string | number | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * Creates a key for the user or organization (userId: the organization's id for its keys; its
 * creator is checked by the caller); chosen projects must be ones it reaches (reachableProjects).
 */
export async function createUserApiKey(
  auth: Auth,
  db: Db,
  userId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  if (input.scope.projects !== "*") {
    const own = new Set((await reachableProjects(db, userId).execute()).map((p) => p.id));
    if (input.scope.projects.length === 0 || input.scope.projects.some((id) => !own.has(id))) {
      throw new UnknownProjectError();
    }
  }
  const created = await auth.api.createApiKey({
    body: {
      userId,
      name: input.name,
      expiresIn: input.expiresIn,
      permissions: scopeToPermissions(input.scope),
    },
  });
  return { id: created.id, name: created.name, key: created.key, expiresAt: iso(created.expiresAt) };
}

/** The user's keys, newest first. */
export async function listUserApiKeys(db: Db, userId: string, now = new Date()): Promise<KeySummary[]> {
  const rows = await db.selectFrom("apikey").selectAll().where("referenceId", "=", userId).execute();
  return rows
    .map((k) => {
      const expiresAt = iso(k.expiresAt);
      let permissions: Record<string, string[]> | null = null;
      try {
        permissions = k.permissions ? JSON.parse(k.permissions) : null;
      } catch {
        permissions = null;
      }
      return {
        id: k.id,
        name: k.name,
        start: k.start,
        prefix: k.prefix,
        scope: scopeFromPermissions(permissions),
        lastRequest: iso(k.lastRequest),
        expiresAt,
        createdAt: iso(k.createdAt) ?? now.toISOString(),
        expired: expiresAt !== null && new Date(expiresAt).getTime() < now.getTime(),
      };
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Deletes one of the user's keys; false when the user has no such key. */
export async function deleteUserApiKey(db: Db, userId: string, keyId: string): Promise<boolean> {
  const result = await db
    .deleteFrom("apikey")
    .where("id", "=", keyId)
    .where("referenceId", "=", userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes the user's expired keys (only theirs); returns how many went. */
export async function deleteExpiredUserApiKeys(db: Db, userId: string, now = new Date()): Promise<number> {
  let deleted = 0;
  for (const key of await listUserApiKeys(db, userId, now)) {
    if (key.expired && (await deleteUserApiKey(db, userId, key.id))) deleted++;
  }
  return deleted;
}

/**
 * A key scope's projects as the API names them: "*", or the chosen projects' slugs (`owner/slug`
 * for one another owner has: an organization's, in a person's key). A chosen project deleted
 * since is shown by its id (`missing: "id"`) or left out (`"omit"`).
 */
export async function scopeSlugs(
  db: Db,
  ownerId: string,
  projects: "*" | string[],
  missing: "id" | "omit",
): Promise<"*" | string[]> {
  if (projects === "*") return "*";
  const rows = projects.length
    ? await db
        .selectFrom("project")
        .innerJoin("user as owner", "owner.id", "project.owner_id")
        .select(["project.id", "project.slug", "project.owner_id", "owner.username as owner"])
        .where("project.id", "in", projects)
        .execute()
    : [];
  const slugs = new Map(
    rows.map((r) => [r.id, r.owner_id === ownerId ? r.slug : `${r.owner ?? ""}/${r.slug}`]),
  );
  return missing === "id"
    ? projects.map((id) => slugs.get(id) ?? id)
    : projects.flatMap((id) => slugs.get(id) ?? []);
}

/**
 * The ids of the projects named by `refs` (a slug, or `owner/slug`) among those a key of the
 * owner may be scoped to: NOT_FOUND naming every one that is not one, AMBIGUOUS_PROJECT for a
 * slug alone that names several (the person's own and an organization's).
 */
export async function scopeProjectIds(db: Db, ownerId: string, refs: string[]): Promise<string[]> {
  const rows = await reachableProjects(db, ownerId)
    .where(
      "project.slug",
      "in",
      refs.map((ref) => splitProjectRef(ref).slug),
    )
    .execute();
  const ids: string[] = [];
  const missing: string[] = [];
  for (const ref of refs) {
    const { owner, slug } = splitProjectRef(ref);
    const found = rows.filter(
      (r) =>
        r.slug === slug && (owner === undefined ? true : usernameKey(r.owner ?? "") === usernameKey(owner)),
    );
    // As requireOwnProject decides: a slug alone naming several is ambiguous.
    if (found.length === 0) missing.push(ref);
    else if (found.length > 1)
      throw new DomainError(
        "AMBIGUOUS_PROJECT",
        `More than one project is named ${slug}: name it as owner/${slug}`,
      );
    else ids.push(found[0]!.id);
  }
  if (missing.length) throw new DomainError("NOT_FOUND", `Project not found: ${missing.join(", ")}`);
  return [...new Set(ids)];
}

/** A key as the API shows it: its scope names projects by slug; never its secret. */
export async function describeApiKey(db: Db, ownerId: string, key: KeySummary): Promise<ApiKeyInfo> {
  return {
    id: key.id,
    name: key.name,
    start: key.start,
    scope: { projects: await scopeSlugs(db, ownerId, key.scope.projects, "id"), access: key.scope.access },
    lastRequest: key.lastRequest,
    expiresAt: key.expiresAt,
    createdAt: key.createdAt,
    expired: key.expired,
  };
}
