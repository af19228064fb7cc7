// /api/v1/orgs and /api/v1/invitations: organizations (decision 040), their members, invitations,
// API keys and audit log. What a role allows is decided in platform/core/authorization.ts and the rules
// of membership in orgs/storage.ts; these routes parse, call a use case (orgs/use-cases.ts,
// api-keys/use-cases.ts: they record what was done in the organization's audit log, naming the
// member who acted) and answer.
import { createRoute, z } from "@hono/zod-openapi";
import {
  apiKeyInfo,
  auditPage,
  auditQuery,
  createApiKeyInput,
  createdApiKey,
  createOrgSchema,
  inviteMemberSchema,
  organization,
  orgInvitation,
  orgMember,
  orgRole,
  ssoGroupRoles,
  ssoSettings,
  updateMemberSchema,
  updateOrgSchema,
} from "@packyard/contract";
import { describeApiKey, listUserApiKeys } from "../api-keys/storage.ts";
import { createApiKey, deleteApiKey } from "../api-keys/use-cases.ts";
import { listAuditEntries } from "../audit/query.ts";
import { type Actor, assertAccountAccess, isPerson } from "../platform/core/authorization.ts";
import type { Caller } from "../platform/core/use-case.ts";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, empty, errors, json, jsonBody, readJson, serve } from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { ssoSettingsOf, updateSsoSettings } from "./sso.ts";
import { ssoDepsOf } from "./sso-routes.ts";
import {
  describeOrganization,
  listInvitations,
  listMembers,
  listOrganizations,
  requireOrganization,
} from "./storage.ts";
import {
  acceptInvitation,
  changeMemberRole,
  createOrganization,
  deleteOrganization,
  inviteMember,
  removeMember,
  renameOrganization,
  revokeInvitation,
} from "./use-cases.ts";

const orgPath = z.object({ slug: z.string().describe("The organization's slug") });
const memberPath = orgPath.extend({ username: z.string().describe("The member's username") });
const invitationPath = orgPath.extend({ id: z.string().describe("The invitation's id") });
const keyPath = orgPath.extend({ id: z.string().describe("The key's id") });

/** PATCH /orgs/{slug}: its name, and its single sign-on settings (orgs/sso.ts). */
const patchOrgSchema = updateOrgSchema
  .partial()
  .extend({
    enforced: z
      .boolean()
      .optional()
      .describe(
        "Members reach the organization's projects only through its identity provider (owners keep break-glass)",
      ),
    ssoDefaultRole: orgRole
      .optional()
      .describe("The role single sign-on and SCIM give a member no group maps"),
    ssoGroupRoles: ssoGroupRoles
      .optional()
      .describe('IdP group name → role, e.g. {"packyard-admins": "admin"}'),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "Nothing to change");

/** What a route on an organization answers when the caller may not do it. */
const orgErrors = ["UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NOT_FOUND"] as const;

const listOrgsRoute = createRoute({
  method: "get",
  path: "/orgs",
  summary: "The organizations you belong to, with your role in each",
  responses: {
    200: json("Organizations", z.object({ organizations: z.array(organization) })),
    ...errors("UNAUTHENTICATED", "KEY_SCOPE"),
  },
});

const createOrgRoute = createRoute({
  method: "post",
  path: "/orgs",
  summary: "Create an organization; you are its owner",
  request: { body: jsonBody(createOrgSchema) },
  responses: {
    201: json("Created", z.object({ organization })),
    ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NAME_TAKEN"),
  },
});

const getOrgRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}",
  summary: "An organization you belong to, with how its members sign in (docs/sso.md)",
  request: { params: orgPath },
  responses: {
    200: json("Organization", z.object({ organization, sso: ssoSettings })),
    ...errors(...orgErrors, "SSO_REQUIRED"),
  },
});

const updateOrgRoute = createRoute({
  method: "patch",
  path: "/orgs/{slug}",
  summary:
    "Rename an organization (its display name; admins and owners), or change how its members sign in (owners, Pro plan: `enforced`, `ssoDefaultRole`, `ssoGroupRoles`; docs/sso.md)",
  request: { params: orgPath, body: jsonBody(patchOrgSchema) },
  responses: {
    200: json("Updated", z.object({ organization, sso: ssoSettings.optional() })),
    ...errors("VALIDATION_FAILED", ...orgErrors, "PLAN_LIMIT", "SSO_NOT_CONFIGURED"),
  },
});

const deleteOrgRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}",
  summary: "Delete an organization that owns no projects (owners)",
  request: { params: orgPath },
  responses: { 204: empty("Deleted"), ...errors(...orgErrors, "ORG_NOT_EMPTY") },
});

const listMembersRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/members",
  summary: "An organization's members and their roles",
  request: { params: orgPath },
  responses: { 200: json("Members", z.object({ members: z.array(orgMember) })), ...errors(...orgErrors) },
});

