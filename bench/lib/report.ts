// Renders a benchmark run's results (APT or YUM) as the Markdown tables that go into
// docs/benchmarks.md.
import type { Summary } from "./proc.ts";

interface ReportRow {
  benchmark: "a" | "b";
  system: string;
  what: string;
  time: Summary;
  peakRssMiB: Summary;
  extra: Record<string, Summary>;
}

export interface ReportInput {
  date: string;
  commit: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; os: string; kernel: string };
  versions: Record<string, string>;
  runs: number;
  sizes: Record<number, { rows: ReportRow[]; setupSeconds: Record<string, number> }>;
  profile?: unknown;
}

const ms = (value: number) =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
const mib = (value: number) => value.toFixed(0);
const range = (s: Summary, f: (n: number) => string) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`;

function table(input: ReportInput, benchmark: "a" | "b"): string {
  const sizes = Object.keys(input.sizes).map(Number);
  const lines = [
    `| system | step | ${sizes.map((n) => `N = ${n.toLocaleString("en-US")}: ms, median (min–max)`).join(" | ")} | ${sizes.map((n) => `peak RSS MiB, N = ${n.toLocaleString("en-US")}`).join(" | ")} |`,
    `|---|---|${sizes.map(() => "---:").join("|")}|${sizes.map(() => "---:").join("|")}|`,
  ];
  const first = input.sizes[sizes[0]!]!.rows.filter((r) => r.benchmark === benchmark);
  for (const template of first) {
    const cells = sizes.map((n) =>
      input.sizes[n]!.rows.find((r) => r.system === template.system && r.what === template.what),
    );
    lines.push(
      `| ${template.system} | ${template.what} | ${cells.map((c) => (c ? range(c.time, ms) : "–")).join(" | ")} | ${cells.map((c) => (c ? range(c.peakRssMiB, mib) : "–")).join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

function details(input: ReportInput): string {
  const out: string[] = [];
  for (const [size, { rows, setupSeconds }] of Object.entries(input.sizes)) {
    out.push(`\nN = ${Number(size).toLocaleString("en-US")}, phases (median ms unless named):`);
    for (const row of rows) {
      const extras = Object.entries(row.extra)
        .map(([k, s]) => `${k} ${ms(s.median)}`)
        .join(", ");
      if (extras) out.push(`- ${row.system}, ${row.what}: ${extras}`);
    }
    out.push(
      `- set-up, not compared: ${Object.entries(setupSeconds)
        .map(([k, v]) => `${k} ${v.toFixed(2)} s`)
        .join("; ")}`,
    );
  }
  return out.join("\n");
}

/** "Node v24.21.0, createrepo_c 0.17.3, …": the versions of a run, named as `names` says. */
function versionList(versions: Record<string, string>, names: Record<string, string>): string {
  return Object.entries(versions)
    .map(([key, value]) => `${names[key] ?? key} ${value}`)
    .join(", ");
}

export function renderMarkdown(input: ReportInput, versionNames: Record<string, string> = {}): string {
  return `Run ${input.date} at commit ${input.commit}; ${input.machine.cpus} × ${input.machine.cpuModel}, ${input.machine.memoryGiB} GiB, Debian ${input.machine.os}, kernel ${input.machine.kernel}; ${versionList(input.versions, versionNames)}; ${input.runs} runs per cell.

(a) Full index build of an N-package repository

${table(input, "a")}

(b) Publishing one more package into the N-package repository

${table(input, "b")}
${details(input)}
`;
}

/** The ratios each size's run compared, as a Markdown table after the run's tables. */
export function renderRatios(
  sizes: Record<string, { ratios: readonly { what: string; value: number; target: string; met: boolean }[] }>,
): string {
  const rows = Object.entries(sizes).flatMap(([size, { ratios }]) =>
    ratios.map(
      (r) =>
        `| ${Number(size).toLocaleString("en-US")} | ${r.what} | ${r.value.toFixed(2)} | ${r.target} | ${r.met ? "yes" : "no"} |`,
    ),
  );
  return `
Ratios (medians of the interleaved samples above):

| N | ratio | value | target | met |
|---:|---|---:|---|---|
${rows.join("\n")}
`;
}
