// Where a project's dashboard pages live: /projects/{slug} for the signed-in user's own projects,
// /orgs/{org}/projects/{slug} for an organization's (decision 040). Every link to a project page
// is built here, from the Project DTO's owner and ownerKind, so an organization's project never
// links to a personal URL.
import type { Project } from "@packyard/contract";

export type ProjectPlace = Pick<Project, "owner" | "ownerKind" | "slug">;

/** The project's dashboard page, or one below it (`sub`: "/releases", "/settings", …). */
export function projectPath(project: ProjectPlace, sub = ""): string {
  const slug = encodeURIComponent(project.slug);
  const base =
    project.ownerKind === "organization"
      ? `/orgs/${encodeURIComponent(project.owner)}/projects/${slug}`
      : `/projects/${slug}`;
  return `${base}${sub}`;
}

/** A release's dashboard page. */
export function releasePath(project: ProjectPlace, version: string): string {
  return projectPath(project, `/releases/${encodeURIComponent(version)}`);
}

/** An organization's dashboard page, or one below it ("/members", "/settings"). */
export function orgPath(slug: string, sub = ""): string {
  return `/orgs/${encodeURIComponent(slug)}${sub}`;
}

/** How the API and the domain name the project: owner/slug, never ambiguous. */
export function projectRefOf(project: Pick<Project, "owner" | "slug">): string {
  return `${project.owner}/${project.slug}`;
}

/** The breadcrumbs' start for a project: the user's projects, or its organization. */
export function projectCrumbs(
  project: ProjectPlace & { name: string },
  current?: string,
): { label: string; to?: string }[] {
  const start =
    project.ownerKind === "organization"
      ? { label: project.owner, to: orgPath(project.owner) }
      : { label: "Projects", to: "/projects" };
  return current === undefined
    ? [start, { label: project.name }]
    : [start, { label: project.name, to: projectPath(project) }, { label: current }];
}
