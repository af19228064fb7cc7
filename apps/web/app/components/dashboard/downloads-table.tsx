// A table of download numbers: one row per day, file, version, client kind or distribution,
// with the downloads, the bytes served and each row's share of the downloads (a bar under it).
import type { StatsRow } from "@packyard/contract/stats.ts";
import type { ReactNode } from "react";
import { formatCompactCount, formatFileSize } from "../../lib/format.ts";

export function DownloadsTable({
  caption,
  keyLabel,
  rows,
  renderKey = (row) => row.key,
  empty = "No downloads in this period.",
  testId,
}: {
  caption: string;
  keyLabel: string;
  rows: StatsRow[];
  renderKey?: (row: StatsRow) => ReactNode;
  empty?: string;
  testId?: string;
}) {
  const total = rows.reduce((n, r) => n + r.downloads, 0);
  if (rows.length === 0) return <p className="text-sm text-muted-foreground">{empty}</p>;
  return (
    <div className="overflow-x-auto rounded-lg border border-border">
      <table className="w-full table-fixed text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="px-3 py-2.5 sm:px-4">
              {keyLabel}
            </th>
            <th scope="col" className="w-28 px-3 py-2.5 text-right sm:px-4">
              Downloads
            </th>
            <th scope="col" className="hidden w-24 px-3 py-2.5 text-right sm:table-cell sm:px-4">
              Bytes
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {rows.map((row) => {
            const share = total > 0 ? row.downloads / total : 0;
            return (
              <tr key={`${row.key}\0${row.version ?? ""}`}>
                <th scope="row" className="px-3 py-2 text-left font-normal sm:px-4">
                  <div className="truncate">{renderKey(row)}</div>
                  <div className="mt-1 h-1 w-full rounded-full bg-muted" aria-hidden="true">
                    <div
                      className="h-1 rounded-full bg-primary"
                      style={{ width: `${Math.round(share * 100)}%` }}
                    />
                  </div>
                </th>
                <td className="px-3 py-2 text-right tabular-nums sm:px-4" title={String(row.downloads)}>
                  {formatCompactCount(row.downloads)}
                </td>
                <td className="hidden px-3 py-2 text-right tabular-nums text-muted-foreground sm:table-cell sm:px-4">
                  {formatFileSize(row.bytes)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
