// Who may do what: the one place that decides. Every route, loader, action and /dl handler asks
// here; nothing else compares owners, scopes, visibility or plan limits.
//
// - A session may do anything with its user's own projects and account.
// - An API key only what its scope allows: all projects or chosen ones, read or publish. Account
//   data (API keys, usage, creating projects) needs an all-projects key.
// - Public projects are visible to everyone; a private one only to its owner (session, or a key
//   scoped to it). Anything not visible is "not found", so a private project never leaks.
// - Plans limit what an account may hold (private projects).
import type { PlanId } from "@packyard/contract/plans.ts";
import { plans } from "@packyard/contract/plans.ts";
import { DomainError, notFound } from "./errors.ts";

export type Access = "read" | "publish";

export interface KeyScope {
  /** "*" for every project, or the ids of the chosen ones. */
  projects: "*" | string[];
  access: Access;
}

export type Actor =
  | { kind: "session"; userId: string }
  | { kind: "key"; userId: string; keyId: string; scope: KeyScope };

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
  if (needed === "publish" && scope.access !== "publish") {
    throw new DomainError("KEY_SCOPE", "This API key is read-only");
  }
}

export function isOwner(actor: Actor | null, project: Pick<ProjectRef, "owner_id">): boolean {
  return actor !== null && actor.userId === project.owner_id;
}

/**
 * Throws unless the actor may act on the project with this access: another user's project is
 * "not found" (whether it exists is nobody else's business), a key outside its scope KEY_SCOPE.
 */
export function assertProjectAccess(
  actor: Actor,
  project: Pick<ProjectRef, "id" | "owner_id">,
  needed: Access,
) {
  if (!isOwner(actor, project)) throw notFound("Project not found");
  assertKeyAllows(actor, project.id, needed);
}

/** Creating projects or reading and managing account-wide data. */
export function assertAccountAccess(actor: Actor, needed: Access): void {
  assertKeyAllows(actor, "*", needed);
}

/** Whether the viewer (anonymous: null) may see the project, its releases and repositories. */
export function canViewProject(project: ProjectRef, viewer: Actor | null): boolean {
  if (project.visibility === "public") return true;
  if (!viewer || !isOwner(viewer, project)) return false;
  return (
    viewer.kind === "session" || viewer.scope.projects === "*" || viewer.scope.projects.includes(project.id)
  );
}

/** Which projects of the actor's account a listing may show: all, or a key's chosen ones. */
export function visibleProjectIds(actor: Actor): "*" | string[] {
  return actor.kind === "session" ? "*" : actor.scope.projects;
}

/** Throws PLAN_LIMIT when the account already holds as many private projects as its plan allows. */
export function assertPrivateProjectAllowed(plan: PlanId, privateProjects: number): void {
  const limit = plans[plan].privateProjects;
  if (limit === "unlimited" || privateProjects < limit) return;
  throw new DomainError(
    "PLAN_LIMIT",
    `Your plan includes ${limit} private project${limit === 1 ? "" : "s"}. Upgrade on /pricing for more, or make this project public.`,
  );
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
