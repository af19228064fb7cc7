// Organizations, their members and invitations (docs/decisions/040-organizations.md).
//
// An organization is also an owner account: a row in `user` with the organization's id, its slug
// as username and an address under ORG_EMAIL_DOMAIN that receives nothing. So the slug and the
// usernames share one unique index, projects, download allowances, audit entries, plans and
// subscriptions hang off one owner id whether a person or an organization owns them, and /dl and
// /releases find both the same way. That account has no credentials and is refused every session
// (auth.ts); its people are its members, each with a role. What a role allows is decided in
// authorization.ts; this module loads roles and enforces the rules of membership (an
// organization always keeps an owner).
import {
  type CreateOrgInput,
  INVITATION_VALID_DAYS,
  type InviteMemberInput,
  type Organization,
  type OrgInvitation,
  type OrgMember,
  type OrgRole,
} from "@packyard/contract/orgs.ts";
import type { Kysely, Transaction } from "kysely";
import { sql } from "kysely";
import {
  assertUsernameAvailable,
  type Clock,
  holdNamesOfDeletedUser,
  UsernameTakenError,
  usernameKey,
} from "../accounts/usernames.ts";
import {
  type Actor,
  assertAccountAccess,
  assertOrgAction,
  assertRoleChangeAllowed,
  assertSsoSatisfied,
  isPerson,
  type OrgAction,
} from "../platform/core/authorization.ts";
import { DomainError, isUniqueViolation, notFound } from "../platform/core/errors.ts";
import { randomId } from "../platform/core/ids.ts";
import { type Caller, inTransaction } from "../platform/core/use-case.ts";
import type { Database } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { organizationInvitationMail } from "../platform/mail/templates.ts";
import { isPostgres } from "../releases/blobs.ts";

type Db = Kysely<Database>;
type Tx = Db | Transaction<Database>;

/** The domain of an organization account's address: reserved (RFC 2606), never delivered. */
export const ORG_EMAIL_DOMAIN = "organizations.packyard.invalid";

/** Whether an account's address is an organization's (auth.ts refuses those a session). */
export function isOrganizationEmail(email: string): boolean {
  return email.toLowerCase().endsWith(`@${ORG_EMAIL_DOMAIN}`);
}

const systemClock: Clock = () => new Date();
const DAY_MS = 24 * 60 * 60 * 1000;

export interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

/** The organization whose slug this is (any case), if any. */
export async function findOrganization(db: Tx, slug: string): Promise<OrganizationRow | undefined> {
  return db
    .selectFrom("organization")
    .select(["id", "slug", "name", "created_at"])
    .where(sql<string>`lower(slug)`, "=", usernameKey(slug))
    .executeTakeFirst();
}

export async function isOrganization(db: Tx, ownerId: string): Promise<boolean> {
  const row = await db.selectFrom("organization").select("id").where("id", "=", ownerId).executeTakeFirst();
  return row !== undefined;
}

/** The person a use case on an organization acts for: organizations are managed by people, not jobs. */
export function personOf(caller: Caller): Actor {
  if (caller.actor.kind === "system")
    throw new DomainError("FORBIDDEN", "Organizations are managed by people");
  return caller.actor;
}

