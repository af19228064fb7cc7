// One entitlement token's use, for its page (a project's or an organization's token): its
// installs, downloads, bytes and machines over the last 30 days, a chart of its installs and
// downloads per day, its limits with what is used of them, and the days it was used.
import type { EntitlementSummary, EntitlementUsageDay } from "@packyard/contract/entitlements.ts";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import { Download, HardDrive, Monitor, PackageCheck } from "lucide-react";
import { formatCompactCount } from "../../lib/format.ts";
import { DownloadsChart, shortDay } from "../dashboard/downloads-chart.tsx";
import { StatGrid } from "../dashboard/stats.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { EntitlementFacts } from "./entitlement-card.tsx";

export function EntitlementUsageView({
  entitlement: t,
  days,
}: {
  entitlement: EntitlementSummary;
  days: EntitlementUsageDay[];
}) {
  const total = days.reduce(
    (sum, d) => ({
      downloads: sum.downloads + d.downloads,
      installs: sum.installs + d.installs,
      bytes: sum.bytes + d.bytes,
      machines: Math.max(sum.machines, d.machines),
    }),
    { downloads: 0, installs: 0, bytes: 0, machines: 0 },
  );
  const rows = days.map((d) => ({ key: d.day, installs: d.installs, downloads: d.downloads }));
  const used = days.filter((d) => d.bytes > 0 || d.downloads + d.installs > 0).reverse();
  return (
    <div className="grid min-w-0 gap-6">
      <p className="-mb-3 text-sm text-muted-foreground">The last 30 days (UTC):</p>
      <StatGrid
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
            hint: "browsers, curl",
            icon: Download,
          },
          { label: "Bytes", value: formatFileSize(total.bytes), hint: "sent", icon: HardDrive },
          { label: "Machines", value: String(total.machines), hint: "most on one day", icon: Monitor },
        ]}
      />
      <Card className="min-w-0">
        <CardHeader>
          <CardTitle>Installs and downloads per day</CardTitle>
          <CardDescription>
            Files delivered to their last byte, per UTC day, over the last 30 days.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <DownloadsChart
            rows={rows}
            label={`Installs and downloads with ${t.name}'s token per day, last 30 days: ${total.installs} installs and ${total.downloads} downloads. The Days used table lists each day.`}
          />
        </CardContent>
      </Card>
      <div className="grid gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>Limits</CardTitle>
          </CardHeader>
          <CardContent>
            <EntitlementFacts entitlement={t} />
          </CardContent>
        </Card>
        <Card className="min-w-0">
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
                      <th className="hidden py-1.5 pr-4 text-right font-medium sm:table-cell">Bytes</th>
                      <th className="py-1.5 text-right font-medium">Machines</th>
                    </tr>
                  </thead>
                  <tbody className="tabular-nums">
                    {used.map((d) => (
                      <tr key={d.day} className="border-t border-border">
                        <td className="whitespace-nowrap py-1.5 pr-4">{shortDay(d.day)}</td>
                        <td className="py-1.5 pr-4 text-right">{d.installs}</td>
                        <td className="py-1.5 pr-4 text-right">{d.downloads}</td>
                        <td className="hidden py-1.5 pr-4 text-right sm:table-cell">
                          {formatFileSize(d.bytes)}
                        </td>
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
  );
}
