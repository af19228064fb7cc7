// API keys for the /api-keys page and the CLI token page: created by Packyard's server with
// better-auth's api-key plugin (scopes live in the key's permissions, which only the server may
// set), listed and deleted by owner — the same functions /api/v1/keys uses.
import type { Kysely } from "kysely";
import type { Database } from "../../server/db/schema.ts";
import {
  type CreatedKey,
  createUserApiKey,
  deleteExpiredUserApiKeys,
  deleteUserApiKey,
  type KeySummary,
  listUserApiKeys,
  UnknownProjectError,
} from "../../server/domain/api-keys.ts";
import type { KeyScope } from "../../server/domain/authorization.ts";
import type { Services } from "../../server/services.ts";
import { EXPIRY_OPTIONS, type ExpiryChoice, KEY_NAME_MAX } from "../components/api-keys/options.ts";

export { type CreatedKey, type ExpiryChoice, KEY_NAME_MAX, type KeySummary, UnknownProjectError };

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

export function createApiKey(
  services: Services,
  userId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  return createUserApiKey(services.auth, services.database.db, userId, input);
}

export function deleteApiKey(services: Services, userId: string, keyId: string): Promise<boolean> {
  return deleteUserApiKey(services.database.db, userId, keyId);
}

export function deleteExpiredApiKeys(services: Services, userId: string, now = new Date()): Promise<number> {
  return deleteExpiredUserApiKeys(services.database.db, userId, now);
}