/** The user's role in the organization, or null. */
export async function memberRole(db: Tx, orgId: string, userId: string): Promise<OrgRole | null> {
  const row = await db
    .selectFrom("org_member")
    .select("role")
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

/**
 * The actor's role in the organization owning a project (ownerId), for authorization.ts: null
 * for nobody, for an organization's key, and when the owner is a person.
 */
export async function roleFor(db: Tx, actor: Actor | null, ownerId: string): Promise<OrgRole | null> {
  if (!actor || !isPerson(actor) || actor.userId === ownerId) return null;
  return enforcedMemberRole(db, ownerId, actor);
}

/**
 * The actor's role in the organization, once the organization's sign-in rule lets them in
 * (SSO_REQUIRED otherwise: authorization.ts's assertSsoSatisfied); null for a non-member.
 */
async function enforcedMemberRole(db: Tx, orgId: string, actor: Actor): Promise<OrgRole | null> {
  const row = await db
    .selectFrom("org_member")
    .innerJoin("organization", "organization.id", "org_member.org_id")
    .select(["org_member.role", "organization.slug", "organization.sso_enforced"])
    .where("org_member.org_id", "=", orgId)
    .where("org_member.user_id", "=", actor.userId)
    .executeTakeFirst();
  if (!row) return null;
  assertSsoSatisfied(actor, { id: orgId, slug: row.slug, enforced: Boolean(row.sso_enforced) }, row.role);
  return row.role;
}

/** The organization by slug with the actor's role, if the actor may do `action`; else NOT_FOUND or FORBIDDEN. */
export async function requireOrganization(
  db: Tx,
  actor: Actor,
  slug: string,
  action: OrgAction,
): Promise<{ org: OrganizationRow; role: OrgRole }> {
  const org = await findOrganization(db, slug);
  const role = org && isPerson(actor) ? await enforcedMemberRole(db, org.id, actor) : null;
  assertOrgAction(actor, role, action);
  return { org: org!, role: role! };
}

function nameTaken(): DomainError {
  return new DomainError("NAME_TAKEN", "This name is already taken by a user or an organization", {
    slug: "This name is already taken by a user or an organization",
  });
}

/**
 * Creates an organization with the actor (a person, signed in or with an all-projects publish
 * key) as its owner. Its slug must be free among users and organizations, held names included.
 */
export async function createOrganization(
  db: Db,
  actor: Actor,
  input: CreateOrgInput,
  clock: Clock = systemClock,
): Promise<Organization> {
  assertAccountAccess(actor, "publish");
  if (!isPerson(actor))
    throw new DomainError("FORBIDDEN", "An organization's key cannot create organizations");
  const id = randomId(32);
  try {
    // The common refusal first, with a friendly message; the unique index decides races.
    await assertUsernameAvailable(db, id, input.slug, clock);
  } catch (error) {
    if (error instanceof UsernameTakenError) throw nameTaken();
    throw error;
  }
  const now = clock();
  const iso = now.toISOString();
  const pg = isPostgres(db);
  try {
    await inTransaction(db, async (tx) => {
      await tx
        .insertInto("user")
        .values({
          id,
          email: `${id}@${ORG_EMAIL_DOMAIN}`,
          name: input.name,
          image: null,
          emailVerified: pg ? false : 0,
          username: input.slug,
          createdAt: pg ? now : iso,
          updatedAt: pg ? now : iso,
        })
        .execute();
      await tx
        .insertInto("organization")
        .values({
          id,
          slug: input.slug,
          name: input.name,
          created_by: actor.userId,
          created_at: iso,
          updated_at: iso,
        })
        .execute();
      await tx
        .insertInto("org_member")
        .values({ org_id: id, user_id: actor.userId, role: "owner", created_at: iso })
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
  return {
    id,
    slug: input.slug,
    name: input.name,
    role: "owner",
    memberCount: 1,
    projectCount: 0,
    createdAt: iso,
  };
}

/** The organizations the user belongs to, with their role, by slug. */
export async function listOrganizations(db: Tx, userId: string): Promise<Organization[]> {
  const rows = await db
    .selectFrom("org_member as me")
    .innerJoin("organization", "organization.id", "me.org_id")
    .select([
      "organization.id",
      "organization.slug",
      "organization.name",
      "organization.created_at",
      "me.role",
      (eb) =>
        eb
          .selectFrom("org_member")
          .select((e) => e.fn.countAll<number | string>().as("n"))
          .whereRef("org_member.org_id", "=", "organization.id")
          .as("members"),
      (eb) =>
        eb
          .selectFrom("project")
          .select((e) => e.fn.countAll<number | string>().as("n"))
          .whereRef("project.owner_id", "=", "organization.id")
          .as("projects"),
    ])
    .where("me.user_id", "=", userId)
    .orderBy("organization.slug")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    slug: r.slug,
    name: r.name,
    role: r.role,
    memberCount: Number(r.members ?? 0),
    projectCount: Number(r.projects ?? 0),
    createdAt: r.created_at,
  }));
}

/** One organization as its member sees it. */
export async function describeOrganization(db: Tx, actor: Actor, slug: string): Promise<Organization> {
  const { org } = await requireOrganization(db, actor, slug, "view");
  const found = (await listOrganizations(db, actor.userId)).find((o) => o.id === org.id);
  if (!found) throw notFound("Organization not found");
  return found;
}

/** Renames an organization (its display name; the slug stays). Admins and owners. */
export async function updateOrganization(
  db: Db,
  actor: Actor,
  slug: string,
  input: { name: string },
  clock: Clock = systemClock,
): Promise<Organization> {
  const now = clock();
  return inTransaction(db, async (tx) => {
    const { org } = await requireOrganization(tx, actor, slug, "admin");
    await tx
      .updateTable("organization")
      .set({ name: input.name, updated_at: now.toISOString() })
      .where("id", "=", org.id)
      .execute();
    await tx
      .updateTable("user")
      .set({ name: input.name, updatedAt: isPostgres(db) ? now : now.toISOString() })
      .where("id", "=", org.id)
      .execute();
    return describeOrganization(tx, actor, slug);
  });
}

/**
 * Deletes an organization (owners only) once it owns no project: its projects are transferred or
 * deleted first, so nothing is lost by accident. Its name stays held (decision 014), like a
 * deleted account's, so nobody else publishes at the URLs its machines still use.
 */
export async function deleteOrganization(db: Db, actor: Actor, slug: string, clock: Clock = systemClock) {
  await inTransaction(db, async (tx) => {
    const { org } = await requireOrganization(tx, actor, slug, "own");
    const projects = await tx
      .selectFrom("project")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("owner_id", "=", org.id)
      .executeTakeFirstOrThrow();
    if (Number(projects.n) > 0)
      throw new DomainError(
        "ORG_NOT_EMPTY",
        `${org.slug} still owns ${projects.n} project${Number(projects.n) === 1 ? "" : "s"}: transfer or delete ${Number(projects.n) === 1 ? "it" : "them"} first`,
      );
    await holdNamesOfDeletedUser(tx, org.id, clock);
    await tx.deleteFrom("apikey").where("referenceId", "=", org.id).execute();
    await tx.deleteFrom("organization").where("id", "=", org.id).execute();
    await tx.deleteFrom("user").where("id", "=", org.id).execute();
  });
}

// ---------------------------------------------------------------------------------------------
// Members.

export async function listMembers(db: Tx, actor: Actor, slug: string): Promise<OrgMember[]> {
  const { org } = await requireOrganization(db, actor, slug, "view");
  return membersOf(db, org.id);
}

async function membersOf(db: Tx, orgId: string): Promise<OrgMember[]> {
  const rows = await db
    .selectFrom("org_member")
    .innerJoin("user", "user.id", "org_member.user_id")
    .select(["user.id", "user.username", "user.name", "org_member.role", "org_member.created_at"])
    .where("org_member.org_id", "=", orgId)
    .orderBy("user.username")
    .execute();
  return rows.map((r) => ({
    userId: r.id,
    username: r.username ?? "",
    name: r.name,
    role: r.role,
    joinedAt: r.created_at,
  }));
}

async function memberByUsername(db: Tx, orgId: string, username: string) {
  const row = await db
    .selectFrom("org_member")
    .innerJoin("user", "user.id", "org_member.user_id")
    .select(["user.id as userId", "org_member.role"])
    .where("org_member.org_id", "=", orgId)
    .where(sql<string>`lower(username)`, "=", usernameKey(username))
    .executeTakeFirst();
  if (!row) throw notFound("Member not found");
  return row;
}

/**
 * Holds the organizations' rows until the transaction ends, so that the owners counted under it
 * are still the owners when a membership changes. PostgreSQL runs READ COMMITTED: without it two
 * owners stepping down at once each count two owners and the organization is left with none.
 * In id order, so that transactions locking several organizations cannot deadlock. SQLite needs
 * nothing: its one connection runs one transaction at a time (platform/db/database.ts).
 */
async function lockOrganizations(tx: Transaction<Database>, orgIds: string[]): Promise<void> {
  if (orgIds.length === 0 || !isPostgres(tx)) return;
  await tx
    .selectFrom("organization")
    .select("id")
    .where("id", "in", orgIds)
    .orderBy("id")
    .forUpdate()
    .execute();
}

async function ownerCount(db: Tx, orgId: string): Promise<number> {
  const row = await db
    .selectFrom("org_member")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("org_id", "=", orgId)
    .where("role", "=", "owner")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const lastOwner = () =>
  new DomainError(
    "ORG_LAST_OWNER",
    "An organization needs at least one owner: make another member an owner first",
  );

/**
 * Gives a member another role: admins and owners; only owners make or unmake owners (which is
 * how ownership is transferred), and the last owner stays one.
 */
export async function updateMemberRole(
  db: Db,
  actor: Actor,
  slug: string,
  username: string,
  role: OrgRole,
): Promise<OrgMember> {
  const { org, role: actorRole } = await requireOrganization(db, actor, slug, "admin");
  return inTransaction(db, async (tx) => {
    await lockOrganizations(tx, [org.id]);
    const member = await memberByUsername(tx, org.id, username);
    assertRoleChangeAllowed(actorRole, member.role, role);
    if (member.role === "owner" && role !== "owner" && (await ownerCount(tx, org.id)) <= 1) throw lastOwner();
    await tx
      .updateTable("org_member")
      .set({ role })
      .where("org_id", "=", org.id)
      .where("user_id", "=", member.userId)
      .execute();
    const updated = (await membersOf(tx, org.id)).find((m) => m.userId === member.userId);
    return updated!;
  });
}

/**
 * Removes a member: admins and owners remove others (only owners remove an owner), anyone may
 * leave. The last owner can do neither. The member's personal keys stop reaching the
 * organization's projects at once (they only ever did through the role).
 */
export async function removeMember(db: Db, actor: Actor, slug: string, username: string): Promise<void> {
  const { org, role: actorRole } = await requireOrganization(db, actor, slug, "view");
  await inTransaction(db, async (tx) => {
    await lockOrganizations(tx, [org.id]);
    const member = await memberByUsername(tx, org.id, username);
    if (member.userId !== actor.userId) {
      assertOrgAction(actor, actorRole, "admin");
      assertRoleChangeAllowed(actorRole, member.role, null);
    }
    if (member.role === "owner" && (await ownerCount(tx, org.id)) <= 1) throw lastOwner();
    await tx
      .deleteFrom("org_member")
      .where("org_id", "=", org.id)
      .where("user_id", "=", member.userId)
      .execute();
  });
}

// ---------------------------------------------------------------------------------------------
// Invitations.

/** Where an invitation is accepted: the link in its mail. */
export function invitationUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/invitations/${encodeURIComponent(id)}`;
}

type InvitationRow = Database["org_invitation"] & { org_slug: string; inviter: string | null };

function toInvitation(baseUrl: string, row: InvitationRow): OrgInvitation {
  return {
    id: row.id,
    organization: row.org_slug,
    email: row.email,
    role: row.role,
    invitedBy: row.inviter,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    url: invitationUrl(baseUrl, row.id),
  };
}

function invitations(db: Tx) {
  return db
    .selectFrom("org_invitation")
    .innerJoin("organization", "organization.id", "org_invitation.org_id")
    .leftJoin("user as inviter", "inviter.id", "org_invitation.invited_by")
    .selectAll("org_invitation")
    .select(["organization.slug as org_slug", "inviter.username as inviter"]);
}

/**
 * Invites someone by email (admins and owners; only owners invite owners). The caller mails the
 * link (invitationMail). Inviting an address again replaces its open invitation.
 */
export async function createInvitation(
  db: Db,
  actor: Actor,
  slug: string,
  input: InviteMemberInput,
  baseUrl: string,
  clock: Clock = systemClock,
): Promise<OrgInvitation> {
  return inTransaction(db, async (tx) => {
    const { org, role: actorRole } = await requireOrganization(tx, actor, slug, "admin");
    assertRoleChangeAllowed(actorRole, null, input.role);
    const member = await tx
      .selectFrom("org_member")
      .innerJoin("user", "user.id", "org_member.user_id")
      .select("user.id")
      .where("org_member.org_id", "=", org.id)
      .where(sql<string>`lower(email)`, "=", input.email.toLowerCase())
      .executeTakeFirst();
    if (member) throw new DomainError("ALREADY_MEMBER", `${input.email} is already a member of ${org.slug}`);
    const now = clock();
    const id = randomId(32);
    await tx
      .updateTable("org_invitation")
      .set({ revoked_at: now.toISOString() })
      .where("org_id", "=", org.id)
      .where(sql<string>`lower(email)`, "=", input.email.toLowerCase())
      .where("accepted_at", "is", null)
      .where("revoked_at", "is", null)
      .execute();
    await tx
      .insertInto("org_invitation")
      .values({
        id,
        org_id: org.id,
        email: input.email.toLowerCase(),
        role: input.role,
        invited_by: actor.userId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + INVITATION_VALID_DAYS * DAY_MS).toISOString(),
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
      })
      .execute();
    const row = await invitations(tx).where("org_invitation.id", "=", id).executeTakeFirstOrThrow();
    return toInvitation(baseUrl, row as InvitationRow);
  });
}

/**
 * createInvitation, then the link mailed to the invitee (through the outbox when no SMTP is
 * configured). Used by the API and the dashboard alike.
 */
export async function inviteMember(
  db: Db,
  mailer: Mailer,
  actor: Actor,
  slug: string,
  input: InviteMemberInput,
  baseUrl: string,
  clock: Clock = systemClock,
): Promise<OrgInvitation> {
  const invitation = await createInvitation(db, actor, slug, input, baseUrl, clock);
  await mailInvitation(db, mailer, invitation);
  return invitation;
}

/** Mails an invitation's link to the invitee (once it is stored: the link must work). */
export async function mailInvitation(db: Tx, mailer: Mailer, invitation: OrgInvitation): Promise<void> {
  const org = await findOrganization(db, invitation.organization);
  await mailer.send(
    organizationInvitationMail(invitation.email, {
      organization: invitation.organization,
      organizationName: org?.name ?? invitation.organization,
      invitedBy: invitation.invitedBy,
      role: invitation.role,
      url: invitation.url,
      validDays: INVITATION_VALID_DAYS,
    }),
  );
}

/** The organization's open invitations (admins and owners). */
export async function listInvitations(
  db: Tx,
  actor: Actor,
  slug: string,
  baseUrl: string,
  clock: Clock = systemClock,
): Promise<OrgInvitation[]> {
  const { org } = await requireOrganization(db, actor, slug, "admin");
  const rows = await invitations(db)
    .where("org_invitation.org_id", "=", org.id)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", clock().toISOString())
    .orderBy("org_invitation.created_at", "desc")
    .execute();
  return rows.map((r) => toInvitation(baseUrl, r as InvitationRow));
}

export async function revokeInvitation(
  db: Db,
  actor: Actor,
  slug: string,
  id: string,
  clock: Clock = systemClock,
): Promise<void> {
  const { org } = await requireOrganization(db, actor, slug, "admin");
  const done = await db
    .updateTable("org_invitation")
    .set({ revoked_at: clock().toISOString() })
    .where("id", "=", id)
    .where("org_id", "=", org.id)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) === 0) throw notFound("Invitation not found");
}

export interface InvitationView {
  id: string;
  organization: { slug: string; name: string };
  email: string;
  role: OrgRole;
  invitedBy: string | null;
  expiresAt: string;
  state: "open" | "accepted" | "expired";
}

/** An invitation as its link shows it (to anyone holding the link: the id is the secret). */
export async function viewInvitation(
  db: Tx,
  id: string,
  clock: Clock = systemClock,
): Promise<InvitationView> {
  const row = await invitations(db)
    .select("organization.name as org_name")
    .where("org_invitation.id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("Invitation not found");
  const state = row.accepted_at
    ? "accepted"
    : row.revoked_at || row.expires_at <= clock().toISOString()
      ? "expired"
      : "open";
  return {
    id: row.id,
    organization: { slug: row.org_slug, name: row.org_name },
    email: row.email,
    role: row.role,
    invitedBy: row.inviter,
    expiresAt: row.expires_at,
    state,
  };
}

/**
 * Accepts an invitation as the signed-in person whose account has the invited address (an
 * existing account, or one made from the link). Returns the organization joined.
 */
export async function acceptInvitation(
  db: Db,
  actor: Actor,
  id: string,
  clock: Clock = systemClock,
): Promise<Organization> {
  if (actor.kind !== "session")
    throw new DomainError("FORBIDDEN", "Accept an invitation signed in, from the link in its mail");
  const now = clock();
  return inTransaction(db, async (tx) => {
    const row = await tx.selectFrom("org_invitation").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw notFound("Invitation not found");
    if (row.accepted_at) throw new DomainError("ALREADY_MEMBER", "This invitation was already accepted");
    if (row.revoked_at || row.expires_at <= now.toISOString())
      throw new DomainError(
        "INVITATION_EXPIRED",
        "This invitation has expired or was withdrawn: ask the organization for a new one",
      );
    const user = await tx
      .selectFrom("user")
      .select("email")
      .where("id", "=", actor.userId)
      .executeTakeFirstOrThrow();
    if (user.email.toLowerCase() !== row.email.toLowerCase())
      throw new DomainError(
        "INVITATION_EMAIL_MISMATCH",
        `This invitation is for ${row.email}: sign in with that address to accept it`,
      );
    if (await memberRole(tx, row.org_id, actor.userId))
      throw new DomainError("ALREADY_MEMBER", "You are already a member of this organization");
    await tx
      .insertInto("org_member")
      .values({ org_id: row.org_id, user_id: actor.userId, role: row.role, created_at: now.toISOString() })
      .execute();
    await tx
      .updateTable("org_invitation")
      .set({ accepted_at: now.toISOString(), accepted_by: actor.userId })
      .where("id", "=", id)
      .execute();
    const org = (await listOrganizations(tx, actor.userId)).find((o) => o.id === row.org_id);
    return org!;
  });
}

/**
 * Why the user may not delete their account now: the organizations they are the only owner of
 * would be left without one. Undefined when nothing stands in the way.
 */
export async function accountDeletionBlocker(db: Tx, userId: string): Promise<string | undefined> {
  const sole = await db
    .selectFrom("org_member as me")
    .innerJoin("organization", "organization.id", "me.org_id")
    .select("organization.slug")
    .where("me.user_id", "=", userId)
    .where("me.role", "=", "owner")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("org_member as other")
            .select("other.user_id")
            .whereRef("other.org_id", "=", "me.org_id")
            .where("other.role", "=", "owner")
            .where("other.user_id", "!=", userId),
        ),
      ),
    )
    .orderBy("organization.slug")
    .execute();
  if (sole.length === 0) return undefined;
  const names = sole.map((o) => o.slug).join(", ");
  return `You are the only owner of ${names}: make another member an owner, or delete the organization, before deleting your account`;
}

/**
 * Takes a person whose account is being deleted out of their organizations, refused with
 * ORG_LAST_OWNER while that would leave one without an owner. The check and the removal happen
 * under the organizations' locks, like every other change of an owner, so two owners deleting
 * their accounts at once cannot both go (the account's own deletion would remove the memberships
 * only later, outside this transaction).
 */
export async function leaveOrganizationsOfDeletedAccount(db: Db, userId: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    const memberships = await tx
      .selectFrom("org_member")
      .select("org_id")
      .where("user_id", "=", userId)
      .execute();
    const orgIds = memberships.map((m) => m.org_id);
    await lockOrganizations(tx, orgIds);
    const blocker = await accountDeletionBlocker(tx, userId);
    if (blocker) throw new DomainError("ORG_LAST_OWNER", blocker);
    await tx.deleteFrom("org_member").where("user_id", "=", userId).execute();
  });
}

/**
 * Who hears about an owner account by mail: the person, or an organization's owners (its own
 * address receives nothing).
 */
export async function ownerRecipients(db: Tx, ownerId: string): Promise<{ email: string; name: string }[]> {
  if (!(await isOrganization(db, ownerId))) {
    const user = await db
      .selectFrom("user")
      .select(["email", "name"])
      .where("id", "=", ownerId)
      .executeTakeFirst();
    return user ? [user] : [];
  }
  return db
    .selectFrom("org_member")
    .innerJoin("user", "user.id", "org_member.user_id")
    .select(["user.email", "user.name"])
    .where("org_member.org_id", "=", ownerId)
    .where("org_member.role", "=", "owner")
    .execute();
}
