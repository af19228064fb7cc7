// What anyone may see: public projects to everyone; a private project only to its owner (by
// session) or to the owner's API keys scoped to it. Everything else is "not found", so the
// existence of a private project never leaks.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Actor } from "./access.ts";
import { notFound } from "./errors.ts";
import type { ProjectRow } from "./projects.ts";

export function canView(project: ProjectRow, viewer: Actor | null): boolean {
  if (project.visibility === "public") return true;
  if (!viewer || viewer.userId !== project.owner_id) return false;
  if (viewer.kind === "session") return true;
  return viewer.scope.projects === "*" || viewer.scope.projects.includes(project.id);
}

export async function findVisibleProject(
  db: Kysely<Database>,
  username: string,
  slug: string,
  viewer: Actor | null,
): Promise<ProjectRow> {
  const project = await db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .selectAll("project")
    .where("user.username", "=", username)
    .where("project.slug", "=", slug)
    .executeTakeFirst();
  if (!project || !canView(project, viewer)) throw notFound("Project not found");
  return project;
}
