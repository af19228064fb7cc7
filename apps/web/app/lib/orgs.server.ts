// Loaders and actions of the organization pages (/orgs/…, /invitations/…): the domain functions
// (server/domain/orgs.ts) do the work and enforce the rules, authorization.ts decides who may;
// this file only adapts them to pages and forms (dashboard.server.ts answers the forms).
import type { OrgRole } from "@packyard/contract/orgs.ts";
import type { Kysely } from "kysely";
import { data } from "react-router";
import type { Database } from "../../server/db/schema.ts";
import { type Actor, assertOrgAction, type OrgAction } from "../../server/domain/authorization.ts";
import { DomainError } from "../../server/domain/errors.ts";
import { type OrganizationRow, requireOrganization } from "../../server/domain/orgs.ts";

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
