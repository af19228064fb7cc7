// Benchmark figures (docs/benchmarks.md) as a table with a bar per row, on a linear scale so the
// bars compare honestly.
import { cn } from "../../lib/utils.ts";

export interface SpeedRow {
  system: string;
  /** Median, milliseconds. */
  ms: number;
  /** Min–max of the samples, as the benchmark reports it. */
  range: string;
  ours?: boolean;
}

const format = (ms: number) => (ms < 100 ? ms.toFixed(1) : Math.round(ms).toLocaleString("en-US"));

export function SpeedTable({
  caption,
  rows,
  samples,
}: {
  caption: string;
  rows: SpeedRow[];
  samples: number;
}) {
  const max = Math.max(...rows.map((row) => row.ms));
  return (
    <figure className="rounded-xl border border-border bg-card p-5 shadow-sm">
      <table className="w-full text-sm">
        <caption className="mb-4 text-left font-semibold">{caption}</caption>
        <thead className="sr-only">
          <tr>
            <th scope="col">System</th>
            <th scope="col">Median, and min–max of {samples} samples</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.system} className="align-top">
              <th scope="row" className="w-full pb-4 pr-3 text-left font-normal">
                <span className={cn("block", row.ours && "font-semibold")}>{row.system}</span>
                <span className="mt-1.5 block h-2.5 rounded-full bg-muted" aria-hidden="true">
                  <span
                    className={cn(
                      "block h-full rounded-full",
                      row.ours ? "bg-primary" : "bg-muted-foreground/50",
                    )}
                    style={{ width: `${Math.max(2, (row.ms / max) * 100)}%` }}
                  />
                </span>
              </th>
              <td className="whitespace-nowrap pb-4 text-right tabular-nums">
                <span className={cn(row.ours && "font-semibold")}>{`${format(row.ms)} ms`}</span>
                <span className="block text-xs text-muted-foreground">{row.range}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
