// Who may do what: the one place that decides. Every route, loader, action and /dl handler asks
// here; nothing else compares owners, roles, scopes, visibility or plan limits.
//
// - A session may do anything with its user's own projects and account.
// - An organization's projects (decision 040): its members by role. A viewer reads them, a
//   publisher also publishes (uploads, yanks, edits releases), an admin and an owner also manage
//   them (settings, visibility, webhooks, keys, transfer, delete). The caller finds the actor's
//   role (orgs.ts) and passes it in; these functions only decide.
// - An API key only what its scope allows: all projects or chosen ones, read or publish (publish
//   includes manage). A personal key reaches an organization's projects only through its user's
//   role; an organization's key (its `userId` is the organization's) is scoped to its projects
//   and outlives whoever made it. Account data (API keys, usage, creating projects) needs an
//   all-projects key.
// - Public projects are visible to everyone; a private one only to its owner and the members of
//   the organization owning it. Anything not visible is "not found", so a private project never
//   leaks.
// - An entitlement token (a publisher's customer, docs/entitlements.md) reads the projects it
//   names, under /dl only, within its suites, groups and version range; anything else is "not
//   found", as for anyone who may not see the project. Past its dates, downloads or bytes of
//   the month it is refused with ENTITLEMENT_LIMIT. It never reaches the API.
// - Plans limit what an account (a user or an organization) may hold (private projects,
//   storage), unless PLAN_LIMITS=off; the callers load the numbers (usage.ts) and skip these
//   checks when limits are off. Downloads are never refused for a plan
//   (docs/decisions/018-plan-limits.md).

import { type VersionRange, versionInRange } from "@packyard/contract/entitlements.ts";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import type { OrgRole } from "@packyard/contract/orgs.ts";
import type { PlanId } from "@packyard/contract/plans.ts";
import { plans } from "@packyard/contract/plans.ts";
import { DomainError, notFound } from "./errors.ts";

/**
 * read: see it; publish: releases and files; manage: the project itself (settings, delete, …);
 * oversee: see how it is managed (its webhooks and their deliveries, its audit log) — an
 * organization's admins and owners, and any key that reads it.
 */
export type Access = "read" | "publish" | "manage" | "oversee";
export type { OrgRole };

export interface KeyScope {
  /** "*" for every project, or the ids of the chosen ones. */
  projects: "*" | string[];
  access: KeyAccess;
}

/** What a key may be given: publish includes managing the projects it reaches. */
export type KeyAccess = "read" | "publish";

export type Actor =
  | {
      kind: "session";
      userId: string;
      /** The organization whose identity provider made this session (docs/sso.md), if one did. */
      ssoOrganizationId?: string;
    }
  | {
      kind: "key";
      /** The key's account: its user, or for an organization's key the organization. */
      userId: string;
      keyId: string;
      scope: KeyScope;
      /** An organization's key (decision 040). */
      org?: boolean;
      /**
       * A publish token got by trusted publishing (trusted-publishing/, docs/ci/): it reads and
       * publishes to its projects, never manages them.
       */
      publishOnly?: boolean;
      /** How the audit log names a credential that is not an API key (the trusted publisher). */
      keyName?: string;
      keyStart?: string;
    };

/** Whether the actor acts as a person (a session or a personal key), not as an organization. */
export function isPerson(actor: Actor): boolean {
  return !(actor.kind === "key" && actor.org);
}

/** What the decisions need to know of a project. */
export interface ProjectRef {
  id: string;
  owner_id: string;
  visibility: "public" | "private";
}

function assertKeyAllows(actor: Actor, projectId: string | "*", needed: Access): void {
  if (actor.kind === "session") return;
  const { scope } = actor;
  if (projectId === "*" && scope.projects !== "*") {
    throw new DomainError("KEY_SCOPE", "This API key is scoped to chosen projects only");
  }
  if (projectId !== "*" && scope.projects !== "*" && !scope.projects.includes(projectId)) {
    throw new DomainError("KEY_SCOPE", "This API key is not scoped to this project");
  }
  if (needed !== "read" && needed !== "oversee" && scope.access !== "publish") {
    throw new DomainError("KEY_SCOPE", "This API key is read-only");
  }
  if (actor.publishOnly && needed !== "read" && needed !== "publish") {
    throw new DomainError(
      "KEY_SCOPE",
      "A trusted publishing token reads and publishes releases only; managing the project needs an API key or the dashboard",
    );
  }
}

export function isOwner(actor: Actor | null, project: Pick<ProjectRef, "owner_id">): boolean {
  return actor !== null && actor.userId === project.owner_id;
}

