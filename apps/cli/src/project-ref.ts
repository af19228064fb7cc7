// OWNER/PROJECT (or PROJECT) on the command line, and the project it names. The API finds a
// project among the token's user's own and those of the organizations the user belongs to (an
// organization's key: the organization's), by slug or by owner/slug; a named OWNER is the user
// or one of those organizations.
import type { PackyardApi } from "./api.ts";
import { orgSlug, type Project, projectSlug } from "./contract.ts";
import { CliError, exitCodes, usageError } from "./errors.ts";

export interface ProjectRef {
  owner: string | undefined;
  slug: string;
}

export function parseProjectRef(raw: string, options: { ownerRequired?: boolean } = {}): ProjectRef {
  const parts = raw.split("/");
  const [owner, slug] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (parts.length > 2 || slug === undefined || (options.ownerRequired && owner === undefined)) {
    const form = options.ownerRequired ? "OWNER/PROJECT" : "PROJECT or OWNER/PROJECT";
    throw usageError(`Name the project as ${form}, not "${raw}"`);
  }
  if (owner !== undefined) {
    const valid = orgSlug.safeParse(owner);
    if (!valid.success)
      throw usageError(`"${owner}" is not a username or organization: ${valid.error.issues[0]?.message}`);
  }
  const parsed = projectSlug.safeParse(slug);
  if (!parsed.success)
    throw usageError(`"${slug}" is not a project slug: ${parsed.error.issues[0]?.message}`);
  return { owner, slug };
}

export const refName = (ref: ProjectRef) => (ref.owner ? `${ref.owner}/${ref.slug}` : ref.slug);

/** How the API is told which project: owner/slug, so a slug of several owners is no question. */
export const projectKey = (project: Pick<Project, "owner" | "slug">) => `${project.owner}/${project.slug}`;

/**
 * The project. Not found with an OWNER that is neither the token's user nor one of the user's
 * organizations: WRONG_OWNER, saying whose the token is (GET /api/v1/me).
 */
export async function requireProject(api: PackyardApi, ref: ProjectRef): Promise<Project> {
  let project: Project;
  try {
    project = await api.getProject(refName(ref));
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "NOT_FOUND") throw error;
    const user = ref.owner
      ? ((await api.me().catch(() => undefined))?.user.username ?? undefined)
      : undefined;
    if (user && user.toLowerCase() !== ref.owner!.toLowerCase()) {
      const orgs = await api.listOrgs().catch(() => []);
      if (!orgs.some((o) => o.slug.toLowerCase() === ref.owner!.toLowerCase())) throw wrongOwner(ref, user);
    }
    throw new CliError(
      "NOT_FOUND",
      `Project ${refName(ref)} not found, or this token cannot see it`,
      exitCodes.notFound,
      404,
    );
  }
  if (ref.owner && project.owner.toLowerCase() !== ref.owner.toLowerCase())
    throw wrongOwner(ref, project.owner);
  return project;
}

function wrongOwner(ref: ProjectRef, user: string): CliError {
  return new CliError(
    "WRONG_OWNER",
    `This token belongs to ${user}, not ${ref.owner}: it can only reach ${user}'s projects (${user}/${ref.slug})`,
    exitCodes.auth,
  );
}
