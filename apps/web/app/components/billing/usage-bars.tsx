// The account's usage against its plan as bars: private projects, storage, and this month's
// downloads (decision 018). /dashboard and /subscription show it with the same numbers, loaded
// on the server by usageSummary(db, config, userId) (server/billing/usage.ts).
import { ArrowRight } from "lucide-react";
import { Link } from "react-router";
import type { UsageMeasure, UsageSummary } from "../../../server/billing/usage.ts";
import { formatFileSize } from "../../lib/format.ts";
import { cn } from "../../lib/utils.ts";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { Progress } from "../ui/progress.tsx";

export type { UsageSummary };

export interface UsageBarsProps {
  usage: UsageSummary;
  className?: string;
  /** Where "Compare plans" goes (default /pricing). */
  plansHref?: string;
}

/** "2026-11" → "November 2026", in UTC as the downloads are counted. */
function monthLabel(month: string): string {
  const [year, number] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleString("en-US", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}

type Level = "ok" | "warning" | "full";

function levelOf(share: number): Level {
  return share >= 100 ? "full" : share >= 80 ? "warning" : "ok";
}

const indicator: Record<Level, string> = {
  ok: "bg-primary",
  warning: "bg-amber-500 dark:bg-amber-400",
  full: "bg-destructive",
};

interface Row {
  key: string;
  label: string;
  measure: UsageMeasure;
  format: (value: number) => string;
  /** What reaching the limit means, in the row's words. */
  hints: Record<Level, (left: string) => string>;
  /** A count at its limit is a warning (nothing more may be added); only over it is "full". */
  fullOnlyOver?: boolean;
}

function UsageRow({ row, planName, limited }: { row: Row; planName: string; limited: boolean }) {
  const { used, limit } = row.measure;
  const share = limit === null ? 0 : limit === 0 ? 100 : (used / limit) * 100;
  const level: Level =
    limit === null ? "ok" : row.fullOnlyOver && used === limit ? "warning" : levelOf(share);
  const value = limit === null ? row.format(used) : `${row.format(used)} of ${row.format(limit)}`;
  const hint =
    limit === null
      ? limited
        ? `Unlimited on ${planName}`
        : "No plan limits on this server"
      : row.hints[level](row.format(Math.max(0, limit - used)));
  return (
    <li className="grid gap-2" data-testid={`usage-${row.key}`}>
      <div className="grid gap-0.5">
        <span className="text-sm text-muted-foreground">{row.label}</span>
        <span className="text-lg font-semibold tabular-nums">
          {row.format(used)}
          {limit === null ? null : (
            <span className="text-sm font-normal text-muted-foreground"> of {row.format(limit)}</span>
          )}
        </span>
      </div>
      {limit === null ? null : (
        <Progress
          value={share}
          label={row.label}
          aria-valuetext={`${value} (${Math.floor(share)}%)`}
          className="h-2"
          indicatorClassName={indicator[level]}
        />
      )}
      <p
        className={cn(
          "text-xs",
          level === "full"
            ? "font-medium text-destructive"
            : level === "warning"
              ? "font-medium text-amber-800 dark:text-amber-300"
              : "text-muted-foreground",
        )}
      >
        {hint}
      </p>
    </li>
  );
}

export function UsageBars({ usage, className, plansHref = "/pricing" }: UsageBarsProps) {
  const count = (value: number) => String(value);
  const rows: Row[] = [
    {
      key: "private-projects",
      label: "Private projects",
      measure: usage.privateProjects,
      format: count,
      hints: {
        ok: (left) => `${left} more available`,
        warning: (left) =>
          left === "0" ? "Limit reached: new private projects are refused" : `${left} more available`,
        full: () => "Over the limit: uploads to private projects are refused",
      },
      fullOnlyOver: true,
    },
    {
      key: "storage",
      label: "Storage",
      measure: usage.storageBytes,
      format: formatFileSize,
      hints: {
        ok: (left) => `${left} free`,
        warning: (left) => `${left} free: uploads past the limit are refused`,
        full: () => "Full: uploads are refused until files are deleted",
      },
    },
    {
      key: "downloads",
      label: "Downloads this month",
      measure: usage.downloadBytes,
      format: formatFileSize,
      hints: {
        ok: (left) => `${left} left in ${monthLabel(usage.month)}`,
        warning: (left) => `${left} left in ${monthLabel(usage.month)}; downloads are never cut off`,
        full: () => "Allowance used: downloads keep working, nothing is cut off",
      },
    },
  ];
  return (
    <Card className={className} data-testid="usage-bars">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="grid gap-1.5">
          <CardTitle>Plan usage</CardTitle>
          <CardDescription>
            {usage.limited ? `${usage.planName} plan` : "Plan limits are off on this server"} · downloads
            counted in {monthLabel(usage.month)} (UTC)
          </CardDescription>
        </div>
        {usage.limited ? (
          <Link
            to={plansHref}
            className="inline-flex items-center gap-1 rounded-sm text-sm font-medium text-primary hover:underline"
          >
            Compare plans
            <ArrowRight className="size-3.5" aria-hidden="true" />
          </Link>
        ) : null}
      </CardHeader>
      <CardContent>
        <ul className="grid gap-6 md:grid-cols-3">
          {rows.map((row) => (
            <UsageRow key={row.key} row={row} planName={usage.planName} limited={usage.limited} />
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