const updateMemberRoute = createRoute({
  method: "patch",
  path: "/orgs/{slug}/members/{username}",
  summary: "Change a member's role (admins and owners; only owners make or unmake owners)",
  request: { params: memberPath, body: jsonBody(updateMemberSchema) },
  responses: {
    200: json("Updated", z.object({ member: orgMember })),
    ...errors("VALIDATION_FAILED", ...orgErrors, "ORG_LAST_OWNER"),
  },
});

const removeMemberRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/members/{username}",
  summary: "Remove a member (admins and owners), or leave (your own username)",
  request: { params: memberPath },
  responses: { 204: empty("Removed"), ...errors(...orgErrors, "ORG_LAST_OWNER") },
});

const createInvitationRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/invitations",
  summary: "Invite someone by email; the link is mailed and valid 7 days (admins and owners)",
  request: { params: orgPath, body: jsonBody(inviteMemberSchema) },
  responses: {
    201: json("Invited", z.object({ invitation: orgInvitation })),
    ...errors("VALIDATION_FAILED", ...orgErrors, "ALREADY_MEMBER"),
  },
});

const listInvitationsRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/invitations",
  summary: "An organization's open invitations (admins and owners)",
  request: { params: orgPath },
  responses: {
    200: json("Invitations", z.object({ invitations: z.array(orgInvitation) })),
    ...errors(...orgErrors),
  },
});

const revokeInvitationRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/invitations/{id}",
  summary: "Withdraw an open invitation (admins and owners)",
  request: { params: invitationPath },
  responses: { 204: empty("Revoked"), ...errors(...orgErrors) },
});

const acceptInvitationRoute = createRoute({
  method: "post",
  path: "/invitations/{id}/accept",
  summary: "Accept an invitation, signed in with the invited address",
  request: { params: z.object({ id: z.string().describe("The invitation's id (from its link)") }) },
  responses: {
    200: json("The organization joined", z.object({ organization })),
    ...errors(
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "INVITATION_EMAIL_MISMATCH",
      "NOT_FOUND",
      "ALREADY_MEMBER",
      "INVITATION_EXPIRED",
    ),
  },
});

const listOrgKeysRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/keys",
  summary: "An organization's API keys (admins and owners)",
  request: { params: orgPath },
  responses: { 200: json("Keys", z.object({ keys: z.array(apiKeyInfo) })), ...errors(...orgErrors) },
});

const createOrgKeyRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/keys",
  summary:
    "Create an organization's API key, scoped to its projects; it keeps working when its creator leaves. Its secret is in this response only (admins and owners)",
  request: { params: orgPath, body: jsonBody(createApiKeyInput) },
  responses: {
    201: json("Created", z.object({ key: createdApiKey })),
    ...errors("VALIDATION_FAILED", ...orgErrors),
  },
});

const deleteOrgKeyRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/keys/{id}",
  summary: "Delete an organization's API key (admins and owners)",
  request: { params: keyPath },
  responses: { 204: empty("Deleted"), ...errors(...orgErrors) },
});

const orgAuditRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/audit",
  summary: "An organization's audit log, newest first (admins and owners); filters as /api/v1/audit",
  request: {
    params: orgPath,
    query: z.object({
      action: z.string().optional(),
      actor: z.string().optional(),
      project: z.string().optional().describe("Only this project's entries"),
      from: z.string().optional(),
      to: z.string().optional(),
      cursor: z.string().optional(),
      limit: z.string().optional(),
    }),
  },
  responses: {
    200: json("A page of entries", auditPage),
    ...errors("VALIDATION_FAILED", ...orgErrors),
  },
});

