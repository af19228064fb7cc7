// API keys for the /api-keys page and the CLI token page: created by Packyard's server with
// better-auth's api-key plugin (scopes live in the key's permissions, which only the server may
// set), listed and deleted by owner — the same use cases /api/v1/keys uses.
import type { Kysely } from "kysely";
import {
  type CreatedKey,
  type KeySummary,
  listScopeProjects,
  listUserApiKeys,
  type ScopeProject,
  UnknownProjectError,
} from "../../server/api-keys/storage.ts";
import {
  createApiKey as createKey,
  deleteApiKeys,
  deleteApiKey as deleteKey,
} from "../../server/api-keys/use-cases.ts";
import type { KeyScope } from "../../server/platform/core/authorization.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import type { Caller } from "../../server/platform/core/use-case.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import type { Services } from "../../server/services.ts";
import { EXPIRY_OPTIONS, type ExpiryChoice, KEY_NAME_MAX } from "../components/api-keys/options.ts";

export {
  type CreatedKey,
  type ExpiryChoice,
  KEY_NAME_MAX,
  type KeySummary,
  listScopeProjects,
  type ScopeProject,
  UnknownProjectError,
};

const DAY_SECONDS = 24 * 60 * 60;

export function expiresInSeconds(choice: ExpiryChoice): number | null {
  const days = EXPIRY_OPTIONS.find((c) => c.value === choice)?.days ?? null;
  return days === null ? null : days * DAY_SECONDS;
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

/** The user's keys, newest first. */
export function listApiKeys(services: Services, userId: string, now = new Date()): Promise<KeySummary[]> {
  return listUserApiKeys(services.database.db, userId, now);
}

/** Creates a key for the signed-in user, recorded in their audit log. */
export async function createApiKey(
  services: Services,
  userId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
  address: string | null,
): Promise<CreatedKey> {
  const { created } = await createKey(
    { db: services.database.db, auth: services.auth },
    sessionCaller(userId, address),
    {
      name: input.name,
      expiresIn: input.expiresIn,
      access: input.scope.access,
      projects: input.scope.projects === "*" ? "*" : { ids: input.scope.projects },
    },
  );
  return created;
}

/** Deletes one of the user's keys, recorded; false when they have no such key. */
export async function deleteApiKey(
  services: Services,
  userId: string,
  keyId: string,
  address: string | null,
): Promise<boolean> {
  try {
    await deleteKey({ db: services.database.db }, sessionCaller(userId, address), { keyId });
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") return false;
    throw error;
  }
}

/** Deletes the user's expired keys, each recorded; returns how many went. */
export function deleteExpiredApiKeys(
  services: Services,
  userId: string,
  address: string | null,
  now = new Date(),
): Promise<number> {
  return deleteApiKeys({ db: services.database.db, now }, sessionCaller(userId, address), {
    which: "expired",
  });
}

const sessionCaller = (userId: string, address: string | null): Caller => ({
  actor: { kind: "session", userId },
  address,
});
