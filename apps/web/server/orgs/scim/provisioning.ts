// SCIM 2.0 provisioning over Packyard's own memberships (issue 43, docs/sso.md): the Users and
// Groups an organization's identity provider manages, and what follows from them.
//
// - A SCIM user is an address at one of the organization's verified domains (userName). It is
//   linked to the Packyard account with that address (the verified domain vouches for it), or to
//   a new verified account made for it (no password: its person signs in through the identity
//   provider, then picks a username at onboarding). Never at an unverified domain.
// - An active SCIM user is a member of the organization; its role follows its groups through the
//   organization's group roles (sso_group_roles, contract/sso.ts's roleFromGroups): the highest
//   role a group maps to, else for a new member the organization's default role (sso_default_role).
//   A member whom no group maps keeps the role they have (an owner who made the organization is
//   not demoted by being provisioned) until they leave the last group that mapped them, when they
//   fall back to the default role.
// - Deactivating (active false) or deleting a SCIM user removes the membership and ends the
//   sessions the organization's identity provider made for them (session.ssoOrganizationId):
//   nothing else of theirs — their account, other sessions, API keys, other organizations stay.
//   Reactivation makes them a member again.
// - No change leaves the organization without an owner: it is refused whole (409, ORG_LAST_OWNER).
//
// Every request that changes anything is one change() — one transaction with its audit entries
// (organization.member_provisioned, …_deprovisioned, …_role_synced), recorded under the SCIM token
// (tokens.ts). On PostgreSQL the organization's row is locked first, so changes of one
// organization's members take turns and the owners counted are still the owners at commit.
import { type OrgRole, orgRoles } from "@packyard/contract/orgs.ts";
import { roleFromGroups, type SsoGroupRoles, ssoGroupRoles } from "@packyard/contract/sso.ts";
import { sql } from "kysely";
import { DomainError, isUniqueViolation, notFound } from "../../platform/core/errors.ts";
import { newRowId, randomId } from "../../platform/core/ids.ts";
import { type Record as ChangeRecord, change, type Db, type Tx } from "../../platform/core/use-case.ts";
import type { ScimGroupTable, ScimUserTable } from "../../platform/db/schema.ts";
import { isPostgres } from "../../releases/blobs.ts";
import { memberRole } from "../storage.ts";
import {
  booleanOf,
  type EqFilter,
  GROUP_SCHEMA,
  invalidValue,
  isObject,
  lowerKeys,
  memberIdsOf,
  memberOfPath,
  type PatchOperation,
  parseFilter,
  patchOperations,
  scimError,
  textOf,
  USER_SCHEMA,
} from "./protocol.ts";
import type { ScimClient } from "./tokens.ts";

export interface ScimDeps {
  db: Db;
  /** `${BASE_URL}/scim/v2`: where the resources' meta.location point. */
  scimUrl: string;
  clock?: () => Date;
}

export interface ListQuery {
  filter?: string;
  offset: number;
  count: number;
}

const EMAIL = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/;
const MAX_USER_NAME = 320;

// ---------------------------------------------------------------------------------------------
// Representations (RFC 7643 §4).

interface UserFields {
  userName: string;
  externalId: string | null;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  active: boolean;
}

interface GroupRef {
  id: string;
  display_name: string;
}

function userResource(scimUrl: string, row: ScimUserTable, groups: GroupRef[]) {
  const formatted = [row.given_name, row.family_name].filter(Boolean).join(" ");
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    name: {
      ...(formatted ? { formatted } : {}),
      ...(row.given_name !== null ? { givenName: row.given_name } : {}),
      ...(row.family_name !== null ? { familyName: row.family_name } : {}),
    },
    ...(row.display_name !== null ? { displayName: row.display_name } : {}),
    emails: [{ value: row.user_name, type: "work", primary: true }],
    active: row.active === 1,
    groups: groups.map((g) => ({ value: g.id, display: g.display_name, $ref: `${scimUrl}/Groups/${g.id}` })),
    meta: {
      resourceType: "User",
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${scimUrl}/Users/${row.id}`,
    },
  };
}

interface MemberRef {
  id: string;
  user_name: string;
  display_name: string | null;
}

function groupResource(scimUrl: string, row: ScimGroupTable, members: MemberRef[] | undefined) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.display_name,
    ...(members
      ? {
          members: members.map((m) => ({
            value: m.id,
            display: m.display_name ?? m.user_name,
            $ref: `${scimUrl}/Users/${m.id}`,
          })),
        }
      : {}),
    meta: {
      resourceType: "Group",
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${scimUrl}/Groups/${row.id}`,
    },
  };
}

