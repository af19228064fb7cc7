// Loaders and actions of the organization pages (/orgs/…, /invitations/…): the domain functions
// (server/domain/orgs.ts) do the work and enforce the rules, authorization.ts decides who may;
// this file only adapts them to pages and forms (dashboard.server.ts answers the forms).
import type { AuditAction } from "@packyard/contract";
import type { OrgRole } from "@packyard/contract/orgs.ts";
import type { Kysely } from "kysely";
import { data } from "react-router";
import { recordAudit } from "../../server/audit/record.ts";
import { type AuditSource, apiKeyDetails, auditActorOf } from "../../server/audit/request.ts";
import type { Database } from "../../server/db/schema.ts";
import {
  type CreatedKey,
  createUserApiKey,
  deleteUserApiKey,
  type KeySummary,
  listUserApiKeys,
} from "../../server/domain/api-keys.ts";
import {
  type Actor,
  assertOrgAction,
  type KeyScope,
  type OrgAction,
} from "../../server/domain/authorization.ts";
import { DomainError } from "../../server/domain/errors.ts";
import { type OrganizationRow, requireOrganization } from "../../server/domain/orgs.ts";
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
    throw error;
  }
}

/**
 * An entry in an owner's audit log (the organization's, or for a deleted one the member's own)
 * naming the member who acted: the same entries as /api/v1/orgs records.
 */
export function auditOrgAction(
  db: Db,
  source: AuditSource,
  ownerId: string,
  action: AuditAction,
  target: string | null,
  details?: Record<string, unknown>,
): Promise<void> {
  return recordAudit(db, {
    ownerId,
    actor: auditActorOf(source.actor),
    address: source.address,
    action,
    target,
    details,
  });
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
  acceptInvitation,
  createOrganization,
  deleteOrganization,
  describeOrganization,
  inviteMember,
  listInvitations,
  listMembers,
  listOrganizations,
  removeMember,
  revokeInvitation,
  updateMemberRole,
  updateOrganization,
  viewInvitation,
} from "../../server/domain/orgs.ts";

// ---------------------------------------------------------------------------------------------
// An organization's API keys (its admins and owners): owned by the organization (better-auth's
// referenceId), so they outlive whoever made them; scoped to its projects. The same functions
// as /api/v1/orgs/{slug}/keys, and the same audit entries in the organization's log.

/** The organization's projects a key may be scoped to. */
export function orgKeyProjects(db: Db, orgId: string) {
  return listOwnProjects(db, orgId);
}

export function listOrgKeys(db: Db, orgId: string, now = new Date()): Promise<KeySummary[]> {
  return listUserApiKeys(db, orgId, now);
}

export async function createOrgKey(
  services: Services,
  source: AuditSource,
  orgId: string,
  input: { name: string; expiresIn: number | null; scope: KeyScope },
): Promise<CreatedKey> {
  const db = services.database.db;
  const created = await createUserApiKey(services.auth, db, orgId, input);
  const summary = (await listUserApiKeys(db, orgId)).find((k) => k.id === created.id);
  await auditOrgAction(
    db,
    source,
    orgId,
    "api_key.created",
    input.name,
    summary ? apiKeyDetails(summary) : { keyId: created.id },
  );
  return created;
}

/** Deletes one of the organization's keys, recorded; false when it has no such key. */
export async function deleteOrgKey(
  services: Services,
  source: AuditSource,
  orgId: string,
  keyId: string,
  now = new Date(),
): Promise<boolean> {
  const db = services.database.db;
  const key = (await listUserApiKeys(db, orgId, now)).find((k) => k.id === keyId);
  if (!key || !(await deleteUserApiKey(db, orgId, keyId))) return false;
  await auditOrgAction(db, source, orgId, "api_key.deleted", key.name, apiKeyDetails(key));
  return true;
}