/** What each role in the owning organization allows on its projects. */
const ROLE_ACCESS: Record<OrgRole, readonly Access[]> = {
  owner: ["read", "publish", "manage", "oversee"],
  admin: ["read", "publish", "manage", "oversee"],
  publisher: ["read", "publish"],
  viewer: ["read"],
};

/**
 * Throws unless the actor may act on the project with this access. `role`: the actor's role in
 * the organization owning the project (null: none, or the owner is a user). A project the actor
 * may not even read is "not found" (whether it exists is nobody else's business); one it reads
 * but its role does not allow this on FORBIDDEN; a key outside its scope KEY_SCOPE.
 */
export function assertProjectAccess(
  actor: Actor,
  project: Pick<ProjectRef, "id" | "owner_id">,
  needed: Access,
  role: OrgRole | null = null,
) {
  if (!isOwner(actor, project)) {
    if (!role || !isPerson(actor)) throw notFound("Project not found");
    if (!ROLE_ACCESS[role].includes(needed)) {
      throw new DomainError(
        "FORBIDDEN",
        `Your role in this organization (${role}) does not allow this: ${needed === "manage" || needed === "oversee" ? "an admin or owner" : "a publisher, admin or owner"} may`,
      );
    }
  }
  assertKeyAllows(actor, project.id, needed);
}

