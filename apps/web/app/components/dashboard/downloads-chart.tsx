// Installs and downloads per day as a stacked area chart (Recharts), with its legend. Recharts
// draws nothing on the server (it measures its container in the browser): the server and the
// hydrating render show an empty box of the same height, the chart appears after hydration; the
// legend is plain HTML, there from the start. The same numbers are in the table view beside it
// (DownloadsTable), which is what screen readers are pointed to.
import { useSyncExternalStore } from "react";
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const subscribe = () => () => {};
const useHydrated = () =>
  useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );

/** "2026-11-20" → "Nov 20" (UTC: the days are UTC days). */
export function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

/** One day of the chart. */
export interface ChartDay {
  key: string;
  installs: number;
  downloads: number;
}

/** The two series, installs under downloads, in the colours the tables' bars use. */
export const SERIES = [
  { key: "installs", label: "Installs", color: "var(--chart-installs)" },
  { key: "downloads", label: "Downloads", color: "var(--chart-downloads)" },
] as const;

export function ChartLegend({ className }: { className?: string }) {
  return (
    <ul
      className={`flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground ${className ?? ""}`}
      aria-hidden="true"
    >
      {SERIES.map((series) => (
        <li key={series.key} className="flex items-center gap-1.5">
          <span className="size-2.5 rounded-sm" style={{ background: series.color }} />
          {series.label}
        </li>
      ))}
    </ul>
  );
}

export function DownloadsChart({ rows, label }: { rows: ChartDay[]; label: string }) {
  const hydrated = useHydrated();
  return (
    <div className="grid min-w-0 gap-3">
      <div
        className="h-64 w-full min-w-0 overflow-hidden sm:h-72"
        role="img"
        aria-label={label}
        data-testid="downloads-chart"
      >
        {hydrated ? (
          <ResponsiveContainer width="100%" height="100%">
            <AreaChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
              <defs>
                {SERIES.map((series) => (
                  <linearGradient key={series.key} id={`${series.key}-fill`} x1="0" y1="0" x2="0" y2="1">
                    <stop offset="0%" stopColor={series.color} stopOpacity={0.4} />
                    <stop offset="100%" stopColor={series.color} stopOpacity={0.05} />
                  </linearGradient>
                ))}
              </defs>
              <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
              <XAxis
                dataKey="key"
                tickFormatter={shortDay}
                tick={{ fill: "var(--muted-fg)", fontSize: 12 }}
                axisLine={{ stroke: "var(--border)" }}
                tickLine={false}
                minTickGap={24}
              />
              <YAxis
                allowDecimals={false}
                tick={{ fill: "var(--muted-fg)", fontSize: 12 }}
                axisLine={false}
                tickLine={false}
                width={48}
              />
              <Tooltip
                labelFormatter={(day) => shortDay(String(day))}
                contentStyle={{
                  background: "var(--card)",
                  border: "1px solid var(--border)",
                  borderRadius: 8,
                  color: "var(--fg)",
                  fontSize: 13,
                }}
                cursor={{ stroke: "var(--ring)" }}
              />
              {SERIES.map((series) => (
                <Area
                  key={series.key}
                  type="monotone"
                  dataKey={series.key}
                  name={series.label}
                  stackId="files"
                  stroke={series.color}
                  strokeWidth={2}
                  fill={`url(#${series.key}-fill)`}
                  isAnimationActive={false}
                />
              ))}
            </AreaChart>
          </ResponsiveContainer>
        ) : null}
      </div>
      <ChartLegend className="px-2 sm:px-0" />
    </div>
  );
}
