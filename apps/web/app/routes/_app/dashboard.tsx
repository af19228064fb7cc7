// /dashboard: the publisher's overview — account totals and the most recent releases across
// every project.

import { parseAnnual, parsePlan, plans } from "@packyard/contract/plans.ts";
import { ArrowRight, Download, FolderGit2, FolderPlus, HardDrive, Tag } from "lucide-react";
import { useEffect } from "react";
import { Link, useOutletContext, useSearchParams } from "react-router";
import { toast } from "sonner";
import { usageSummary } from "../../../server/billing/usage.ts";
import { UsageBars } from "../../components/billing/usage-bars.tsx";
import { YankedBadge } from "../../components/dashboard/badges.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { StatGrid } from "../../components/dashboard/stats.tsx";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { Progress } from "../../components/ui/progress.tsx";
import { dashboardOverview } from "../../lib/dashboard.server.ts";
import { formatCompactCount, formatFileSize } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { type ProjectPlace, projectPath, releasePath } from "../../lib/project-path.ts";
import { requireOnboardedUser, type SessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/dashboard";

/** The overview lists the user's own projects. */
const own = (slug: string): ProjectPlace => ({ owner: "", ownerKind: "user", slug });

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Dashboard",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  return {
    ...(await dashboardOverview(database.db, user.id)),
    usageSummary: await usageSummary(database.db, config, user.id),
  };
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { usage, downloads, recentReleases } = loaderData;
  const user = useOutletContext<SessionUser>();
  const [search, setSearch] = useSearchParams();
  const plan = parsePlan(search.get("plan"));
  const annual = parseAnnual(search.get("annual"));

  useEffect(() => {
    if (search.get("welcome") !== "1") return;
    toast.success(`Welcome to Packyard, ${user.name}!`);
    const next = new URLSearchParams(search);
    next.delete("welcome");
    setSearch(next, { replace: true });
  }, [search, setSearch, user.name]);

  const storageShare = usage.storageLimitBytes > 0 ? (usage.storageBytes / usage.storageLimitBytes) * 100 : 0;

  return (
    <>
      <PageHeader
        title={`Hello, ${user.name}`}
        description="Your projects, releases and downloads at a glance."
      />
      {plan && plan !== "basic" ? (
        <Alert className="mb-6" data-testid="chosen-plan">
          You chose the {plans[plan].name} plan{annual ? ", billed annually" : ""}.{" "}
          <Link
            className="font-medium text-primary hover:underline"
            to={`/subscription?plan=${plan}&annual=${annual ? "true" : "false"}`}
          >
            Continue on the Subscription page
          </Link>
          .
        </Alert>
      ) : null}
      <StatGrid
        className="mb-8"
        stats={[
          {
            label: "Projects",
            value: formatCompactCount(usage.projects),
            hint: `${usage.privateProjects} private`,
            icon: FolderGit2,
          },
          { label: "Releases", value: formatCompactCount(usage.releases), icon: Tag },
          {
            label: "Downloads",
            value: formatCompactCount(downloads),
            hint: `${formatCompactCount(usage.downloadsThisMonth)} this month`,
            icon: Download,
          },
          {
            label: "Storage used",
            value: formatFileSize(usage.storageBytes),
            hint: (
              <span className="grid gap-1.5">
                <span>of {formatFileSize(usage.storageLimitBytes)}</span>
                <Progress value={storageShare} label="Storage used of your plan's limit" className="h-1" />
              </span>
            ),
            icon: HardDrive,
          },
        ]}
      />
      <UsageBars usage={loaderData.usageSummary} className="mb-8" />
      {usage.projects === 0 ? (
        <EmptyState
          icon={FolderPlus}
          title="No projects yet"
          action={
            <Button asChild>
              <Link to="/projects">Go to projects</Link>
            </Button>
          }
        >
          A project holds your releases and gets its own signed APT and YUM repository. Once you publish, your
          most recent releases show up here.
        </EmptyState>
      ) : (
        <Card>
          <CardHeader className="flex-row items-center justify-between gap-4">
            <CardTitle>Recent releases</CardTitle>
            <Link
              to="/projects"
              className="inline-flex items-center gap-1 rounded-sm text-sm font-medium text-primary hover:underline"
            >
              All projects
              <ArrowRight className="size-3.5" aria-hidden="true" />
            </Link>
          </CardHeader>
          <CardContent>
            {recentReleases.length === 0 ? (
              <p className="rounded-lg border border-dashed border-border px-4 py-8 text-center text-sm text-muted-foreground">
                No releases yet. Open a project to create its first release.
              </p>
            ) : (
              <ul className="divide-y divide-border" data-testid="recent-releases">
                {recentReleases.map((release) => (
                  <li
                    key={`${release.projectSlug}/${release.version}`}
                    className="flex flex-col gap-1 py-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4"
                  >
                    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
                      <Link
                        to={releasePath(own(release.projectSlug), release.version)}
                        className="truncate rounded-sm font-mono font-medium hover:text-primary hover:underline"
                      >
                        {release.version}
                      </Link>
                      {release.yanked ? <YankedBadge /> : null}
                      <span className="text-sm text-muted-foreground">
                        in{" "}
                        <Link
                          to={projectPath(own(release.projectSlug))}
                          className="font-medium text-foreground hover:underline"
                        >
                          {release.projectName}
                        </Link>
                      </span>
                      {release.title ? (
                        <span className="w-full truncate text-sm text-muted-foreground sm:w-auto">
                          · {release.title}
                        </span>
                      ) : null}
                    </div>
                    <div className="flex shrink-0 items-center gap-3 text-xs text-muted-foreground">
                      <span>
                        {release.fileCount} {release.fileCount === 1 ? "file" : "files"}
                      </span>
                      <FormattedDate iso={release.createdAt} />
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      )}
    </>
  );
}
