// A table of download numbers: one row per day, file, version, client kind or distribution,
// with its installs and downloads and, when the rows have them (days, client kinds), its distinct
// machines. Under each row's name: the bytes served (or what `detail` says), and its share of
// the files fetched (a bar, installs and downloads in the chart's colours). Three numbers fit
// beside a name in half a card and two at 375 px (machines show from 640 px).
import type { StatsRow } from "@packyard/contract/stats.ts";
import type { ReactNode } from "react";
import { formatCompactCount, formatFileSize } from "../../lib/format.ts";
import { SERIES } from "./downloads-chart.tsx";

const number = (value: number) => <span title={String(value)}>{formatCompactCount(value)}</span>;

export function DownloadsTable({
  caption,
  keyLabel,
  rows,
  renderKey = (row) => row.key,
  detail = (row) => `${formatFileSize(row.bytes)} served`,
  empty = "No installs or downloads in this period.",
  testId,
}: {
  caption: string;
  keyLabel: string;
  rows: StatsRow[];
  renderKey?: (row: StatsRow) => ReactNode;
  /** The muted line under the name: the bytes served, unless told otherwise. */
  detail?: (row: StatsRow) => ReactNode;
  empty?: string;
  testId?: string;
}) {
  const total = rows.reduce((n, r) => n + r.installs + r.downloads, 0);
  const machines = rows.some((r) => r.machines !== undefined);
  if (rows.length === 0) return <p className="text-sm text-muted-foreground">{empty}</p>;
  const heading = "px-2 py-2.5 text-right sm:px-3";
  const cell = "px-2 py-2 text-right align-top tabular-nums sm:px-3";
  return (
    <div className="overflow-x-auto rounded-lg border border-border">
      <table className="w-full table-fixed text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="px-3 py-2.5">
              {keyLabel}
            </th>
            <th scope="col" className={`w-[5rem] sm:w-[5.5rem] ${heading}`}>
              Installs
            </th>
            <th scope="col" className={`w-24 sm:w-28 ${heading}`}>
              Downloads
            </th>
            {machines ? (
              <th scope="col" className={`hidden w-[6.25rem] sm:table-cell ${heading}`}>
                Machines
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {rows.map((row) => {
            const share = (n: number) => `${total > 0 ? (n / total) * 100 : 0}%`;
            return (
              <tr key={`${row.key}\0${row.version ?? ""}`}>
                <th scope="row" className="px-3 py-2 text-left font-normal">
                  <div className="truncate" data-testid="row-key">
                    {renderKey(row)}
                  </div>
                  <div className="truncate text-xs text-muted-foreground">
                    <span className="sr-only">, </span>
                    {detail(row)}
                  </div>
                  <div
                    className="mt-1 flex h-1 w-full overflow-hidden rounded-full bg-muted"
                    aria-hidden="true"
                  >
                    {SERIES.map((series) => (
                      <div
                        key={series.key}
                        className="h-1"
                        style={{ width: share(row[series.key]), background: series.color }}
                      />
                    ))}
                  </div>
                </th>
                <td className={cell}>{number(row.installs)}</td>
                <td className={cell}>{number(row.downloads)}</td>
                {machines ? (
                  <td className={`hidden sm:table-cell ${cell}`}>{number(row.machines ?? 0)}</td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
