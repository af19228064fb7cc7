// The dashboard's banner once this month's downloads reach 80 % or 100 % of the plan's
// allowance (decision 018): a warning only, downloads are never cut off. Its data comes from
// downloadAlert(db, config, userId) (server/billing/usage.ts), undefined below 80 %.
import { Gauge } from "lucide-react";
import { Link } from "react-router";
import type { DownloadAlert } from "../../../server/billing/usage.ts";
import { formatFileSize } from "../../lib/format.ts";
import { cn } from "../../lib/utils.ts";
import { Button } from "../ui/button.tsx";

export type { DownloadAlert };

export function UsageBanner({ alert }: { alert: DownloadAlert | undefined | null }) {
  if (!alert) return null;
  const full = alert.percent === 100;
  const used = formatFileSize(alert.usedBytes);
  const allowance = formatFileSize(alert.allowanceBytes);
  return (
    <div
      role="status"
      data-testid="usage-banner"
      data-level={alert.percent}
      className={cn(
        "mb-6 flex flex-col gap-3 rounded-lg border px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between",
        full
          ? "border-destructive/40 bg-destructive/10 text-foreground"
          : "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-200",
      )}
    >
      <p className="flex gap-2">
        <Gauge className={cn("mt-0.5 size-4 shrink-0", full && "text-destructive")} aria-hidden="true" />
        <span>
          <strong className="font-semibold">
            {full
              ? `You have used this month's download allowance: ${used} of the ${allowance} your ${alert.planName} plan includes.`
              : `You have used ${Math.floor((alert.usedBytes / alert.allowanceBytes) * 100)}% of this month's download allowance: ${used} of the ${allowance} your ${alert.planName} plan includes.`}
          </strong>{" "}
          Downloads keep working and nothing is cut off. The count starts again on the first of next month
          (UTC).
        </span>
      </p>
      <Button asChild variant="outline" size="sm" className="shrink-0">
        <Link to="/pricing">Compare plans</Link>
      </Button>
    </div>
  );
}