async function groupsOfUsers(db: Db | Tx, userIds: string[]): Promise<Map<string, GroupRef[]>> {
  const out = new Map<string, GroupRef[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom("scim_group_member")
    .innerJoin("scim_group", "scim_group.id", "scim_group_member.group_id")
    .select(["scim_group_member.scim_user_id", "scim_group.id", "scim_group.display_name"])
    .where("scim_group_member.scim_user_id", "in", userIds)
    .orderBy("scim_group.display_name")
    .execute();
  for (const row of rows) out.get(row.scim_user_id)!.push({ id: row.id, display_name: row.display_name });
  return out;
}

async function membersOfGroups(db: Db | Tx, groupIds: string[]): Promise<Map<string, MemberRef[]>> {
  const out = new Map<string, MemberRef[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db
    .selectFrom("scim_group_member")
    .innerJoin("scim_user", "scim_user.id", "scim_group_member.scim_user_id")
    .select(["scim_group_member.group_id", "scim_user.id", "scim_user.user_name", "scim_user.display_name"])
    .where("scim_group_member.group_id", "in", groupIds)
    .orderBy("scim_user.user_name")
    .execute();
  for (const row of rows)
    out.get(row.group_id)!.push({ id: row.id, user_name: row.user_name, display_name: row.display_name });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Membership.

/** The names of the groups a SCIM user is in. */
async function groupNames(tx: Tx, scimUserId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom("scim_group_member")
    .innerJoin("scim_group", "scim_group.id", "scim_group_member.group_id")
    .select("scim_group.display_name")
    .where("scim_group_member.scim_user_id", "=", scimUserId)
    .execute();
  return rows.map((r) => r.display_name);
}

function mappingOf(json: string): SsoGroupRoles {
  try {
    const parsed = ssoGroupRoles.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/**
 * A provisioning change's membership work, in its transaction: each SCIM user it touched is made
 * a member with the role its groups give, or stops being one; finish() refuses the whole change
 * if it would leave the organization without an owner.
 */
interface MembershipContext {
  tx: Tx;
  record: ChangeRecord;
  org: ScimClient["org"];
  mapping: SsoGroupRoles;
  defaultRole: OrgRole;
  now: string;
}

class Memberships {
  private readonly ownerLost: string[] = [];
  private readonly tx: Tx;
  private readonly record: ChangeRecord;
  private readonly org: ScimClient["org"];
  private readonly mapping: SsoGroupRoles;
  private readonly defaultRole: OrgRole;
  private readonly now: string;

  private constructor(context: MembershipContext) {
    this.tx = context.tx;
    this.record = context.record;
    this.org = context.org;
    this.mapping = context.mapping;
    this.defaultRole = context.defaultRole;
    this.now = context.now;
  }

  static async open(tx: Tx, record: ChangeRecord, org: ScimClient["org"], now: string): Promise<Memberships> {
    // PostgreSQL: changes of one organization's members take turns (storage.ts's lockOrganizations).
    if (isPostgres(tx))
      await tx.selectFrom("organization").select("id").where("id", "=", org.id).forUpdate().execute();
    const settings = await tx
      .selectFrom("organization")
      .select(["sso_default_role", "sso_group_roles"])
      .where("id", "=", org.id)
      .executeTakeFirstOrThrow();
    const defaultRole = orgRoles.includes(settings.sso_default_role) ? settings.sso_default_role : "viewer";
    return new Memberships({
      tx,
      record,
      org,
      mapping: mappingOf(settings.sso_group_roles),
      defaultRole,
      now,
    });
  }

  /**
   * Brings the membership of the user in line with its SCIM state. `previousGroups`: the names of
   * its groups before this change, when the change is to its groups (null otherwise).
   */
  async sync(user: ScimUserTable, previousGroups: string[] | null): Promise<void> {
    const { tx, org } = this;
    const current = await memberRole(tx, org.id, user.user_id);
    const target = user.user_name;
    if (user.active !== 1) {
      const ended = await tx
        .deleteFrom("session")
        .where("userId", "=", user.user_id)
        .where("ssoOrganizationId", "=", org.id)
        .executeTakeFirst();
      const sessionsEnded = Number(ended.numDeletedRows);
      if (!current && sessionsEnded === 0) return;
      if (current) {
        await tx
          .deleteFrom("org_member")
          .where("org_id", "=", org.id)
          .where("user_id", "=", user.user_id)
          .execute();
        if (current === "owner") this.ownerLost.push(target);
      }
      this.record.audit({
        ownerId: org.id,
        action: "organization.member_deprovisioned",
        target,
        details: { userId: user.user_id, role: current, sessionsEnded },
      });
      return;
    }
    const groups = await groupNames(tx, user.id);
    const { role, mapped } = roleFromGroups(groups, this.mapping, this.defaultRole);
    if (!current) {
      await tx
        .insertInto("org_member")
        .values({ org_id: org.id, user_id: user.user_id, role, created_at: this.now })
        .execute();
      this.record.audit({
        ownerId: org.id,
        action: "organization.member_provisioned",
        target,
        details: { userId: user.user_id, role, groups },
      });
      return;
    }
    const lostMapping =
      previousGroups !== null && roleFromGroups(previousGroups, this.mapping, this.defaultRole).mapped;
    const wanted = mapped ? role : lostMapping ? this.defaultRole : current;
    if (wanted === current) return;
    await tx
      .updateTable("org_member")
      .set({ role: wanted })
      .where("org_id", "=", org.id)
      .where("user_id", "=", user.user_id)
      .execute();
    if (current === "owner") this.ownerLost.push(target);
    this.record.audit({
      ownerId: org.id,
      action: "organization.member_role_synced",
      target,
      details: { userId: user.user_id, from: current, to: wanted, groups },
    });
  }

  /** Refuses the change when it took the organization's last owner away. */
  async finish(): Promise<void> {
    if (this.ownerLost.length === 0) return;
    const row = await this.tx
      .selectFrom("org_member")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where("org_id", "=", this.org.id)
      .where("role", "=", "owner")
      .executeTakeFirstOrThrow();
    if (Number(row.n) > 0) return;
    throw new DomainError(
      "ORG_LAST_OWNER",
      `${this.ownerLost.join(", ")} is the last owner of ${this.org.slug}, and an organization needs at least one owner: make another member an owner first (nothing was changed)`,
    );
  }
}

/** A provisioning change: one transaction, its membership work, its audit entries. */
function provision<T>(
  deps: ScimDeps,
  client: ScimClient,
  work: (tx: Tx, members: Memberships) => Promise<T>,
): Promise<T> {
  return change(deps.db, client.caller, async (tx, record) => {
    const members = await Memberships.open(tx, record, client.org, nowOf(deps));
    const value = await work(tx, members);
    await members.finish();
    return value;
  }).catch((error: unknown) => {
    if (isUniqueViolation(error))
      throw scimError(
        "ALREADY_MEMBER",
        "uniqueness",
        "Another request made this resource at the same time: retry",
      );
    throw error;
  });
}

// ---------------------------------------------------------------------------------------------
// Users.

function nowOf(deps: ScimDeps): string {
  return (deps.clock?.() ?? new Date()).toISOString();
}

const USER_FILTERS = ["username", "externalid", "id"] as const;

function userFilter(filter: EqFilter) {
  return filter.attribute === "username"
    ? { column: sql<string>`lower(scim_user.user_name)`, value: filter.value.toLowerCase() }
    : {
        column: filter.attribute === "id" ? sql<string>`scim_user.id` : sql<string>`scim_user.external_id`,
        value: filter.value,
      };
}

async function findUser(db: Db | Tx, orgId: string, id: string): Promise<ScimUserTable> {
  const row = await db
    .selectFrom("scim_user")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound(`User ${id} not found`);
  return row;
}

export async function getUser(deps: ScimDeps, client: ScimClient, id: string) {
  const row = await findUser(deps.db, client.org.id, id);
  return userResource(deps.scimUrl, row, (await groupsOfUsers(deps.db, [row.id])).get(row.id)!);
}

export async function listUsers(deps: ScimDeps, client: ScimClient, query: ListQuery) {
  let base = deps.db.selectFrom("scim_user").where("org_id", "=", client.org.id);
  if (query.filter) {
    const { column, value } = userFilter(parseFilter(query.filter, USER_FILTERS));
    base = base.where(column, "=", value);
  }
  const total = await base
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  const rows =
    query.count === 0
      ? []
      : await base
          .selectAll()
          .orderBy("created_at")
          .orderBy("id")
          .limit(query.count)
          .offset(query.offset)
          .execute();
  const groups = await groupsOfUsers(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    total: Number(total.n),
    resources: rows.map((row) => userResource(deps.scimUrl, row, groups.get(row.id)!)),
  };
}

/** A User resource's attributes as Packyard keeps them; `current` gives what the body leaves out. */
function userFieldsOf(body: unknown, current?: UserFields): UserFields {
  if (!isObject(body))
    throw scimError("VALIDATION_FAILED", "invalidSyntax", "The body must be a User object");
  const fields = lowerKeys(body);
  const userName = textOf(fields.get("username"), "userName", MAX_USER_NAME);
  if (!userName) throw invalidValue("userName is required: the user's email address");
  const name = fields.get("name");
  const names = isObject(name) ? lowerKeys(name) : new Map<string, unknown>();
  const active = fields.get("active");
  return {
    userName,
    externalId: textOf(fields.get("externalid"), "externalId"),
    displayName: textOf(fields.get("displayname"), "displayName"),
    givenName: textOf(names.get("givenname"), "name.givenName"),
    familyName: textOf(names.get("familyname"), "name.familyName"),
    // Left out of a replacement: as it was (a PUT is not taken as a deactivation).
    active: active === undefined || active === null ? (current?.active ?? true) : booleanOf(active, "active"),
  };
}

/**
 * One attribute set or removed by a PATCH. Attributes Packyard does not keep (emails, phone
 * numbers, titles, the enterprise extension that Entra maps by default) are accepted and ignored,
 * so an identity provider's default mappings do not fail.
 */
function patchUserAttribute(
  fields: UserFields,
  path: string,
  op: PatchOperation["op"],
  value: unknown,
): void {
  const removing = op === "remove";
  switch (path.toLowerCase()) {
    case "username": {
      const userName = removing ? null : textOf(value, "userName", MAX_USER_NAME);
      if (!userName)
        throw scimError("VALIDATION_FAILED", "mutability", "userName is required and cannot be removed");
      fields.userName = userName;
      return;
    }
    case "externalid":
      fields.externalId = removing ? null : textOf(value, "externalId");
      return;
    case "displayname":
      fields.displayName = removing ? null : textOf(value, "displayName");
      return;
    case "name.givenname":
      fields.givenName = removing ? null : textOf(value, "name.givenName");
      return;
    case "name.familyname":
      fields.familyName = removing ? null : textOf(value, "name.familyName");
      return;
    case "name": {
      if (removing) {
        fields.givenName = null;
        fields.familyName = null;
        return;
      }
      if (!isObject(value)) throw invalidValue("name must be an object");
      for (const [key, entry] of lowerKeys(value)) patchUserAttribute(fields, `name.${key}`, op, entry);
      return;
    }
    case "active":
      // Removing active leaves it as it is: a user is deactivated by saying so.
      if (!removing) fields.active = booleanOf(value, "active");
      return;
    default:
      return;
  }
}

function fieldsOfRow(row: ScimUserTable): UserFields {
  return {
    userName: row.user_name,
    externalId: row.external_id,
    displayName: row.display_name,
    givenName: row.given_name,
    familyName: row.family_name,
    active: row.active === 1,
  };
}

/** The user name's domain, if it is one of the organization's verified domains; else 400 invalidValue. */
async function assertVerifiedAddress(tx: Tx, org: ScimClient["org"], userName: string): Promise<void> {
  const domain = EMAIL.exec(userName)?.[1]?.toLowerCase();
  if (!domain) throw invalidValue(`userName must be the user's email address, not ${userName}`);
  const verified = await tx
    .selectFrom("org_domain")
    .select("id")
    .where("org_id", "=", org.id)
    .where("verified_domain", "=", domain)
    .executeTakeFirst();
  if (!verified)
    throw invalidValue(
      `${domain} is not a verified domain of ${org.slug}: only addresses at its verified domains are provisioned (verify the domain first)`,
    );
}

async function assertUserNameFree(tx: Tx, orgId: string, userName: string, except?: string): Promise<void> {
  let query = tx
    .selectFrom("scim_user")
    .select("id")
    .where("org_id", "=", orgId)
    .where(sql<string>`lower(user_name)`, "=", userName.toLowerCase());
  if (except) query = query.where("id", "!=", except);
  if (await query.executeTakeFirst())
    throw scimError("ALREADY_MEMBER", "uniqueness", `A user with userName ${userName} already exists`);
}

/** The account an address belongs to, or a new verified one for it (no password, no username yet). */
async function accountFor(tx: Tx, fields: UserFields, now: Date): Promise<string> {
  const email = fields.userName.toLowerCase();
  const existing = await tx
    .selectFrom("user")
    .select("id")
    .where(sql<string>`lower(email)`, "=", email)
    .executeTakeFirst();
  if (existing) return existing.id;
  const id = randomId(32);
  const pg = isPostgres(tx);
  const name =
    fields.displayName ?? ([fields.givenName, fields.familyName].filter(Boolean).join(" ") || email);
  await tx
    .insertInto("user")
    .values({
      id,
      email,
      name,
      image: null,
      emailVerified: pg ? true : 1,
      username: null,
      createdAt: pg ? now : now.toISOString(),
      updatedAt: pg ? now : now.toISOString(),
    })
    .execute();
  return id;
}

export async function createUser(deps: ScimDeps, client: ScimClient, body: unknown) {
  const fields = userFieldsOf(body);
  const now = deps.clock?.() ?? new Date();
  const row = await provision(deps, client, async (tx, members) => {
    await assertVerifiedAddress(tx, client.org, fields.userName);
    await assertUserNameFree(tx, client.org.id, fields.userName);
    const userId = await accountFor(tx, fields, now);
    const linked = await tx
      .selectFrom("scim_user")
      .select("user_name")
      .where("org_id", "=", client.org.id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    if (linked)
      throw scimError(
        "ALREADY_MEMBER",
        "uniqueness",
        `The account of ${fields.userName} is already provisioned as ${linked.user_name}`,
      );
    const row: ScimUserTable = {
      id: newRowId(),
      org_id: client.org.id,
      user_id: userId,
      user_name: fields.userName,
      external_id: fields.externalId,
      display_name: fields.displayName,
      given_name: fields.givenName,
      family_name: fields.familyName,
      active: fields.active ? 1 : 0,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await tx.insertInto("scim_user").values(row).execute();
    await members.sync(row, null);
    return row;
  });
  return userResource(deps.scimUrl, row, []);
}

/** Writes a user's new attributes and brings its membership in line (PUT and PATCH). */
async function updateUser(
  deps: ScimDeps,
  client: ScimClient,
  id: string,
  next: (current: UserFields) => UserFields,
) {
  const row = await provision(deps, client, async (tx, members) => {
    const current = await findUser(tx, client.org.id, id);
    const fields = next(fieldsOfRow(current));
    if (fields.userName !== current.user_name) {
      // The account stays the one first linked; the new address must be the organization's too.
      await assertVerifiedAddress(tx, client.org, fields.userName);
      await assertUserNameFree(tx, client.org.id, fields.userName, current.id);
    }
    const updated: ScimUserTable = {
      ...current,
      user_name: fields.userName,
      external_id: fields.externalId,
      display_name: fields.displayName,
      given_name: fields.givenName,
      family_name: fields.familyName,
      active: fields.active ? 1 : 0,
      updated_at: nowOf(deps),
    };
    await tx
      .updateTable("scim_user")
      .set({
        user_name: updated.user_name,
        external_id: updated.external_id,
        display_name: updated.display_name,
        given_name: updated.given_name,
        family_name: updated.family_name,
        active: updated.active,
        updated_at: updated.updated_at,
      })
      .where("id", "=", current.id)
      .execute();
    await members.sync(updated, null);
    return updated;
  });
  return userResource(deps.scimUrl, row, (await groupsOfUsers(deps.db, [row.id])).get(row.id)!);
}

export function replaceUser(deps: ScimDeps, client: ScimClient, id: string, body: unknown) {
  return updateUser(deps, client, id, (current) => userFieldsOf(body, current));
}

export function patchUser(deps: ScimDeps, client: ScimClient, id: string, body: unknown) {
  const operations = patchOperations(body);
  return updateUser(deps, client, id, (current) => {
    const fields = { ...current };
    for (const { op, path, value } of operations) {
      if (path !== undefined) patchUserAttribute(fields, path, op, value);
      else
        for (const [key, entry] of lowerKeys(value as Record<string, unknown>))
          patchUserAttribute(fields, key, op, entry);
    }
    return fields;
  });
}

/** Deletes a SCIM user: its membership and its SSO sessions go; its account stays. */
export async function deleteUser(deps: ScimDeps, client: ScimClient, id: string): Promise<void> {
  await provision(deps, client, async (tx, members) => {
    const row = await findUser(tx, client.org.id, id);
    await members.sync({ ...row, active: 0 }, null);
    await tx.deleteFrom("scim_group_member").where("scim_user_id", "=", row.id).execute();
    await tx.deleteFrom("scim_user").where("id", "=", row.id).execute();
  });
}

// ---------------------------------------------------------------------------------------------
// Groups.

interface GroupFields {
  displayName: string;
  externalId: string | null;
  members: Set<string>;
}

const GROUP_FILTERS = ["displayname", "externalid", "id"] as const;

async function findGroup(db: Db | Tx, orgId: string, id: string): Promise<ScimGroupTable> {
  const row = await db
    .selectFrom("scim_group")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound(`Group ${id} not found`);
  return row;
}

export async function getGroup(deps: ScimDeps, client: ScimClient, id: string, withMembers = true) {
  const row = await findGroup(deps.db, client.org.id, id);
  const members = withMembers ? (await membersOfGroups(deps.db, [row.id])).get(row.id) : undefined;
  return groupResource(deps.scimUrl, row, members);
}

export async function listGroups(deps: ScimDeps, client: ScimClient, query: ListQuery, withMembers = true) {
  let base = deps.db.selectFrom("scim_group").where("org_id", "=", client.org.id);
  if (query.filter) {
    const filter = parseFilter(query.filter, GROUP_FILTERS);
    const column = { displayname: "display_name", externalid: "external_id", id: "id" } as const;
    base = base.where(column[filter.attribute as keyof typeof column], "=", filter.value);
  }
  const total = await base
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  const rows =
    query.count === 0
      ? []
      : await base
          .selectAll()
          .orderBy("display_name")
          .orderBy("id")
          .limit(query.count)
          .offset(query.offset)
          .execute();
  const members = withMembers
    ? await membersOfGroups(
        deps.db,
        rows.map((r) => r.id),
      )
    : undefined;
  return {
    total: Number(total.n),
    resources: rows.map((row) => groupResource(deps.scimUrl, row, members?.get(row.id))),
  };
}

function groupFieldsOf(body: unknown): GroupFields {
  if (!isObject(body))
    throw scimError("VALIDATION_FAILED", "invalidSyntax", "The body must be a Group object");
  const fields = lowerKeys(body);
  const displayName = textOf(fields.get("displayname"), "displayName");
  if (!displayName) throw invalidValue("displayName is required");
  return {
    displayName,
    externalId: textOf(fields.get("externalid"), "externalId"),
    members: new Set(memberIdsOf(fields.get("members"))),
  };
}

function patchGroupAttribute(
  fields: GroupFields,
  path: string,
  op: PatchOperation["op"],
  value: unknown,
): void {
  const member = memberOfPath(path);
  if (member !== undefined) {
    if (op !== "remove")
      throw scimError("VALIDATION_FAILED", "invalidPath", "Add members with the path members");
    fields.members.delete(member);
    return;
  }
  switch (path.toLowerCase()) {
    case "members": {
      const ids = memberIdsOf(value);
      if (op === "replace") fields.members = new Set(ids);
      else if (op === "add") for (const id of ids) fields.members.add(id);
      // A remove without a value removes every member (RFC 7644 §3.5.2.2).
      else if (value === undefined || value === null) fields.members.clear();
      else for (const id of ids) fields.members.delete(id);
      return;
    }
    case "displayname": {
      const displayName = op === "remove" ? null : textOf(value, "displayName");
      if (!displayName)
        throw scimError("VALIDATION_FAILED", "mutability", "displayName is required and cannot be removed");
      fields.displayName = displayName;
      return;
    }
    case "externalid":
      fields.externalId = op === "remove" ? null : textOf(value, "externalId");
      return;
    default:
      // id, meta and anything Packyard does not keep (Okta sends the id back with a rename).
      return;
  }
}

/**
 * Writes a group's new state (a new group when `current` is undefined) and brings the
 * memberships of the users it concerns in line: those who joined or left it, and all its members
 * when it was renamed (the mapping is by name).
 */
async function writeGroup(
  deps: ScimDeps,
  tx: Tx,
  members: Memberships,
  org: ScimClient["org"],
  current: ScimGroupTable | undefined,
  next: GroupFields,
): Promise<ScimGroupTable> {
  const before = current
    ? new Set(
        (
          await tx
            .selectFrom("scim_group_member")
            .select("scim_user_id")
            .where("group_id", "=", current.id)
            .execute()
        ).map((r) => r.scim_user_id),
      )
    : new Set<string>();
  const wanted = [...next.members];
  const users =
    wanted.length === 0 && before.size === 0
      ? []
      : await tx
          .selectFrom("scim_user")
          .selectAll()
          .where("org_id", "=", org.id)
          .where("id", "in", [...new Set([...wanted, ...before])])
          .execute();
  const known = new Set(users.map((u) => u.id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw invalidValue(
      `No user ${unknown.join(", ")} in this organization: provision users before adding them to groups`,
    );
  const renamed = current !== undefined && current.display_name !== next.displayName;
  if (!current || renamed) {
    const taken = await tx
      .selectFrom("scim_group")
      .select("id")
      .where("org_id", "=", org.id)
      .where("display_name", "=", next.displayName)
      .executeTakeFirst();
    if (taken)
      throw scimError("NAME_TAKEN", "uniqueness", `A group named ${next.displayName} already exists`);
  }
  const affected = users.filter((u) => renamed || before.has(u.id) !== next.members.has(u.id));
  const previous = new Map<string, string[]>();
  for (const user of affected) previous.set(user.id, await groupNames(tx, user.id));

  const now = nowOf(deps);
  const row: ScimGroupTable = current
    ? { ...current, display_name: next.displayName, external_id: next.externalId, updated_at: now }
    : {
        id: newRowId(),
        org_id: org.id,
        display_name: next.displayName,
        external_id: next.externalId,
        created_at: now,
        updated_at: now,
      };
  if (current)
    await tx
      .updateTable("scim_group")
      .set({ display_name: row.display_name, external_id: row.external_id, updated_at: now })
      .where("id", "=", row.id)
      .execute();
  else await tx.insertInto("scim_group").values(row).execute();
  const leaving = [...before].filter((id) => !next.members.has(id));
  const joining = wanted.filter((id) => !before.has(id));
  if (leaving.length > 0)
    await tx
      .deleteFrom("scim_group_member")
      .where("group_id", "=", row.id)
      .where("scim_user_id", "in", leaving)
      .execute();
  if (joining.length > 0)
    await tx
      .insertInto("scim_group_member")
      .values(joining.map((id) => ({ group_id: row.id, scim_user_id: id })))
      .execute();
  for (const user of affected) await members.sync(user, previous.get(user.id)!);
  return row;
}

async function groupAnswer(deps: ScimDeps, row: ScimGroupTable) {
  return groupResource(deps.scimUrl, row, (await membersOfGroups(deps.db, [row.id])).get(row.id));
}

export async function createGroup(deps: ScimDeps, client: ScimClient, body: unknown) {
  const fields = groupFieldsOf(body);
  const row = await provision(deps, client, (tx, members) =>
    writeGroup(deps, tx, members, client.org, undefined, fields),
  );
  return groupAnswer(deps, row);
}

export async function replaceGroup(deps: ScimDeps, client: ScimClient, id: string, body: unknown) {
  const fields = groupFieldsOf(body);
  const row = await provision(deps, client, async (tx, members) =>
    writeGroup(deps, tx, members, client.org, await findGroup(tx, client.org.id, id), fields),
  );
  return groupAnswer(deps, row);
}

export async function patchGroup(deps: ScimDeps, client: ScimClient, id: string, body: unknown) {
  const operations = patchOperations(body);
  const row = await provision(deps, client, async (tx, members) => {
    const current = await findGroup(tx, client.org.id, id);
    const memberRows = await tx
      .selectFrom("scim_group_member")
      .select("scim_user_id")
      .where("group_id", "=", current.id)
      .execute();
    const fields: GroupFields = {
      displayName: current.display_name,
      externalId: current.external_id,
      members: new Set(memberRows.map((r) => r.scim_user_id)),
    };
    for (const { op, path, value } of operations) {
      if (path !== undefined) patchGroupAttribute(fields, path, op, value);
      else
        for (const [key, entry] of lowerKeys(value as Record<string, unknown>))
          patchGroupAttribute(fields, key, op, entry);
    }
    return writeGroup(deps, tx, members, client.org, current, fields);
  });
  return groupAnswer(deps, row);
}

/** Deletes a group: its members' roles are worked out again without it. */
export async function deleteGroup(deps: ScimDeps, client: ScimClient, id: string): Promise<void> {
  await provision(deps, client, async (tx, members) => {
    const current = await findGroup(tx, client.org.id, id);
    const users = await tx
      .selectFrom("scim_user")
      .innerJoin("scim_group_member", "scim_group_member.scim_user_id", "scim_user.id")
      .selectAll("scim_user")
      .where("scim_group_member.group_id", "=", current.id)
      .execute();
    const previous = new Map<string, string[]>();
    for (const user of users) previous.set(user.id, await groupNames(tx, user.id));
    await tx.deleteFrom("scim_group_member").where("group_id", "=", current.id).execute();
    await tx.deleteFrom("scim_group").where("id", "=", current.id).execute();
    for (const user of users) await members.sync(user, previous.get(user.id)!);
  });
}
