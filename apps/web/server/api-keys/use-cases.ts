// API keys as use cases (issue 39, decision 070): a person's own keys (/api/v1/keys, the /api-keys
// page, the CLI token page, the password reset that revokes them) and an organization's
// (/api/v1/orgs/{slug}/keys, its settings page). Each decides who may, then makes the change and
// its `api_key.*` entry in one transaction (use-case.ts). The entry lands in the keys' owner's
// log: the person's own, or the organization's, naming the member who acted.

import type { Auth } from "../auth/auth.ts";
import { requireOrganization } from "../orgs/storage.ts";
import { type Actor, assertAccountAccess, isPerson, type KeyScope } from "../platform/core/authorization.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import {
  type CreatedKey,
  createUserApiKey,
  deleteUserApiKey,
  type KeySummary,
  listUserApiKeys,
  scopeProjectIds,
} from "./storage.ts";

/** Whose keys: the caller's own, or those of the organization of this slug (its admins and owners). */
export interface KeyOwner {
  organization?: string;
}

/**
 * Managing one's own keys is account-wide: a session or an all-projects publish key of a person.
 * An organization's key manages no keys (it would mint further keys that outlive it), answered
 * as the organization's keys routes answer it.
 */
export function assertKeyManager(actor: Actor): void {
  if (!isPerson(actor)) throw notFound("An organization's key cannot manage API keys");
  assertAccountAccess(actor, "publish");
}

function personOf(caller: Caller): Actor {
  if (caller.actor.kind === "system") throw new DomainError("FORBIDDEN", "API keys are managed by a person");
  return caller.actor;
}

/** The id of the keys' owner, once the caller may manage its keys. */
async function keyOwnerId(db: Db, actor: Actor, owner: KeyOwner): Promise<string> {
  if (owner.organization === undefined) {
    assertKeyManager(actor);
    return actor.userId;
  }
  const { org } = await requireOrganization(db, actor, owner.organization, "admin");
  return org.id;
}

export interface CreateApiKeyInput extends KeyOwner {
  name: string;
  /** Seconds; null: never expires. */
  expiresIn: number | null;
  access: KeyScope["access"];
  /**
   * "*", the projects as the API names them (a slug, or owner/slug: NOT_FOUND naming the unknown
   * ones), or as the dashboard's form chooses them (ids: UnknownProjectError for one not reached).
   */
  projects: "*" | { refs: string[] } | { ids: string[] };
}

/** Creates a key; its secret is in the answer only (with the key's owner, to describe it). */
export async function createApiKey(
  deps: { db: Db; auth: Auth },
  caller: Caller,
  input: CreateApiKeyInput,
): Promise<{ created: CreatedKey; summary: KeySummary; ownerId: string }> {
  const { db, auth } = deps;
  const ownerId = await keyOwnerId(db, personOf(caller), input);
  const projects =
    input.projects === "*"
      ? "*"
      : "refs" in input.projects
        ? await scopeProjectIds(db, ownerId, input.projects.refs)
        : input.projects.ids;
  // better-auth stores the key (and hashes its secret) through its own connection, so outside the
  // transaction; a failure recording it takes the key back, so no key is left unrecorded.
  const created = await createUserApiKey(auth, db, ownerId, {
    name: input.name,
    expiresIn: input.expiresIn,
    scope: { projects, access: input.access },
  });
  try {
    const summary = await change(db, caller, async (tx, record) => {
      const summary = (await listUserApiKeys(tx, ownerId)).find((k) => k.id === created.id);
      if (!summary) throw new Error(`The API key ${created.id} just created is not stored`);
      record.audit({
        ownerId,
        action: "api_key.created",
        target: input.name,
        details: apiKeyDetails(summary),
      });
      return summary;
    });
    return { created, summary, ownerId };
  } catch (error) {
    await deleteUserApiKey(db, ownerId, created.id);
    throw error;
  }
}

/** Deletes one key; NOT_FOUND when the owner has no such key. */
export async function deleteApiKey(
  deps: { db: Db },
  caller: Caller,
  input: KeyOwner & { keyId: string },
): Promise<void> {
  const ownerId = await keyOwnerId(deps.db, personOf(caller), input);
  await change(deps.db, caller, async (tx, record) => {
    const key = (await listUserApiKeys(tx, ownerId)).find((k) => k.id === input.keyId);
    if (!key || !(await deleteUserApiKey(tx, ownerId, key.id))) throw notFound("API key not found");
    record.audit({ ownerId, action: "api_key.deleted", target: key.name, details: apiKeyDetails(key) });
  });
}

/**
 * Deletes the owner's expired keys (all of them with `all`: a password reset that revokes them),
 * one `api_key.deleted` entry each, as when they are deleted one by one; returns how many went.
 */
export async function deleteApiKeys(
  deps: { db: Db; now?: Date },
  caller: Caller,
  input: KeyOwner & ({ which: "expired" } | { which: "all"; reason: "password_reset" }),
): Promise<number> {
  const ownerId = await keyOwnerId(deps.db, personOf(caller), input);
  return change(deps.db, caller, async (tx, record) => {
    let deleted = 0;
    for (const key of await listUserApiKeys(tx, ownerId, deps.now)) {
      if (input.which === "expired" && !key.expired) continue;
      if (!(await deleteUserApiKey(tx, ownerId, key.id))) continue;
      deleted++;
      const details = apiKeyDetails(key);
      record.audit({
        ownerId,
        action: "api_key.deleted",
        target: key.name,
        details: input.which === "all" ? { ...details, reason: input.reason } : details,
      });
    }
    return deleted;
  });
}

/** What an API key entry keeps of the key: enough to recognise it after it is gone. */
function apiKeyDetails(key: Pick<KeySummary, "id" | "start" | "scope" | "expiresAt">) {
  return {
    keyId: key.id,
    start: key.start,
    access: key.scope.access,
    projects: key.scope.projects,
    expiresAt: key.expiresAt,
  };
}
