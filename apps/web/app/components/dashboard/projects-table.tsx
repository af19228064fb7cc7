// The projects table of /projects and an organization's page: name, visibility, latest release,
// downloads, last update. Each links to its page (lib/project-path.ts), an organization's project
// to /orgs/{org}/projects/{slug}.
import type { Project } from "@packyard/contract";
import { Link } from "react-router";
import { formatCompactCount, formatCount } from "../../lib/format.ts";
import { projectPath } from "../../lib/project-path.ts";
import { Card } from "../ui/card.tsx";
import { VisibilityBadge } from "./badges.tsx";
import { FormattedDate } from "./formatted-date.tsx";

export function ProjectsTable({ projects, caption }: { projects: Project[]; caption: string }) {
  return (
    <Card className="overflow-hidden">
      <table className="w-full table-fixed text-sm" data-testid="projects-table">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="px-4 py-3 sm:px-6">
              Project
            </th>
            <th scope="col" className="hidden w-32 px-4 py-3 md:table-cell">
              Visibility
            </th>
            <th scope="col" className="w-32 px-4 py-3 sm:w-44">
              Latest
            </th>
            <th scope="col" className="hidden w-32 px-4 py-3 text-right sm:table-cell">
              Downloads
            </th>
            <th scope="col" className="hidden w-36 px-4 py-3 text-right lg:table-cell sm:pr-6">
              Updated
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {projects.map((project) => (
            <tr key={project.id} className="transition-colors hover:bg-muted/40">
              <td className="break-words px-4 py-3 sm:px-6">
                <Link
                  to={projectPath(project)}
                  className="rounded-sm font-medium text-foreground hover:text-primary hover:underline"
                >
                  {project.name}
                </Link>
                <div className="mt-0.5 flex items-center gap-2">
                  <span className="truncate font-mono text-xs text-muted-foreground">
                    {project.ownerKind === "organization" ? `${project.owner}/` : ""}
                    {project.slug}
                  </span>
                  <span className="md:hidden">
                    <VisibilityBadge visibility={project.visibility} />
                  </span>
                </div>
              </td>
              <td className="hidden px-4 py-3 md:table-cell">
                <VisibilityBadge visibility={project.visibility} />
              </td>
              <td className="px-4 py-3">
                {project.latestVersion ? (
                  <span className="block truncate font-mono text-xs sm:text-sm" title={project.latestVersion}>
                    {project.latestVersion}
                  </span>
                ) : (
                  <span className="text-muted-foreground">—</span>
                )}
                <div className="text-xs text-muted-foreground">
                  {project.releaseCount} {project.releaseCount === 1 ? "release" : "releases"}
                </div>
                <div className="text-xs text-muted-foreground sm:hidden">
                  {formatCount(project.downloads, "download")}
                </div>
              </td>
              <td className="hidden px-4 py-3 text-right tabular-nums sm:table-cell">
                {formatCompactCount(project.downloads)}
              </td>
              <td className="hidden px-4 py-3 text-right text-muted-foreground lg:table-cell sm:pr-6">
                <FormattedDate iso={project.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
