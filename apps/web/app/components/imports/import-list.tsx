// A project's imports with their progress, per-release errors (with their codes) and summary.
// The page polls while one is queued or running.
import { type ImportInfo, importEnded } from "@packyard/contract";
import { formatCount, formatFileSize } from "../../lib/format.ts";
import { Badge } from "../ui/badge.tsx";
import { Progress } from "../ui/progress.tsx";

const statusBadge: Record<
  ImportInfo["status"],
  { label: string; variant: "secondary" | "default" | "success" | "warning" | "destructive" }
> = {
  queued: { label: "Queued", variant: "secondary" },
  running: { label: "Running", variant: "default" },
  succeeded: { label: "Succeeded", variant: "success" },
  partial: { label: "Partly imported", variant: "warning" },
  failed: { label: "Failed", variant: "destructive" },
};

function describeSource(item: ImportInfo): { kind: string; what: string } {
  const source = item.source;
  switch (source.kind) {
    case "github-releases":
      return { kind: "GitHub Releases", what: source.repository };
    case "apt-repository":
      return {
        kind: "APT repository",
        what: `${source.url} ${source.distribution}${source.components ? ` ${source.components.join(" ")}` : ""}`,
      };
    case "yum-repository":
      return { kind: "YUM repository", what: source.url };
  }
}

function when(iso: string | null): string {
  if (!iso) return "";
  return `${new Date(iso).toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

export function ImportList({ imports }: { imports: ImportInfo[] }) {
  return (
    <ul className="grid gap-4" aria-label="Imports">
      {imports.map((item) => (
        <ImportItem key={item.id} item={item} />
      ))}
    </ul>
  );
}

function ImportItem({ item }: { item: ImportInfo }) {
  const { kind, what } = describeSource(item);
  const status = statusBadge[item.status];
  const p = item.progress;
  const handled = p.releasesDone + p.releasesSkipped + p.releasesFailed;
  const ended = importEnded(item.status);
  // The summary without its failures, which are listed below with their codes.
  const summary = item.summary?.startsWith("Import failed")
    ? null
    : (item.summary?.replace(/; \d+ failed: [\s\S]*$/, `; ${p.releasesFailed} failed:`) ?? null);
  const percent = p.releasesTotal ? (handled / p.releasesTotal) * 100 : ended ? 100 : 0;
  return (
    <li className="grid gap-3 rounded-lg border border-border p-4" data-testid="import" aria-busy={!ended}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-xs text-muted-foreground">{kind}</p>
          <p className="break-all font-mono text-sm font-medium">{what}</p>
        </div>
        <Badge variant={status.variant}>{status.label}</Badge>
      </div>
      {!ended || p.releasesTotal ? (
        <div className="grid gap-1.5">
          <Progress value={percent} label={`Import of ${what}`} />
          <p className="text-xs text-muted-foreground" aria-live="polite">
            {p.releasesTotal === null
              ? "Reading the source…"
              : `${handled} of ${p.releasesTotal} releases · ${p.releasesDone} imported · ${p.releasesSkipped} already present · ${p.releasesFailed} failed · ${formatCount(p.filesDone, "file")}, ${formatFileSize(p.bytesDone)}`}
            {p.current ? ` · now ${p.current}` : ""}
          </p>
        </div>
      ) : null}
      {summary ? <p className="text-sm">{summary}</p> : null}
      {item.errors.length > 0 ? (
        <ul className="grid gap-1.5 text-sm" aria-label="Errors">
          {item.errors.map((e, index) => (
            <li
              key={`${e.version}-${index}`}
              className="rounded-md border border-destructive/30 bg-destructive/5 px-3 py-2"
            >
              <span className="font-medium">{e.version ?? "Import"}</span>{" "}
              <code className="rounded bg-muted px-1 py-0.5 text-xs">{e.code}</code>{" "}
              <span className="text-muted-foreground [overflow-wrap:anywhere]">{e.message}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="text-xs text-muted-foreground">
        Started {when(item.startedAt ?? item.createdAt)}
        {item.startedBy ? ` by ${item.startedBy}` : ""}
        {item.finishedAt ? ` · ended ${when(item.finishedAt)}` : ""}
      </p>
    </li>
  );
}
