// One public project in the /releases search results.
import type { Project } from "@packyard/contract";
import { ArrowRight, Download, Tag } from "lucide-react";
import { Link } from "react-router";
import { formatCompactCount } from "../../lib/format.ts";
import { Badge } from "../ui/badge.tsx";
import { formatDate } from "./format-date.ts";
import { releasePath } from "./paths.ts";

export function ProjectCard({ project }: { project: Project }) {
  return (
    <li className="group relative flex min-w-0 flex-col gap-3 rounded-xl border border-border bg-card p-5 shadow-sm transition-colors hover:border-primary/50 has-[a:focus-visible]:outline-2 has-[a:focus-visible]:outline-offset-2 has-[a:focus-visible]:outline-ring">
      <div className="min-w-0">
        <p className="truncate font-mono text-xs text-muted-foreground">
          {project.owner}/{project.slug}
        </p>
        <h2 className="mt-1 text-base font-semibold">
          <Link
            to={releasePath(project.owner, project.slug)}
            className="after:absolute after:inset-0 after:rounded-xl focus-visible:outline-none"
          >
            {project.name}
          </Link>
        </h2>
        {project.description ? (
          <p className="mt-1 line-clamp-2 text-sm text-muted-foreground">{project.description}</p>
        ) : null}
      </div>
      <div className="mt-auto flex flex-wrap items-center gap-x-4 gap-y-2 text-xs text-muted-foreground">
        {project.latestVersion ? (
          <Badge variant="default">
            <Tag aria-hidden="true" />
            <span className="sr-only">Latest version </span>
            {project.latestVersion}
          </Badge>
        ) : (
          <Badge variant="secondary">No releases yet</Badge>
        )}
        <span className="inline-flex items-center gap-1">
          <Download className="size-3.5" aria-hidden="true" />
          {formatCompactCount(project.downloads)}
          <span className="sr-only"> {project.downloads === 1 ? "download" : "downloads"}</span>
        </span>
        <span>Updated {formatDate(project.updatedAt)}</span>
        <ArrowRight
          className="ml-auto size-4 text-muted-foreground transition-transform group-hover:translate-x-0.5 group-hover:text-primary"
          aria-hidden="true"
        />
      </div>
    </li>
  );
}
