// /projects/{projectSlug}/entitlements/{entitlementId}: one entitlement token — its limits with
// what is used of them, and its use per day over the last 30 days (files fetched, split into
// installs by a package manager and downloads by anything else, bytes, distinct machines) as a
// chart and a table. The same numbers as GET …/entitlements/{id}/usage.
import { ENTITLEMENT_USAGE_DEFAULT_DAYS, type EntitlementUsageDay } from "@packyard/contract/entitlements.ts";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import { Download, HardDrive, Monitor, PackageCheck } from "lucide-react";
import { data } from "react-router";
import { flushDownloadCounts } from "../../../server/billing/usage.ts";
import { entitlementUsage } from "../../../server/entitlements/storage.ts";
import { getEntitlementToken } from "../../../server/entitlements/use-cases.ts";
import { ENTITLEMENT_READ_ACCESS } from "../../../server/platform/core/authorization.ts";
import { DomainError } from "../../../server/platform/core/errors.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { DownloadsChart, shortDay } from "../../components/dashboard/downloads-chart.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { StatGrid } from "../../components/dashboard/stats.tsx";
import { EntitlementState, limitPhrases } from "../../components/entitlements/entitlement-card.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { projectPageOr404, projectPlace, projectRef, sessionCaller } from "../../lib/dashboard.server.ts";
import { formatCompactCount } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-entitlement";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.entitlement.name} · ${loaderData.name}` : "Entitlement token",
    noindex: true,
  });

const DAY_MS = 86_400_000;

/** Every day of the period, oldest first, with zeros where the token was not used. */
function everyDay(days: EntitlementUsageDay[], today: Date): EntitlementUsageDay[] {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const all: EntitlementUsageDay[] = [];
  for (let i = ENTITLEMENT_USAGE_DEFAULT_DAYS - 1; i >= 0; i--) {
    const day = new Date(today.getTime() - i * DAY_MS).toISOString().slice(0, 10);
    all.push(byDay.get(day) ?? { day, downloads: 0, installs: 0, bytes: 0, machines: 0 });
  }
  return all;
}

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const db = database.db;
  const project = await projectPageOr404(db, user, params, url, ENTITLEMENT_READ_ACCESS);
  const caller = sessionCaller(user, clientAddress(context));
  let entitlement: Awaited<ReturnType<typeof getEntitlementToken>>;
  try {
    entitlement = await getEntitlementToken({ db, clock }, caller, {
      project: projectRef(params, user),
      id: params.entitlementId,
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw data(null, { status: 404 });
    throw error;
  }
  const today = clock();
  const since = new Date(today.getTime() - (ENTITLEMENT_USAGE_DEFAULT_DAYS - 1) * DAY_MS)
    .toISOString()
    .slice(0, 10);
  // This server's latest answers are in the numbers.
  await flushDownloadCounts(db);
  const days = everyDay(await entitlementUsage(db, entitlement.id, since), today);
  return { ...(await projectPlace(db, project)), name: project.name, entitlement, days };
}

export default function ProjectEntitlement({ loaderData }: Route.ComponentProps) {
  const { entitlement: t, days } = loaderData;
  const total = days.reduce(
    (sum, d) => ({
      downloads: sum.downloads + d.downloads,
      installs: sum.installs + d.installs,
      bytes: sum.bytes + d.bytes,
      machines: Math.max(sum.machines, d.machines),
    }),
    { downloads: 0, installs: 0, bytes: 0, machines: 0 },
  );
  const base = projectPath(loaderData);
  const rows = days.map((d) => ({ key: d.day, downloads: d.downloads + d.installs, bytes: d.bytes }));
  const used = days.filter((d) => d.bytes > 0 || d.downloads + d.installs > 0).reverse();
  return (
    <>
      <Breadcrumbs
        items={[
          ...projectCrumbs(loaderData).slice(0, -1),
          { label: loaderData.name, to: base },
          { label: "Entitlement tokens", to: `${base}/entitlements` },
          { label: t.name },
        ]}
      />
      <ProjectTabs base={base} />
      <PageHeader
        title={t.name}
        description={t.note ?? `Entitlement token ${t.start}…, reading ${t.projects.join(", ")}.`}
        actions={<EntitlementState entitlement={t} />}
      />
      <div className="grid gap-6">
        <StatGrid
          stats={[
            {
              label: "Installs",
              value: formatCompactCount(total.installs),
              hint: "by apt or dnf, 30 days",
              icon: PackageCheck,
            },
            {
              label: "Downloads",
              value: formatCompactCount(total.downloads),
              hint: "by browsers and curl, 30 days",
              icon: Download,
            },
            { label: "Bytes", value: formatFileSize(total.bytes), hint: "30 days", icon: HardDrive },
            { label: "Machines", value: String(total.machines), hint: "most on one day", icon: Monitor },
          ]}
        />
        <Card>
          <CardHeader>
            <CardTitle>Files fetched per day</CardTitle>
            <CardDescription>Installs and downloads over the last 30 days (UTC).</CardDescription>
          </CardHeader>
          <CardContent>
            <DownloadsChart
              rows={rows}
              label={`Files fetched with ${t.name}'s token per day, last 30 days`}
            />
          </CardContent>
        </Card>
        <div className="grid gap-6 lg:grid-cols-2">
          <Card>
            <CardHeader>
              <CardTitle>Limits</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
                {limitPhrases(t).map(({ label, value }) => (
                  <div key={label} className="contents">
                    <dt className="text-muted-foreground">{label}</dt>
                    <dd className="min-w-0 break-words">{value}</dd>
                  </div>
                ))}
                <dt className="text-muted-foreground">Last used</dt>
                <dd className="min-w-0 break-words">
                  {t.lastUsed ? (
                    <>
                      <FormattedDate iso={t.lastUsed.at} withTime /> from{" "}
                      {t.lastUsed.address ?? "an unknown address"}
                      {t.lastUsed.client ? (
                        <span className="text-muted-foreground"> ({t.lastUsed.client})</span>
                      ) : null}
                    </>
                  ) : (
                    "Never"
                  )}
                </dd>
              </dl>
            </CardContent>
          </Card>
          <Card>
            <CardHeader>
              <CardTitle>Days used</CardTitle>
            </CardHeader>
            <CardContent>
              {used.length === 0 ? (
                <p className="text-sm text-muted-foreground">Not used in the last 30 days.</p>
              ) : (
                <div className="overflow-x-auto">
                  <table className="w-full text-sm" data-testid="entitlement-usage">
                    <thead className="text-left text-muted-foreground">
                      <tr>
                        <th className="py-1.5 pr-4 font-medium">Day</th>
                        <th className="py-1.5 pr-4 text-right font-medium">Installs</th>
                        <th className="py-1.5 pr-4 text-right font-medium">Downloads</th>
                        <th className="py-1.5 pr-4 text-right font-medium">Bytes</th>
                        <th className="py-1.5 text-right font-medium">Machines</th>
                      </tr>
                    </thead>
                    <tbody className="tabular-nums">
                      {used.map((d) => (
                        <tr key={d.day} className="border-t border-border">
                          <td className="py-1.5 pr-4">{shortDay(d.day)}</td>
                          <td className="py-1.5 pr-4 text-right">{d.installs}</td>
                          <td className="py-1.5 pr-4 text-right">{d.downloads}</td>
                          <td className="py-1.5 pr-4 text-right">{formatFileSize(d.bytes)}</td>
                          <td className="py-1.5 text-right">{d.machines}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </CardContent>
          </Card>
        </div>
      </div>
    </>
  );
}
