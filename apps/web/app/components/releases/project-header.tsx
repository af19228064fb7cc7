// The top of a public release page: where we are, the project's name, owner, description, links
// and license.
import type { Project } from "@packyard/contract";
import { ChevronRight, Download, ExternalLink, Globe, Lock, Scale } from "lucide-react";
import { Link } from "react-router";
import { formatCount } from "../../lib/format.ts";
import { Badge } from "../ui/badge.tsx";

const externalRel = "nofollow ugc noopener noreferrer";

export function ProjectHeader({ project }: { project: Project }) {
  return (
    <header className="grid gap-4">
      <nav aria-label="Breadcrumb">
        <ol className="flex flex-wrap items-center gap-1 text-sm text-muted-foreground">
          <li>
            <Link to="/releases" className="hover:text-foreground hover:underline">
              Releases
            </Link>
          </li>
          <li aria-hidden="true">
            <ChevronRight className="size-3.5" />
          </li>
          <li>
            <Link
              to={`/releases?${new URLSearchParams({ q: project.owner })}`}
              className="hover:text-foreground hover:underline"
            >
              {project.owner}
            </Link>
          </li>
          <li aria-hidden="true">
            <ChevronRight className="size-3.5" />
          </li>
          <li aria-current="page" className="font-medium text-foreground">
            {project.slug}
          </li>
        </ol>
      </nav>
      <div className="grid gap-2">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1 className="break-words text-3xl font-bold tracking-tight">{project.name}</h1>
          {project.visibility === "private" ? (
            <Badge variant="warning" title="Only you can see this page">
              <Lock aria-hidden="true" />
              Private
            </Badge>
          ) : null}
        </div>
        <p className="text-sm text-muted-foreground">
          by <span className="font-medium text-foreground">@{project.owner}</span>
        </p>
        {project.description ? (
          <p className="max-w-3xl whitespace-pre-line text-muted-foreground">{project.description}</p>
        ) : null}
      </div>
      <ul className="flex flex-wrap items-center gap-x-5 gap-y-2 text-sm">
        {project.homepage ? (
          <li>
            <a
              href={project.homepage}
              rel={externalRel}
              className="inline-flex items-center gap-1.5 font-medium text-primary hover:underline"
            >
              <Globe className="size-4" aria-hidden="true" />
              Homepage
            </a>
          </li>
        ) : null}
        {project.sourceUrl ? (
          <li>
            <a
              href={project.sourceUrl}
              rel={externalRel}
              className="inline-flex items-center gap-1.5 font-medium text-primary hover:underline"
            >
              <ExternalLink className="size-4" aria-hidden="true" />
              Source code
            </a>
          </li>
        ) : null}
        {project.license ? (
          <li className="inline-flex items-center gap-1.5 text-muted-foreground">
            <Scale className="size-4" aria-hidden="true" />
            <span>
              <span className="sr-only">License: </span>
              {project.license}
            </span>
          </li>
        ) : null}
        <li className="inline-flex items-center gap-1.5 text-muted-foreground">
          <Download className="size-4" aria-hidden="true" />
          {formatCount(project.downloads, "download")}
        </li>
      </ul>
    </header>
  );
}