/** assertProjectAccess as a yes or no, for pages that only show or hide what the actor may use. */
export function mayAccessProject(
  actor: Actor | null,
  project: Pick<ProjectRef, "id" | "owner_id">,
  needed: Access,
  role: OrgRole | null = null,
): boolean {
  if (!actor) return false;
  try {
    assertProjectAccess(actor, project, needed, role);
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/** What a member may do with the organization itself. */
export type OrgAction =
  /** See it, its members and its projects. */
  | "view"
  /** Members, invitations, keys, settings, and creating its projects. */
  | "admin"
  /** Billing, deleting it, and making or unmaking owners. */
  | "own";

/**
 * Throws unless the actor may do this with the organization: a non-member (and any key) is told
 * it is not found, a member whose role falls short FORBIDDEN. Personal keys act by their user's
 * role and need an all-projects key with publish access for anything but viewing.
 */
export function assertOrgAction(actor: Actor, role: OrgRole | null, action: OrgAction): void {
  if (!role || !isPerson(actor)) throw notFound("Organization not found");
  if (action === "admin" && role !== "owner" && role !== "admin")
    throw new DomainError("FORBIDDEN", "Only an organization's admins and owners may do this");
  if (action === "own" && role !== "owner")
    throw new DomainError("FORBIDDEN", "Only an organization's owners may do this");
  assertKeyAllows(actor, "*", action === "view" ? "read" : "publish");
}

/**
 * Throws SSO_REQUIRED unless the organization lets this member in this way. An organization that
 * requires single sign-on (docs/sso.md) takes its members only through a session its identity
 * provider made: not a password or social session, not a personal API key. Its owners are let
 * in however they signed in (the break-glass sign-in, so an identity provider's outage never
 * locks the organization out); its own keys are not a member's and are unaffected.
 */
export function assertSsoSatisfied(
  actor: Actor,
  org: { id: string; slug: string; enforced: boolean },
  role: OrgRole,
): void {
  if (!org.enforced || role === "owner" || !isPerson(actor)) return;
  if (actor.kind === "session" && actor.ssoOrganizationId === org.id) return;
  throw new DomainError(
    "SSO_REQUIRED",
    actor.kind === "key"
      ? `${org.slug} requires single sign-on: a personal API key does not reach its projects; use one of the organization's keys`
      : `${org.slug} requires single sign-on: sign in with your ${org.slug} account through its identity provider to reach its projects`,
  );
}

/**
 * Throws FORBIDDEN unless a member with `actorRole` may give `newRole` to a member who has
 * `currentRole` (null: someone invited): only owners make or unmake owners.
 */
export function assertRoleChangeAllowed(
  actorRole: OrgRole,
  currentRole: OrgRole | null,
  newRole: OrgRole | null,
): void {
  if ((newRole === "owner" || currentRole === "owner") && actorRole !== "owner")
    throw new DomainError("FORBIDDEN", "Only an organization's owners may make or remove owners");
}

/**
 * What each project route needs (decision 040). Releases and files (upload, yank, edit, delete,
 * promote within the owner's projects) need publish; the project's own settings need manage:
 * repository settings, signing-key rotation, retention rules, webhooks, imports (they fill a
 * project from elsewhere, with its settings), transfer, visibility and deletion. Webhooks and
 * their deliveries and the project's audit log are seen by those who manage it (oversee); the
 * rest of a project (releases, files, settings, signing keys, stats, imports) by whoever reads
 * it. Keys: publish covers manage, read covers oversee.
 */
export const IMPORT_ACCESS: Access = "manage";
export const WEBHOOK_MANAGE_ACCESS: Access = "manage";
export const WEBHOOK_READ_ACCESS: Access = "oversee";
export const RETENTION_MANAGE_ACCESS: Access = "manage";
export const REPOSITORY_SETTINGS_ACCESS: Access = "manage";
export const SIGNING_KEY_ROTATE_ACCESS: Access = "manage";
export const PROJECT_AUDIT_ACCESS: Access = "oversee";
/** A project's entitlement tokens: made and changed by those who manage it, seen by those who oversee it. */
export const ENTITLEMENT_MANAGE_ACCESS: Access = "manage";
export const ENTITLEMENT_READ_ACCESS: Access = "oversee";
/** Trusted publishers are managed like the project; seen by whoever oversees it. */
export const TRUSTED_PUBLISHER_MANAGE_ACCESS: Access = "manage";
export const TRUSTED_PUBLISHER_READ_ACCESS: Access = "oversee";

/** Creating projects or reading and managing account-wide data. */
export function assertAccountAccess(actor: Actor, needed: Access): void {
  assertKeyAllows(actor, "*", needed);
}

/**
 * Whether the viewer (anonymous: null) may see the project, its releases and repositories.
 * `role`: the viewer's role in the organization owning it, if any.
 */
export function canViewProject(
  project: ProjectRef,
  viewer: Actor | null,
  role: OrgRole | null = null,
): boolean {
  if (project.visibility === "public") return true;
  if (!viewer) return false;
  if (!isOwner(viewer, project) && !(role && isPerson(viewer))) return false;
  return (
    viewer.kind === "session" || viewer.scope.projects === "*" || viewer.scope.projects.includes(project.id)
  );
}

/** Which projects a listing may show the actor: all it reaches, or a key's chosen ones. */
export function visibleProjectIds(actor: Actor): "*" | string[] {
  return actor.kind === "session" ? "*" : actor.scope.projects;
}

/** Where a PLAN_LIMIT refusal sends the user. */
export const PRICING_PATH = "/pricing";

function planLimit(limit: "privateProjects" | "storage" | "entitlementTokens", message: string): DomainError {
  return new DomainError("PLAN_LIMIT", message, { limit, pricing: PRICING_PATH });
}

/** Throws PLAN_LIMIT when the account already holds as many private projects as its plan allows. */
export function assertPrivateProjectAllowed(plan: PlanId, privateProjects: number): void {
  const limit = plans[plan].privateProjects;
  if (limit === "unlimited" || privateProjects < limit) return;
  throw planLimit(
    "privateProjects",
    `Your plan includes ${limit} private project${limit === 1 ? "" : "s"}. Upgrade on ${PRICING_PATH} for more, or make this project public.`,
  );
}

/** What an account holds against its plan (loaded by usage.ts). */
export interface AccountHoldings {
  plan: PlanId;
  privateProjects: number;
  storageBytes: number;
}

/**
 * Throws PLAN_LIMIT unless a file may be uploaded to the project: refused while the account holds
 * more private projects than its plan includes (after a downgrade: nothing is deleted, uploads
 * to private projects wait until it is within its limits), and when the account's files plus
 * this one would be more than the plan's storage. `bytes`: the file's size, undefined while it
 * is not known yet (checked again once it is).
 */
export function assertUploadAllowed(
  account: AccountHoldings,
  project: Pick<ProjectRef, "visibility">,
  bytes: number | undefined,
): void {
  const plan = plans[account.plan];
  const projects = plan.privateProjects;
  if (project.visibility === "private" && projects !== "unlimited" && account.privateProjects > projects) {
    throw planLimit(
      "privateProjects",
      `Your ${plan.name} plan includes ${projects} private project${projects === 1 ? "" : "s"} and your account has ${account.privateProjects}, so uploads to private projects are refused until it is within its limits. Make projects public, or upgrade on ${PRICING_PATH}; everything already published stays downloadable.`,
    );
  }
  if (account.storageBytes + (bytes ?? 0) > plan.storageBytes) {
    const used = `your files use ${formatFileSize(account.storageBytes)}`;
    throw planLimit(
      "storage",
      `Your ${plan.name} plan includes ${formatFileSize(plan.storageBytes)} of storage; ${
        bytes === undefined
          ? used
          : `${used} and this file (${formatFileSize(bytes)}) would take them past it`
      }. Delete files you no longer need, or upgrade on ${PRICING_PATH} for more storage.`,
    );
  }
}

/** API-key permissions as better-auth stores them, to and from a scope. */
export function scopeToPermissions(scope: KeyScope): Record<string, string[]> {
  return { projects: scope.projects === "*" ? ["*"] : scope.projects, access: [scope.access] };
}

export function scopeFromPermissions(permissions: Record<string, string[]> | null | undefined): KeyScope {
  const projects = permissions?.projects ?? [];
  const access = permissions?.access?.includes("publish") ? "publish" : "read";
  return { projects: projects.includes("*") ? "*" : projects, access };
}

/** Throws PLAN_LIMIT when the account already holds as many entitlement tokens as its plan allows. */
export function assertEntitlementTokenAllowed(plan: PlanId, held: number): void {
  const { name, entitlementTokens: limit } = plans[plan];
  if (limit === "unlimited" || held < limit) return;
  throw planLimit(
    "entitlementTokens",
    limit === 0
      ? `Your ${name} plan does not include entitlement tokens. Upgrade on ${PRICING_PATH} to give your customers their own tokens; your own machines read private projects with read-only API keys.`
      : `Your ${name} plan includes ${limit} entitlement tokens and your account has ${held}. Delete tokens you no longer need, or upgrade on ${PRICING_PATH} for more.`,
  );
}

/** An entitlement token as the decisions below need it (entitlements/checks.ts loads it). */
export interface Entitlement {
  id: string;
  /** The account whose projects it reads. */
  ownerId: string;
  projectIds: readonly string[];
  validFrom: string | null;
  validUntil: string | null;
  maxDownloads: number | null;
  /** Files answered with it so far. */
  downloads: number;
  maxBytesPerMonth: number | null;
  bytesThisMonth: number;
  /** null: every suite, every group, every version. */
  suites: readonly string[] | null;
  groups: readonly string[] | null;
  versionRange: VersionRange | null;
}

/** What a /dl request with an entitlement token reaches, as far as its URL and file say. */
export interface EntitledTarget {
  projectId: string;
  /** An APT suite (dists/<suite>/…), or the suites listing a pool file (one of them will do). */
  suite?: string | readonly string[];
  /** A YUM group ("" for the repository root). */
  group?: string;
  /** The release version of the file served, compared in its format's order. */
  version?: { value: string; compare: (a: string, b: string) => number };
  /** A file of a release (not an index, key or script): counts against maxDownloads. */
  file?: boolean;
}

export function entitlementLimit(message: string, limit: string): DomainError {
  return new DomainError("ENTITLEMENT_LIMIT", message, { limit });
}

/**
 * Throws unless the token may read the target now: NOT_FOUND outside its projects, suites,
 * groups or version range; ENTITLEMENT_LIMIT before its validFrom, after its validUntil, and
 * once its downloads (a file) or this month's bytes are used up.
 */
export function assertEntitled(entitlement: Entitlement, target: EntitledTarget, now: Date): void {
  const { suites, groups, versionRange } = entitlement;
  if (!entitlement.projectIds.includes(target.projectId)) throw notFound("Project not found");
  if (target.suite !== undefined && suites) {
    const asked = typeof target.suite === "string" ? [target.suite] : target.suite;
    if (!asked.some((suite) => suites.includes(suite))) throw notFound();
  }
  if (target.group !== undefined && groups && !groups.includes(target.group)) throw notFound();
  if (
    target.version &&
    versionRange &&
    !versionInRange(versionRange, target.version.value, target.version.compare)
  )
    throw notFound();
  const at = now.toISOString();
  if (entitlement.validFrom && at < entitlement.validFrom)
    throw entitlementLimit(`This entitlement token is valid from ${entitlement.validFrom}.`, "validFrom");
  if (entitlement.validUntil && at >= entitlement.validUntil)
    throw entitlementLimit(`This entitlement token expired at ${entitlement.validUntil}.`, "validUntil");
  if (target.file && entitlement.maxDownloads !== null && entitlement.downloads >= entitlement.maxDownloads)
    throw downloadsUsedUp(entitlement.maxDownloads);
  if (entitlement.maxBytesPerMonth !== null && entitlement.bytesThisMonth >= entitlement.maxBytesPerMonth)
    throw entitlementLimit(
      `This entitlement token has used its ${formatFileSize(entitlement.maxBytesPerMonth)} for this month; it reads again on the 1st (UTC).`,
      "maxBytesPerMonth",
    );
}

/** The refusal once a token's downloads are used up (also when another request took the last one). */
export function downloadsUsedUp(maxDownloads: number): DomainError {
  return entitlementLimit(
    `This entitlement token has used all of its ${maxDownloads} download${maxDownloads === 1 ? "" : "s"}.`,
    "maxDownloads",
  );
}
