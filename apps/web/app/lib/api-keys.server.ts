// API keys for the /api-keys page and the CLI token page: created by Packyard's server with
// better-auth's api-key plugin (scopes live in the key's permissions, which only the server may
// set), listed and deleted by owner — the same functions /api/v1/keys uses.
import type { Kysely } from "kysely";
import { type AuditSource, apiKeyDetails, auditAccountAction } from "../../server/audit/request.ts";
import type { Database } from "../../server/db/schema.ts";
import {
  type CreatedKey,
  createUserApiKey,
  deleteUserApiKey,
  type KeySummary,
  listScopeProjects,
  listUserApiKeys,
  type ScopeProject,
  UnknownProjectError,
} from "../../server/domain/api-keys.ts";
import type { KeyScope } from "../../server/domain/authorization.ts";
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
  const db = services.database.db;
  const created = await createUserApiKey(services.auth, db, userId, input);
  const summary = (await listUserApiKeys(db, userId)).find((k) => k.id === created.id);
  await auditAccountAction(db, sessionSource(userId, address), {
    action: "api_key.created",
    target: input.name,
    details: summary ? apiKeyDetails(summary) : { keyId: created.id },
  });
  return created;
}

export async function deleteApiKey(
  services: Services,
  userId: string,
  keyId: string,
  address: string | null,
): Promise<boolean> {
  const db = services.database.db;
  const key = (await listUserApiKeys(db, userId)).find((k) => k.id === keyId);
  if (!key || !(await deleteUserApiKey(db, userId, keyId))) return false;
  await auditAccountAction(db, sessionSource(userId, address), {
    action: "api_key.deleted",
    target: key.name,
    details: apiKeyDetails(key),
  });
  return true;
}

/** Deletes the user's expired keys, each recorded; returns how many went. */
export async function deleteExpiredApiKeys(
  services: Services,
  userId: string,
  address: string | null,
  now = new Date(),
): Promise<number> {
  let deleted = 0;
  for (const key of await listUserApiKeys(services.database.db, userId, now)) {
    if (key.expired && (await deleteApiKey(services, userId, key.id, address))) deleted++;
  }
  return deleted;
}

const sessionSource = (userId: string, address: string | null): AuditSource => ({
  actor: { kind: "session", userId },
  address,
});
