// Who may pull, push and delete which images: the registry's answer to a token request, from
// the same decisions as the rest of Packyard (platform/core/authorization.ts through
// requireOwnProject, entitlement tokens' projects). A repository name is `{owner}/{project}` or
// `{owner}/{project}/{image}`; a project the caller may not see grants nothing, and says nothing.
import { entitlementChecksOf, isEntitlementToken } from "../../entitlements/checks.ts";
import type { Actor } from "../../platform/core/authorization.ts";
import { DomainError } from "../../platform/core/errors.ts";
import { keyChecksOf } from "../../platform/http/actor.ts";
import { requireOwnProject } from "../../projects/storage.ts";
import type { Services } from "../../services.ts";
import { checkPublishToken, isPublishToken } from "../../trusted-publishing/checks.ts";
import { projectOfName, splitRepositoryName } from "./storage.ts";
import type { RegistryAction, RegistryGrant, RegistrySubject, RepositoryAccess } from "./tokens.ts";

/** The subject a credential stands for; UNAUTHENTICATED when it is not valid now. */
export async function subjectOf(
  services: Services,
  credential: string | undefined,
): Promise<RegistrySubject> {
  if (credential === undefined || credential === "") return { kind: "anonymous" };
  if (isEntitlementToken(credential)) {
    const entitlement = await entitlementChecksOf(services).check(credential);
    const now = services.clock().toISOString();
    if (
      (entitlement.validFrom && entitlement.validFrom > now) ||
      (entitlement.validUntil && entitlement.validUntil <= now)
    )
      throw new DomainError("UNAUTHENTICATED", "This entitlement token is not valid at this time");
    return { kind: "entitlement", entitlementId: entitlement.id, ownerId: entitlement.ownerId };
  }
  const actor: Actor = isPublishToken(credential)
    ? await checkPublishToken(services.database.db, credential, services.clock())
    : await keyChecksOf(services).check(credential);
  return { kind: "actor", actor };
}

const NEEDED = { pull: "read", push: "publish", delete: "publish" } as const;

/** What the subject may do of what it asked, per repository. */
export async function grantFor(
  services: Services,
  subject: RegistrySubject,
  wanted: readonly RepositoryAccess[],
): Promise<RegistryGrant> {
  const { db } = services.database;
  const access: RepositoryAccess[] = [];
  let entitled: Set<string> | undefined;
  for (const { name, actions } of wanted) {
    const parts = splitRepositoryName(name);
    const project = parts && (await projectOfName(db, parts));
    if (!parts || !project) continue;
    const granted: RegistryAction[] = [];
    for (const action of actions) {
      if (subject.kind === "anonymous") {
        if (action === "pull" && project.visibility === "public") granted.push(action);
      } else if (subject.kind === "entitlement") {
        if (action !== "pull") continue;
        if (project.visibility === "public") granted.push(action);
        else {
          entitled ??= await entitledProjects(services, subject.entitlementId);
          if (entitled.has(project.id)) granted.push(action);
        }
      } else {
        if (action === "pull" && project.visibility === "public") {
          granted.push(action);
          continue;
        }
        try {
          await requireOwnProject(db, subject.actor, `${parts.owner}/${parts.slug}`, NEEDED[action]);
          granted.push(action);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
        }
      }
    }
    if (granted.length > 0) access.push({ name, actions: granted });
  }
  return { subject, access };
}

async function entitledProjects(services: Services, entitlementId: string): Promise<Set<string>> {
  const rows = await services.database.db
    .selectFrom("entitlement_project")
    .select("project_id")
    .where("entitlement_id", "=", entitlementId)
    .execute();
  return new Set(rows.map((r) => r.project_id));
}
