// Organizations as use cases (issue 39, decision 070; the rules are decision 040's): creating,
// renaming and deleting one, its members' roles and leaving, and its invitations. Each decides
// who may with platform/core/authorization.ts (through requireOrganization), then makes the change and
// its `organization.*` entry in one transaction (use-case.ts). The entries land in the
// organization's log, naming the member who acted; a deleted organization's log goes with it,
// so its deletion is in the deleting member's own.
import type {
  CreateOrgInput,
  InviteMemberInput,
  Organization,
  OrgInvitation,
  OrgMember,
  OrgRole,
} from "@packyard/contract/orgs.ts";
import type { Clock } from "../accounts/usernames.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import {
  acceptInvitation as acceptInvitationIn,
  createInvitation,
  createOrganization as createOrganizationIn,
  deleteOrganization as deleteOrganizationIn,
  listMembers,
  mailInvitation,
  personOf,
  removeMember as removeMemberIn,
  requireOrganization,
  revokeInvitation as revokeInvitationIn,
  updateMemberRole,
  updateOrganization,
} from "./storage.ts";

async function memberNamed(db: Db, actor: Actor, slug: string, username: string) {
  return (await listMembers(db, actor, slug)).find(
    (m) => m.username.toLowerCase() === username.toLowerCase(),
  );
}

/** Creates an organization with the caller as its owner. */
export async function createOrganization(
  deps: { db: Db; clock?: Clock },
  caller: Caller,
  input: CreateOrgInput,
): Promise<Organization> {
  const actor = personOf(caller);
  return change(deps.db, caller, async (tx, record) => {
    const created = await createOrganizationIn(tx, actor, input, deps.clock);
    record.audit({
      ownerId: created.id,
      action: "organization.created",
      target: created.slug,
      details: { name: created.name },
    });
    return created;
  });
}

/** Renames an organization (its display name; admins and owners); recorded when the name changed. */
export async function renameOrganization(
  deps: { db: Db; clock?: Clock },
  caller: Caller,
  input: { organization: string; name: string },
): Promise<Organization> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "admin");
  return change(deps.db, caller, async (tx, record) => {
    const updated = await updateOrganization(tx, actor, input.organization, { name: input.name }, deps.clock);
    if (updated.name !== org.name)
      record.audit({
        ownerId: org.id,
        action: "organization.renamed",
        target: org.slug,
        details: { from: org.name, to: updated.name },
      });
    return updated;
  });
}

/** Deletes an organization that owns no projects (owners). */
export async function deleteOrganization(
  deps: { db: Db; clock?: Clock },
  caller: Caller,
  input: { organization: string },
): Promise<void> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  await change(deps.db, caller, async (tx, record) => {
    await deleteOrganizationIn(tx, actor, org.slug, deps.clock);
    record.audit({
      ownerId: actor.userId,
      action: "organization.deleted",
      target: org.slug,
      details: { organizationId: org.id },
    });
  });
}

/** Gives a member another role (decision 040's rules); recorded when the role changed. */
export async function changeMemberRole(
  deps: { db: Db },
  caller: Caller,
  input: { organization: string; username: string; role: OrgRole },
): Promise<OrgMember> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "admin");
  return change(deps.db, caller, async (tx, record) => {
    const before = await memberNamed(tx, actor, input.organization, input.username);
    const member = await updateMemberRole(tx, actor, input.organization, input.username, input.role);
    if (before?.role !== member.role)
      record.audit({
        ownerId: org.id,
        action: "organization.member_role_changed",
        target: member.username,
        details: { from: before?.role ?? null, to: member.role },
      });
    return member;
  });
}

/** Removes a member (admins and owners), or the caller leaves (their own username). */
export async function removeMember(
  deps: { db: Db },
  caller: Caller,
  input: { organization: string; username: string },
): Promise<void> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "view");
  await change(deps.db, caller, async (tx, record) => {
    const member = await memberNamed(tx, actor, input.organization, input.username);
    await removeMemberIn(tx, actor, input.organization, input.username);
    record.audit({
      ownerId: org.id,
      action: "organization.member_removed",
      target: member?.username ?? input.username,
      details: { role: member?.role ?? null, left: member?.userId === actor.userId },
    });
  });
}

/**
 * Invites someone by email (admins and owners; only owners invite owners), then mails the link
 * once the invitation is stored.
 */
export async function inviteMember(
  deps: { db: Db; mailer: Mailer; baseUrl: string; clock?: Clock },
  caller: Caller,
  input: InviteMemberInput & { organization: string },
): Promise<OrgInvitation> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "admin");
  const invitation = await change(deps.db, caller, async (tx, record) => {
    const invitation = await createInvitation(
      tx,
      actor,
      input.organization,
      { email: input.email, role: input.role },
      deps.baseUrl,
      deps.clock,
    );
    record.audit({
      ownerId: org.id,
      action: "organization.invitation_created",
      target: invitation.email,
      details: { invitationId: invitation.id, role: invitation.role },
    });
    return invitation;
  });
  await mailInvitation(deps.db, deps.mailer, invitation);
  return invitation;
}

/** Withdraws an open invitation (admins and owners). */
export async function revokeInvitation(
  deps: { db: Db; clock?: Clock },
  caller: Caller,
  input: { organization: string; invitationId: string },
): Promise<void> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "admin");
  await change(deps.db, caller, async (tx, record) => {
    const invitation = await tx
      .selectFrom("org_invitation")
      .select(["email", "role"])
      .where("id", "=", input.invitationId)
      .where("org_id", "=", org.id)
      .executeTakeFirst();
    await revokeInvitationIn(tx, actor, input.organization, input.invitationId, deps.clock);
    record.audit({
      ownerId: org.id,
      action: "organization.invitation_revoked",
      target: invitation?.email ?? input.invitationId,
      details: { invitationId: input.invitationId, role: invitation?.role ?? null },
    });
  });
}

/** Accepts an invitation as the signed-in person it was sent to; returns the organization joined. */
export async function acceptInvitation(
  deps: { db: Db; clock?: Clock },
  caller: Caller,
  input: { invitationId: string },
): Promise<Organization> {
  const actor = personOf(caller);
  return change(deps.db, caller, async (tx, record) => {
    const joined = await acceptInvitationIn(tx, actor, input.invitationId, deps.clock);
    record.audit({
      ownerId: joined.id,
      action: "organization.invitation_accepted",
      target: joined.slug,
      details: { invitationId: input.invitationId, role: joined.role },
    });
    return joined;
  });
}
