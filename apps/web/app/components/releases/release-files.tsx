// The files of a release: name, kind, size, downloads, SHA-256 and a stable download URL, each
// copyable; then the release's SHA256SUMS, its signature and the commands that verify a download.
import type { ReleaseFile } from "@packyard/contract";
import { Download, FileSignature, FileText, Package } from "lucide-react";
import { formatCount, formatFileSize } from "../../lib/format.ts";
import { Snippet } from "../repository-setup.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";

/** The commands that check downloads against the signed SHA256SUMS (shown and copied as one). */
export function verifyCommands(sumsUrl: string, keyUrl: string): string {
  return [
    `curl -fsSL ${keyUrl} | gpg --import`,
    `curl -fsSLO ${sumsUrl} -O ${sumsUrl}.asc`,
    "gpg --verify SHA256SUMS.asc SHA256SUMS",
    "sha256sum -c --ignore-missing SHA256SUMS",
  ].join("\n");
}

export function ReleaseFiles({
  files,
  sumsUrl,
  keyUrl,
}: {
  files: ReleaseFile[];
  sumsUrl: string;
  /** The project's public signing key(s), gpg.key. */
  keyUrl: string;
}) {
  return (
    <section aria-labelledby="release-files-heading" className="grid gap-3">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h3 id="release-files-heading" className="text-lg font-semibold tracking-tight">
          Files <span className="font-normal text-muted-foreground">({files.length})</span>
        </h3>
        {files.length > 0 ? (
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
            <a
              href={sumsUrl}
              className="inline-flex items-center gap-1.5 text-sm font-medium text-primary hover:underline"
            >
              <FileText className="size-4" aria-hidden="true" />
              SHA256SUMS
            </a>
            <a
              href={`${sumsUrl}.asc`}
              className="inline-flex items-center gap-1.5 text-sm font-medium text-primary hover:underline"
            >
              <FileSignature className="size-4" aria-hidden="true" />
              SHA256SUMS.asc
            </a>
          </div>
        ) : null}
      </div>
      {files.length === 0 ? (
        <Card className="px-6 py-8 text-center text-sm text-muted-foreground">
          This release has no files yet.
        </Card>
      ) : (
        <Card className="overflow-hidden">
          <ul className="divide-y divide-border">
            {files.map((file) => (
              <FileRow key={file.filename} file={file} />
            ))}
          </ul>
        </Card>
      )}
      {files.length > 0 ? (
        <div className="grid min-w-0 gap-2" data-testid="verify-downloads">
          <p className="text-sm text-muted-foreground">
            Verify downloads: import the project&apos;s signing key, check the signature of SHA256SUMS, then
            the files you downloaded (in the same directory).
          </p>
          <Snippet value={verifyCommands(sumsUrl, keyUrl)} label="Copy the verify commands" />
        </div>
      ) : null}
    </section>
  );
}

function FileRow({ file }: { file: ReleaseFile }) {
  return (
    <li
      className="grid gap-3 p-4 sm:grid-cols-[1fr_auto] sm:items-center sm:gap-6"
      data-testid="release-file"
    >
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          <Package className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <a href={file.url} className="break-all font-medium hover:text-primary hover:underline">
            {file.filename}
          </a>
          <Badge variant="secondary">{file.kind}</Badge>
        </div>
        <p className="mt-1 text-sm text-muted-foreground">
          <span data-testid="file-size">{formatFileSize(file.size)}</span>
          <span aria-hidden="true"> · </span>
          <span>{formatCount(file.downloads, "download")}</span>
        </p>
        <div className="mt-1 flex min-w-0 items-center gap-1">
          <span className="shrink-0 text-xs font-medium text-muted-foreground">SHA-256</span>
          <code className="min-w-0 truncate font-mono text-xs" title={file.sha256} data-testid="file-sha256">
            {file.sha256}
          </code>
          <CopyButton value={file.sha256} label={`Copy SHA-256 of ${file.filename}`} />
        </div>
      </div>
      <div className="flex items-center gap-2">
        <Button asChild size="sm">
          <a href={file.url} aria-label={`Download ${file.filename}`}>
            <Download aria-hidden="true" />
            Download
          </a>
        </Button>
        <CopyButton value={file.url} aria-label={`Copy URL of ${file.filename}`} variant="outline" size="sm">
          Copy URL
        </CopyButton>
      </div>
    </li>
  );
}