export function orgRoutes(services: Services) {
  const db = services.database.db;
  const { baseUrl, trustProxy } = services.config;
  const { clock, mailer } = services;
  const api = createApiApp(services);
  const actorOf = (c: { req: { raw: Request } }) => requireActor(services, c.req.raw.headers);
  /** The caller of a use case: the member (or key) who acts, and from where. */
  const callerOf = (c: Parameters<typeof clientAddress>[0], actor: Actor): Caller => ({
    actor,
    address: clientAddress(c, trustProxy),
  });

  serve(api, listOrgsRoute, async (c) => {
    const actor = await actorOf(c);
    // Account data: a session or an all-projects key. An organization's key belongs to none.
    assertAccountAccess(actor, "read");
    const organizations = isPerson(actor) ? await listOrganizations(db, actor.userId) : [];
    return c.json({ organizations }, 200);
  });

  serve(api, createOrgRoute, async (c) => {
    const actor = await actorOf(c);
    const input = await readJson(c, createOrgRoute);
    const created = await createOrganization({ db, clock }, callerOf(c, actor), input);
    return c.json({ organization: created }, 201);
  });

  serve(api, getOrgRoute, async (c) => {
    const actor = await actorOf(c);
    const found = await describeOrganization(db, actor, c.req.valid("param").slug);
    return c.json({ organization: found, sso: await ssoSettingsOf(db, found.id) }, 200);
  });

  serve(api, updateOrgRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug } = c.req.valid("param");
    const input = await readJson(c, updateOrgRoute);
    const caller = callerOf(c, actor);
    const sso =
      input.enforced !== undefined || input.ssoDefaultRole !== undefined || input.ssoGroupRoles !== undefined
        ? await updateSsoSettings(ssoDepsOf(services), caller, {
            organization: slug,
            enforced: input.enforced,
            defaultRole: input.ssoDefaultRole,
            groupRoles: input.ssoGroupRoles,
          })
        : undefined;
    const updated =
      input.name !== undefined
        ? await renameOrganization({ db, clock }, caller, { organization: slug, name: input.name })
        : await describeOrganization(db, actor, slug);
    return c.json({ organization: updated, ...(sso ? { sso } : {}) }, 200);
  });

  serve(api, deleteOrgRoute, async (c) => {
    const actor = await actorOf(c);
    await deleteOrganization({ db, clock }, callerOf(c, actor), { organization: c.req.valid("param").slug });
    return c.body(null, 204);
  });

  serve(api, listMembersRoute, async (c) => {
    const actor = await actorOf(c);
    return c.json({ members: await listMembers(db, actor, c.req.valid("param").slug) }, 200);
  });

  serve(api, updateMemberRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug, username } = c.req.valid("param");
    const input = await readJson(c, updateMemberRoute);
    const member = await changeMemberRole({ db }, callerOf(c, actor), {
      organization: slug,
      username,
      role: input.role,
    });
    return c.json({ member }, 200);
  });

  serve(api, removeMemberRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug, username } = c.req.valid("param");
    await removeMember({ db }, callerOf(c, actor), { organization: slug, username });
    return c.body(null, 204);
  });

  serve(api, createInvitationRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug } = c.req.valid("param");
    const input = await readJson(c, createInvitationRoute);
    const invitation = await inviteMember({ db, mailer, baseUrl, clock }, callerOf(c, actor), {
      ...input,
      organization: slug,
    });
    return c.json({ invitation }, 201);
  });

  serve(api, listInvitationsRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug } = c.req.valid("param");
    return c.json({ invitations: await listInvitations(db, actor, slug, baseUrl, clock) }, 200);
  });

  serve(api, revokeInvitationRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug, id } = c.req.valid("param");
    await revokeInvitation({ db, clock }, callerOf(c, actor), { organization: slug, invitationId: id });
    return c.body(null, 204);
  });

  serve(api, acceptInvitationRoute, async (c) => {
    const actor = await actorOf(c);
    const { id } = c.req.valid("param");
    const joined = await acceptInvitation({ db, clock }, callerOf(c, actor), { invitationId: id });
    return c.json({ organization: joined }, 200);
  });

  serve(api, listOrgKeysRoute, async (c) => {
    const actor = await actorOf(c);
    const { org } = await requireOrganization(db, actor, c.req.valid("param").slug, "admin");
    const keys = await listUserApiKeys(db, org.id);
    return c.json({ keys: await Promise.all(keys.map((k) => describeApiKey(db, org.id, k))) }, 200);
  });

  serve(api, createOrgKeyRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug } = c.req.valid("param");
    const input = await readJson(c, createOrgKeyRoute);
    // The key's owner (better-auth's referenceId) is the organization, not its creator; its scope
    // names only the organization's own projects (another owner's is not found).
    const { created, summary, ownerId } = await createApiKey(
      { db, auth: services.auth },
      callerOf(c, actor),
      {
        organization: slug,
        name: input.name,
        expiresIn: input.expiresInDays === null ? null : input.expiresInDays * 24 * 60 * 60,
        access: input.access,
        projects: input.projects === "*" ? "*" : { refs: input.projects },
      },
    );
    return c.json({ key: { ...(await describeApiKey(db, ownerId, summary)), key: created.key } }, 201);
  });

  serve(api, deleteOrgKeyRoute, async (c) => {
    const actor = await actorOf(c);
    const { slug, id } = c.req.valid("param");
    await deleteApiKey({ db }, callerOf(c, actor), { organization: slug, keyId: id });
    return c.body(null, 204);
  });

  serve(api, orgAuditRoute, async (c) => {
    const actor = await actorOf(c);
    const { org } = await requireOrganization(db, actor, c.req.valid("param").slug, "admin");
    const { project, ...query } = auditQuery.parse(c.req.query());
    return c.json(await listAuditEntries(db, { ownerId: org.id, projectSlug: project }, query), 200);
  });

  return api;
}
