// Loaders and actions of the organization pages (/orgs/…, /invitations/…): the use cases
// (server/orgs/use-cases.ts) make the changes, the domain functions (server/orgs/storage.ts)
// enforce the rules, authorization.ts decides who may; this file only adapts them to pages and
// forms (dashboard.server.ts answers the forms).
import type { OrgRole } from "@packyard/contract/orgs.ts";
import type { Kysely } from "kysely";
import { data } from "react-router";
import { type CreatedKey, type KeySummary, listUserApiKeys } from "../../server/api-keys/storage.ts";
import { createApiKey, deleteApiKey, deleteApiKeys } from "../../server/api-keys/use-cases.ts";
import { type OrganizationRow, requireOrganization } from "../../server/orgs/storage.ts";
import {
  type Actor,
  assertOrgAction,
  type KeyScope,
  type OrgAction,
} from "../../server/platform/core/authorization.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import type { Caller } from "../../server/platform/core/use-case.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import type { Services } from "../../server/services.ts";
import { listOwnProjects } from "./api-keys.server.ts";

type Db = Kysely<Database>;

/**
 * The organization by slug with the signed-in user's role, or the 404 page (not a member, or no
 * such organization: the same answer).
 */
export async function orgOr404(
  db: Db,
  actor: Actor,
  slug: string,
): Promise<{ org: OrganizationRow; role: OrgRole }> {
  try {
    return await requireOrganization(db, actor, slug, "view");
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw data(null, { status: 404 });
    // An organization that requires single sign-on, reached through another session: the 403 page.
    if (error instanceof DomainError && error.code === "SSO_REQUIRED")
      throw data(error.message, { status: 403 });
    throw error;
  }
}

/** What the role allows with the organization, so pages hide what would be refused. */
export function orgAbilities(actor: Actor, role: OrgRole) {
  const allows = (action: OrgAction) => {
    try {
      assertOrgAction(actor, role, action);
      return true;
    } catch {
      return false;
    }
  };
  return { admin: allows("admin"), own: allows("own") };
}

export {
  describeOrganization,
  listInvitations,
  listMembers,
  listOrganizations,
  viewInvitation,
} from "../../server/orgs/storage.ts";
export {
  acceptInvitation,
  changeMemberRole,
  createOrganization,
  deleteOrganization,
  inviteMember,
  removeMember,
  renameOrganization,
  revokeInvitation,
} from "../../server/orgs/use-cases.ts";

// ---------------------------------------------------------------------------------------------
// An organization's API keys (its admins and owners): owned by the organization (better-auth's
// referenceId), so they outlive whoever made them; scoped to its projects. The same use cases
// as /api/v1/orgs/{slug}/keys, and so the same audit entries in the organization's log.

/** The organization's projects a key may be scoped to. */
export function orgKeyProjects(db: Db, orgId: string) {
  return listOwnProjects(db, orgId);
}

export function listOrgKeys(db: Db, orgId: string, now = new Date()): Promise<KeySummary[]> {
  return listUserApiKeys(db, orgId, now);
}

export async function createOrgKey(
  services: Services,
  caller: Caller,
  slug: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  const { created } = await createApiKey({ db: services.database.db, auth: services.auth }, caller, {
    organization: slug,
    name: input.name,
    expiresIn: input.expiresIn,
    access: input.scope.access,
    projects: input.scope.projects === "*" ? "*" : { ids: input.scope.projects },
  });
  return created;
}

/** Deletes one of the organization's keys, recorded; false when it has no such key. */
export async function deleteOrgKey(
  services: Services,
  caller: Caller,
  slug: string,
  keyId: string,
): Promise<boolean> {
  try {
    await deleteApiKey({ db: services.database.db }, caller, { organization: slug, keyId });
    return true;
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") return false;
    throw error;
  }
}

/** Deletes the organization's expired keys, each recorded; returns how many went. */
export function deleteExpiredOrgKeys(services: Services, caller: Caller, slug: string): Promise<number> {
  return deleteApiKeys({ db: services.database.db }, caller, { organization: slug, which: "expired" });
}
