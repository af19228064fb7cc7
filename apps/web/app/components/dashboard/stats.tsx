// A row of headline numbers, as a description list of cards.
import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "../../lib/utils.ts";
import { Card } from "../ui/card.tsx";

export interface Stat {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  icon?: LucideIcon;
}

export function StatGrid({ stats, className }: { stats: Stat[]; className?: string }) {
  return (
    <dl className={cn("grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4", className)}>
      {stats.map(({ label, value, hint, icon: Icon }) => (
        <Card
          key={label}
          className="p-4 sm:p-5"
          data-testid={`stat-${label.toLowerCase().replace(/\s+/g, "-")}`}
        >
          <dt className="flex items-center gap-2 text-sm text-muted-foreground">
            {Icon ? <Icon className="size-4" aria-hidden="true" /> : null}
            {label}
          </dt>
          <dd className="mt-1 truncate text-2xl font-semibold tabular-nums">{value}</dd>
          {hint ? <dd className="mt-1 truncate text-xs text-muted-foreground">{hint}</dd> : null}
        </Card>
      ))}
    </dl>
  );
}
