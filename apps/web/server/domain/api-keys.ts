// API keys of a user: created through better-auth's api-key plugin (only the server sets their
// scope), listed and deleted by owner. Used by the /api-keys page and by /api/v1/keys.
import type { ApiKeyInfo } from "@packyard/contract";
import type { Kysely } from "kysely";
import type { Auth } from "../auth/auth.ts";
import type { Database } from "../db/schema.ts";
import { type KeyScope, scopeFromPermissions, scopeToPermissions } from "./authorization.ts";
import { DomainError } from "./errors.ts";

type Db = Kysely<Database>;

export class UnknownProjectError extends Error {
  constructor() {
    super("Choose only your own projects");
  }
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

/** Creates a key for the user; chosen projects must be the user's own. */
export async function createUserApiKey(
  auth: Auth,
  db: Db,
  userId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  if (input.scope.projects !== "*") {
    const own = new Set(
      (await db.selectFrom("project").select("id").where("owner_id", "=", userId).execute()).map((p) => p.id),
    );
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
 * A key scope's projects as the API names them: "*", or the slugs of the owner's chosen projects.
 * A chosen project deleted since is shown by its id (`missing: "id"`) or left out (`"omit"`).
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
        .select(["id", "slug"])
        .where("owner_id", "=", ownerId)
        .where("id", "in", projects)
        .execute()
    : [];
  const slugs = new Map(rows.map((r) => [r.id, r.slug]));
  return missing === "id"
    ? projects.map((id) => slugs.get(id) ?? id)
    : projects.flatMap((id) => slugs.get(id) ?? []);
}

/** The ids of the owner's projects named by `slugs`; NOT_FOUND naming every slug that is not one. */
export async function scopeProjectIds(db: Db, ownerId: string, slugs: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom("project")
    .select(["id", "slug"])
    .where("owner_id", "=", ownerId)
    .where("slug", "in", slugs)
    .execute();
  const missing = slugs.filter((slug) => !rows.some((r) => r.slug === slug));
  if (missing.length) throw new DomainError("NOT_FOUND", `Project not found: ${missing.join(", ")}`);
  return rows.map((r) => r.id);
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
