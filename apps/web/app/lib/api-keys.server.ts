// API keys for the /api-keys page and the CLI token page: created by Packyard's server with
// better-auth's api-key plugin (scopes live in the key's permissions, which only the server may
// set), listed and deleted with the signed-in user's session.
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "../../server/db/schema.ts";
import { type KeyScope, scopeFromPermissions, scopeToPermissions } from "../../server/domain/access.ts";
import type { Services } from "../../server/services.ts";
import {
  EXPIRY_OPTIONS,
  EXPIRY_VALUES,
  type ExpiryChoice,
  KEY_NAME_MAX,
} from "../components/api-keys/options.ts";

export { type ExpiryChoice, KEY_NAME_MAX };

const DAY_SECONDS = 24 * 60 * 60;

export function expiresInSeconds(choice: ExpiryChoice): number | null {
  const days = EXPIRY_OPTIONS.find((c) => c.value === choice)?.days ?? null;
  return days === null ? null : days * DAY_SECONDS;
}

export const createKeySchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, "Give the key a name")
      .max(KEY_NAME_MAX, `Name must be at most ${KEY_NAME_MAX} characters`),
    expiry: z.enum(EXPIRY_VALUES, { message: "Choose when the key expires" }),
    scope: z.enum(["all", "projects"], { message: "Choose which projects the key may use" }),
    projectIds: z.array(z.string().min(1)).max(500),
    access: z.enum(["read", "publish"], { message: "Choose read or publish access" }),
  })
  .refine((v) => v.scope === "all" || v.projectIds.length > 0, {
    path: ["projectIds"],
    message: "Choose at least one project",
  });
export type CreateKeyInput = z.infer<typeof createKeySchema>;

export function createKeyValues(form: FormData) {
  return {
    name: String(form.get("name") ?? ""),
    expiry: String(form.get("expiry") ?? ""),
    scope: String(form.get("scope") ?? ""),
    projectIds: [...new Set(form.getAll("projectIds").map(String))],
    access: String(form.get("access") ?? ""),
  };
}

export class UnknownProjectError extends Error {
  constructor() {
    super("Choose only your own projects");
  }
}

export interface OwnProject {
  id: string;
  slug: string;
  name: string;
}

export async function listOwnProjects(db: Kysely<Database>, userId: string): Promise<OwnProject[]> {
  return db
    .selectFrom("project")
    .select(["id", "slug", "name"])
    .where("owner_id", "=", userId)
    .orderBy("slug")
    .execute();
}

export interface CreatedKey {
  id: string;
  name: string | null;
  /** The secret: shown once, never stored in the clear. */
  key: string;
  expiresAt: string | null;
}

/** Creates a key for the user; chosen projects must be the user's own. */
export async function createApiKey(
  services: Services,
  userId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  if (input.scope.projects !== "*") {
    const own = new Set((await listOwnProjects(services.database.db, userId)).map((p) => p.id));
    if (input.scope.projects.length === 0 || input.scope.projects.some((id) => !own.has(id))) {
      throw new UnknownProjectError();
    }
  }
  const created = await services.auth.api.createApiKey({
    body: {
      userId,
      name: input.name,
      expiresIn: input.expiresIn,
      permissions: scopeToPermissions(input.scope),
    },
  });
  return {
    id: created.id,
    name: created.name,
    key: created.key,
    expiresAt: created.expiresAt ? new Date(created.expiresAt).toISOString() : null,
  };
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

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The signed-in user's keys, newest first. */
export async function listApiKeys(
  services: Services,
  headers: Headers,
  now = new Date(),
): Promise<KeySummary[]> {
  const { apiKeys } = await services.auth.api.listApiKeys({ headers });
  return apiKeys
    .map((k) => {
      const expiresAt = iso(k.expiresAt);
      return {
        id: k.id,
        name: k.name,
        start: k.start,
        prefix: k.prefix,
        scope: scopeFromPermissions(k.permissions),
        lastRequest: iso(k.lastRequest),
        expiresAt,
        createdAt: iso(k.createdAt) ?? now.toISOString(),
        expired: expiresAt !== null && new Date(expiresAt).getTime() < now.getTime(),
      };
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Deletes one of the signed-in user's keys; false when there is no such key of theirs. */
export async function deleteApiKey(services: Services, headers: Headers, keyId: string): Promise<boolean> {
  try {
    const result = await services.auth.api.deleteApiKey({ body: { keyId }, headers });
    return result.success;
  } catch (error) {
    if ((error as { statusCode?: number })?.statusCode === 404) return false;
    throw error;
  }
}

/** Deletes the signed-in user's expired keys (only theirs); returns how many went. */
export async function deleteExpiredApiKeys(services: Services, headers: Headers, now = new Date()) {
  const expired = (await listApiKeys(services, headers, now)).filter((k) => k.expired);
  let deleted = 0;
  for (const key of expired) if (await deleteApiKey(services, headers, key.id)) deleted++;
  return deleted;
}
