// OWNER/PROJECT (or PROJECT) on the command line, and the project it names. The API finds a
// project by slug among the token's own user's projects, so a named OWNER must be that user.
import type { PackyardApi } from "./api.ts";
import { type Project, projectSlug } from "./contract.ts";
import { CliError, exitCodes, usageError } from "./errors.ts";

export interface ProjectRef {
  owner: string | undefined;
  slug: string;
}

/** Usernames are 3–30 lowercase letters, digits and hyphens. */
const USERNAME = /^[a-z0-9][a-z0-9-]{1,28}[a-z0-9]$/;

export function parseProjectRef(raw: string, options: { ownerRequired?: boolean } = {}): ProjectRef {
  const parts = raw.split("/");
  const [owner, slug] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (parts.length > 2 || slug === undefined || (options.ownerRequired && owner === undefined)) {
    const form = options.ownerRequired ? "OWNER/PROJECT" : "PROJECT or OWNER/PROJECT";
    throw usageError(`Name the project as ${form}, not "${raw}"`);
  }
  if (owner !== undefined && !USERNAME.test(owner)) {
    throw usageError(`"${owner}" is not a username (3–30 lowercase letters, digits and hyphens)`);
  }
  const parsed = projectSlug.safeParse(slug);
  if (!parsed.success)
    throw usageError(`"${slug}" is not a project slug: ${parsed.error.issues[0]?.message}`);
  return { owner, slug };
}

export const refName = (ref: ProjectRef) => (ref.owner ? `${ref.owner}/${ref.slug}` : ref.slug);

/**
 * The project, after checking that OWNER is the token's user (GET /api/v1/me says whose it is).
 */
export async function requireProject(api: PackyardApi, ref: ProjectRef): Promise<Project> {
  let project: Project;
  try {
    project = await api.getProject(ref.slug);
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "NOT_FOUND") throw error;
    const user = ref.owner
      ? ((await api.me().catch(() => undefined))?.user.username ?? undefined)
      : undefined;
    if (user && user !== ref.owner) throw wrongOwner(ref, user);
    throw new CliError(
      "NOT_FOUND",
      `Project ${refName(ref)} not found, or this token cannot see it`,
      exitCodes.notFound,
      404,
    );
  }
  if (ref.owner && project.owner !== ref.owner) throw wrongOwner(ref, project.owner);
  return project;
}

function wrongOwner(ref: ProjectRef, user: string): CliError {
  return new CliError(
    "WRONG_OWNER",
    `This token belongs to ${user}, not ${ref.owner}: it can only reach ${user}'s projects (${user}/${ref.slug})`,
    exitCodes.auth,
  );
}
