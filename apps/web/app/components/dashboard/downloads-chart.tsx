// Downloads per day as an area chart (Recharts). Recharts draws nothing on the server (it
// measures its container in the browser): the server and the hydrating render show an empty box
// of the same height, the chart appears after hydration. The same numbers are in the table view
// beside it (DownloadsTable), which is what screen readers are pointed to.
import type { StatsRow } from "@packyard/contract/stats.ts";
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

export function DownloadsChart({ rows, label }: { rows: StatsRow[]; label: string }) {
  const hydrated = useHydrated();
  return (
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
              <linearGradient id="downloads-fill" x1="0" y1="0" x2="0" y2="1">
                <stop offset="0%" stopColor="var(--primary)" stopOpacity={0.35} />
                <stop offset="100%" stopColor="var(--primary)" stopOpacity={0.02} />
              </linearGradient>
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
              formatter={(value) => [String(value), "Downloads"]}
              contentStyle={{
                background: "var(--card)",
                border: "1px solid var(--border)",
                borderRadius: 8,
                color: "var(--fg)",
                fontSize: 13,
              }}
              cursor={{ stroke: "var(--ring)" }}
            />
            <Area
              type="monotone"
              dataKey="downloads"
              stroke="var(--primary)"
              strokeWidth={2}
              fill="url(#downloads-fill)"
              isAnimationActive={false}
            />
          </AreaChart>
        </ResponsiveContainer>
      ) : null}
    </div>
  );
}
