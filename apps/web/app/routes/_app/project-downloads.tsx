// /projects/{projectSlug}/downloads: a project's installs and downloads over the last 7, 30 or 90
// days — installs (files fetched by package managers) and downloads (by anything else) per day in
// a chart (with the same numbers as a table), distinct machines per day, the top files and
// versions, and the split by client kind and distribution. The numbers are GET
// /api/v1/projects/{slug}/stats's, read with the same function (decisions 033 and 083).
import { CLIENT_KINDS, type ClientKind, clientKindLabels } from "@packyard/contract/stats.ts";
import { BarChart3, Calendar, Download, HardDrive, Monitor, PackageCheck, Users } from "lucide-react";
import { Link } from "react-router";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { DownloadsChart, shortDay } from "../../components/dashboard/downloads-chart.tsx";
import { DownloadsTable } from "../../components/dashboard/downloads-table.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { StatGrid } from "../../components/dashboard/stats.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "../../components/ui/tabs.tsx";
import {
  projectPageOr404,
  projectPermissions,
  projectPlace,
  sessionActor,
} from "../../lib/dashboard.server.ts";
import { DOWNLOAD_PERIODS, downloadPeriod } from "../../lib/download-periods.ts";
import { downloadsOverview } from "../../lib/downloads.server.ts";
import { formatCompactCount, formatCount, formatFileSize } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath, releasePath } from "../../lib/project-path.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import { cn } from "../../lib/utils.ts";
import type { Route } from "./+types/project-downloads";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Downloads of ${loaderData.project.name}` : "Downloads",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const row = await projectPageOr404(database.db, user, params, url);
  const days = downloadPeriod(url.searchParams.get("days"));
  const today = clock().toISOString().slice(0, 10);
  return {
    project: { ...(await projectPlace(database.db, row)), name: row.name },
    overview: await downloadsOverview(database.db, row.id, days, today),
    can: await projectPermissions(database.db, sessionActor(user), row),
  };
}

const isClientKind = (key: string): key is ClientKind => (CLIENT_KINDS as readonly string[]).includes(key);

export default function ProjectDownloads({ loaderData }: Route.ComponentProps) {
  const { project, overview, can } = loaderData;
  const fetched = (row: { installs: number; downloads: number }) => row.installs + row.downloads;
  const busiest = overview.byDay.reduce<(typeof overview.byDay)[number] | undefined>(
    (best, row) => (fetched(row) > 0 && (!best || fetched(row) > fetched(best)) ? row : best),
    undefined,
  );
  const mostMachines = overview.byDay.reduce<(typeof overview.byDay)[number] | undefined>(
    (best, row) => ((row.machines ?? 0) > 0 && (!best || row.machines! > best.machines!) ? row : best),
    undefined,
  );
  const topClient = overview.byClient[0];
  const period = `${shortDay(overview.from)} – ${shortDay(overview.to)}`;
  const { total } = overview;

  return (
    <>
      <Breadcrumbs items={projectCrumbs(project, "Downloads")} />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <header className="mb-6 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold tracking-tight">Downloads</h1>
          <p className="mt-1 text-sm text-muted-foreground">
            {project.name}, {period} (UTC). An install is a file fetched by a package manager (apt, dnf/yum,
            zypper, npm, pip, uv), a download one fetched by anything else; indexes and signatures count as
            neither.
          </p>
        </div>
        <nav aria-label="Period" className="inline-flex shrink-0 rounded-md bg-muted p-1">
          {DOWNLOAD_PERIODS.map((days) => (
            <Link
              key={days}
              to={`?days=${days}`}
              preventScrollReset
              aria-current={days === overview.days ? "page" : undefined}
              className={cn(
                "rounded px-3 py-1 text-sm font-medium text-muted-foreground hover:text-foreground",
                days === overview.days && "bg-background text-foreground shadow-sm",
              )}
            >
              {days} days
            </Link>
          ))}
        </nav>
      </header>

      <StatGrid
        className="mb-6 lg:grid-cols-3"
        stats={[
          {
            label: "Installs",
            value: formatCompactCount(total.installs),
            hint: "apt, dnf, zypper, npm, pip, uv",
            icon: PackageCheck,
          },
          {
            label: "Downloads",
            value: formatCompactCount(total.downloads),
            hint: "browsers, curl, …",
            icon: Download,
          },
          {
            label: "Machines",
            value: formatCompactCount(mostMachines?.machines ?? 0),
            hint: mostMachines ? `most in a day, ${shortDay(mostMachines.key)}` : "most in a day",
            icon: Users,
          },
          { label: "Bytes served", value: formatFileSize(total.bytes), icon: HardDrive },
          {
            label: "Busiest day",
            value: busiest ? shortDay(busiest.key) : "—",
            hint: busiest ? `${formatCount(fetched(busiest), "file")} fetched` : undefined,
            icon: Calendar,
          },
          {
            label: "Top client",
            value: topClient && isClientKind(topClient.key) ? clientKindLabels[topClient.key] : "—",
            icon: Monitor,
          },
        ]}
      />

      <Card className="mb-6">
        <Tabs defaultValue="chart">
          <CardHeader className="flex-col gap-3 px-4 sm:flex-row sm:items-start sm:justify-between sm:px-6">
            <div className="grid gap-1.5">
              <CardTitle>Installs and downloads per day</CardTitle>
              <CardDescription>Files delivered to their last byte, per UTC day.</CardDescription>
            </div>
            <TabsList aria-label="View">
              <TabsTrigger value="chart">
                <BarChart3 aria-hidden="true" />
                Chart
              </TabsTrigger>
              <TabsTrigger value="table">Table</TabsTrigger>
            </TabsList>
          </CardHeader>
          <CardContent className="px-2 sm:px-6">
            <TabsContent value="chart">
              <DownloadsChart
                rows={overview.byDay}
                label={`Installs and downloads per day from ${period}: ${formatCount(total.installs, "install")} and ${formatCount(total.downloads, "download")} in all. The Table tab lists each day, with its machines.`}
              />
            </TabsContent>
            <TabsContent value="table" className="px-2 sm:px-0">
              <DownloadsTable
                caption="Installs, downloads and machines per day"
                keyLabel="Day"
                rows={[...overview.byDay].reverse()}
                renderKey={(row) => <time dateTime={row.key}>{shortDay(row.key)}</time>}
                testId="downloads-by-day"
              />
            </TabsContent>
          </CardContent>
        </Tabs>
      </Card>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Top files</CardTitle>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <DownloadsTable
              caption="Top files"
              keyLabel="File"
              rows={overview.byFile.slice(0, 10)}
              renderKey={(row) => (
                <span className="font-mono text-xs sm:text-sm" title={row.key}>
                  {row.key}
                </span>
              )}
              detail={(row) => (
                <>
                  <span className="font-mono">{row.version}</span> · {formatFileSize(row.bytes)} served
                </>
              )}
              testId="downloads-by-file"
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Top versions</CardTitle>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <DownloadsTable
              caption="Top versions"
              keyLabel="Version"
              rows={overview.byVersion.slice(0, 10)}
              renderKey={(row) => (
                <Link
                  to={releasePath(project, row.key)}
                  className="font-mono hover:text-primary hover:underline"
                >
                  {row.key}
                </Link>
              )}
              testId="downloads-by-version"
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Clients</CardTitle>
            <CardDescription>
              Told from each request&apos;s User-Agent. Machines: distinct per day, added up.
            </CardDescription>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <DownloadsTable
              caption="Installs, downloads and machines by client kind"
              keyLabel="Client"
              rows={overview.byClient}
              renderKey={(row) => (isClientKind(row.key) ? clientKindLabels[row.key] : row.key)}
              testId="downloads-by-client"
            />
          </CardContent>
        </Card>
        <Card>
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Distributions</CardTitle>
            <CardDescription>
              The APT suite, the YUM group, or what dnf or zypper says it runs on.
            </CardDescription>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <DownloadsTable
              caption="Installs and downloads by distribution"
              keyLabel="Distribution"
              rows={overview.byDistribution}
              renderKey={(row) =>
                row.key === "" ? <span className="text-muted-foreground">Not known</span> : row.key
              }
              testId="downloads-by-distribution"
            />
          </CardContent>
        </Card>
      </div>
    </>
  );
}
