// Who is asking, and what they may do. A session may do anything with the user's own
// projects; an API key only what its scope allows: all projects or chosen ones, read or publish.
import { DomainError } from "./errors.ts";

export type Access = "read" | "publish";

export interface KeyScope {
  /** "*" for every project, or the ids of the chosen ones. */
  projects: "*" | string[];
  access: Access;
}

export type Actor =
  | { kind: "session"; userId: string }
  | { kind: "key"; userId: string; keyId: string; scope: KeyScope };

/** Throws unless the actor may act on this (owned) project with this access. */
export function assertProjectAccess(actor: Actor, projectId: string, needed: Access): void {
  if (actor.kind === "session") return;
  const { scope } = actor;
  if (scope.projects !== "*" && !scope.projects.includes(projectId)) {
    throw new DomainError("KEY_SCOPE", "This API key is not scoped to this project");
  }
  if (needed === "publish" && scope.access !== "publish") {
    throw new DomainError("KEY_SCOPE", "This API key is read-only");
  }
}

/** Creating projects or reading account-wide data needs a session or an all-projects key. */
export function assertAccountAccess(actor: Actor, needed: Access): void {
  if (actor.kind === "session") return;
  if (actor.scope.projects !== "*") {
    throw new DomainError("KEY_SCOPE", "This API key is scoped to chosen projects only");
  }
  if (needed === "publish" && actor.scope.access !== "publish") {
    throw new DomainError("KEY_SCOPE", "This API key is read-only");
  }
}

/** API-key permissions as better-auth stores them, to and from our scope. */
export function scopeToPermissions(scope: KeyScope): Record<string, string[]> {
  return { projects: scope.projects === "*" ? ["*"] : scope.projects, access: [scope.access] };
}

export function scopeFromPermissions(permissions: Record<string, string[]> | null | undefined): KeyScope {
  const projects = permissions?.projects ?? [];
  const access = permissions?.access?.includes("publish") ? "publish" : "read";
  return { projects: projects.includes("*") ? "*" : projects, access };
}
