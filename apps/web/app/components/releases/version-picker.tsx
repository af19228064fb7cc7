// Choosing a release: a select that navigates (for quick switching), and a list of links that
// works without JavaScript. Yanked releases are marked in both.
import { useId } from "react";
import { Link, useNavigate } from "react-router";
import type { VersionItem } from "../../lib/public-releases.server.ts";
import { cn } from "../../lib/utils.ts";
import { Badge } from "../ui/badge.tsx";
import { formatDate } from "./format-date.ts";
import { releasePath } from "./paths.ts";

/** The release "latest" resolves to: the newest one that is not yanked. */
export function latestVersion(versions: VersionItem[]): string | undefined {
  return versions.find((v) => !v.yanked)?.version;
}

export function VersionSelect({
  owner,
  slug,
  versions,
  current,
}: {
  owner: string;
  slug: string;
  versions: VersionItem[];
  current?: string;
}) {
  const id = useId();
  const navigate = useNavigate();
  const latest = latestVersion(versions);
  if (versions.length === 0) return null;
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm font-medium text-muted-foreground">
        Version
      </label>
      <select
        id={id}
        value={current ?? ""}
        onChange={(event) => {
          if (event.target.value) void navigate(releasePath(owner, slug, event.target.value));
        }}
        className="h-9 max-w-[14rem] rounded-md border border-input bg-background px-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring"
      >
        {current ? null : (
          <option value="" disabled>
            Choose a version
          </option>
        )}
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            {`${v.version}${v.yanked ? " (yanked)" : v.version === latest ? " (latest)" : ""}`}
          </option>
        ))}
      </select>
    </div>
  );
}

const LIST_LIMIT = 15;

export function VersionList({
  owner,
  slug,
  versions,
  current,
}: {
  owner: string;
  slug: string;
  versions: VersionItem[];
  current?: string;
}) {
  const latest = latestVersion(versions);
  const shown = versions.slice(0, LIST_LIMIT);
  return (
    <nav aria-labelledby="versions-heading" className="grid gap-2">
      <h2 id="versions-heading" className="text-sm font-semibold">
        Versions <span className="font-normal text-muted-foreground">({versions.length})</span>
      </h2>
      {versions.length === 0 ? (
        <p className="text-sm text-muted-foreground">Nothing published yet.</p>
      ) : (
        <ul className="grid gap-0.5">
          {shown.map((v) => (
            <li key={v.version}>
              <Link
                to={releasePath(owner, slug, v.version)}
                aria-current={v.version === current ? "page" : undefined}
                className={cn(
                  "flex items-center justify-between gap-2 rounded-md px-2 py-1.5 text-sm transition-colors hover:bg-muted",
                  v.version === current && "bg-accent font-medium text-primary",
                )}
              >
                <span
                  // Muted, not faded: a faded version fell to 3.3:1 against the page (WCAG asks 4.5).
                  className={cn(
                    "min-w-0 truncate font-mono",
                    v.yanked && "text-muted-foreground line-through",
                  )}
                >
                  {v.version}
                </span>
                <span className="flex shrink-0 items-center gap-1.5">
                  {v.yanked ? <Badge variant="destructive">yanked</Badge> : null}
                  {v.version === latest ? <Badge variant="success">latest</Badge> : null}
                  <span className="text-xs text-muted-foreground">{formatDate(v.createdAt)}</span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {versions.length > LIST_LIMIT ? (
        <p className="px-2 text-xs text-muted-foreground">
          {versions.length - LIST_LIMIT === 1
            ? "The oldest version is in the version menu."
            : `The ${versions.length - LIST_LIMIT} older versions are in the version menu.`}
        </p>
      ) : null}
    </nav>
  );
}
