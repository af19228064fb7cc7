// A release's files: name, kind, size, sha256 (shortened, with a copy button), downloads, a
// download link and a delete button that asks first.
import type { ReleaseFile } from "@packyard/contract";
import { Download, FileArchive, Trash2 } from "lucide-react";
import { useState } from "react";
import { useFetcher } from "react-router";
import { formatCompactCount, formatCount, formatFileSize } from "../../lib/format.ts";
import type { FormReply } from "../../lib/forms.ts";
import { EmptyState } from "../empty-state.tsx";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "../ui/alert-dialog.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { SubmitButton } from "./project-dialogs.tsx";
import { useFetcherOutcome, useFetcherToasts } from "./use-fetcher-outcome.ts";

const kindLabels: Record<ReleaseFile["kind"], string> = {
  deb: "deb",
  rpm: "rpm",
  archive: "archive",
  binary: "binary",
  signature: "signature",
  checksum: "checksum",
  other: "file",
};

export function shortSha(sha256: string) {
  return sha256.slice(0, 12);
}

export const DELETE_FILE_FETCHER = "delete-file";

/** `readOnly`: without the delete buttons (a viewer of an organization's project). */
export function FilesTable({ files, readOnly = false }: { files: ReleaseFile[]; readOnly?: boolean }) {
  useFetcherToasts(DELETE_FILE_FETCHER, { failures: true });
  if (files.length === 0) {
    return (
      <EmptyState icon={FileArchive} title="No files yet">
        Upload this release's packages, archives and binaries above. Each file gets a stable download URL and
        its checksums.
      </EmptyState>
    );
  }
  return (
    <div className="overflow-hidden rounded-lg border border-border">
      <table className="w-full table-fixed text-sm" data-testid="files-table">
        <caption className="sr-only">Files of this release</caption>
        <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
          <tr>
            <th scope="col" className="px-4 py-3">
              File
            </th>
            <th scope="col" className="hidden w-28 px-4 py-3 md:table-cell">
              Kind
            </th>
            <th scope="col" className="hidden w-28 px-4 py-3 text-right sm:table-cell">
              Size
            </th>
            <th scope="col" className="hidden w-48 px-4 py-3 lg:table-cell">
              SHA-256
            </th>
            <th scope="col" className="hidden w-28 px-4 py-3 text-right sm:table-cell">
              Downloads
            </th>
            <th scope="col" className="w-28 px-4 py-3 text-right">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {files.map((file) => (
            <tr key={file.filename} data-testid="file-row" data-filename={file.filename}>
              <td className="px-4 py-3">
                <p className="truncate font-medium" title={file.filename}>
                  {file.filename}
                </p>
                {/* Small screens: the hidden columns' facts under the name. */}
                <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground sm:hidden">
                  <Badge variant="secondary">{kindLabels[file.kind]}</Badge>
                  <span>{formatFileSize(file.size)}</span>
                  <span>{formatCount(file.downloads, "download")}</span>
                </div>
                <div className="mt-1 flex items-center gap-1 text-xs text-muted-foreground lg:hidden">
                  <span>sha256</span>
                  <code className="font-mono" title={file.sha256}>
                    {shortSha(file.sha256)}…
                  </code>
                  <CopyButton
                    value={file.sha256}
                    label={`Copy the SHA-256 of ${file.filename}`}
                    className="size-6"
                  />
                </div>
              </td>
              <td className="hidden px-4 py-3 md:table-cell">
                <Badge variant="secondary">{kindLabels[file.kind]}</Badge>
              </td>
              <td className="hidden px-4 py-3 text-right whitespace-nowrap tabular-nums sm:table-cell">
                {formatFileSize(file.size)}
              </td>
              <td className="hidden px-4 py-3 lg:table-cell">
                <div className="flex items-center gap-1">
                  <code className="font-mono text-xs text-muted-foreground" title={file.sha256}>
                    {shortSha(file.sha256)}…
                  </code>
                  <CopyButton value={file.sha256} label={`Copy the SHA-256 of ${file.filename}`} />
                </div>
              </td>
              <td className="hidden px-4 py-3 text-right tabular-nums sm:table-cell">
                {formatCompactCount(file.downloads)}
              </td>
              <td className="px-2 py-3 sm:px-4">
                <div className="flex items-center justify-end gap-0.5">
                  <CopyButton value={file.url} label={`Copy the download URL of ${file.filename}`} />
                  <Button asChild variant="ghost" size="icon" className="size-7">
                    <a
                      href={file.url}
                      download={file.filename}
                      aria-label={`Download ${file.filename}`}
                      title="Download"
                    >
                      <Download aria-hidden="true" />
                    </a>
                  </Button>
                  {readOnly ? null : <DeleteFileDialog filename={file.filename} />}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function DeleteFileDialog({ filename }: { filename: string }) {
  const [open, setOpen] = useState(false);
  return (
    <AlertDialog open={open} onOpenChange={setOpen}>
      <AlertDialogTrigger asChild>
        <Button
          variant="ghost"
          size="icon"
          className="size-7 text-muted-foreground hover:text-destructive"
          aria-label={`Delete ${filename}`}
          title="Delete"
        >
          <Trash2 aria-hidden="true" />
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <DeleteFileForm filename={filename} onDone={() => setOpen(false)} />
      </AlertDialogContent>
    </AlertDialog>
  );
}

function DeleteFileForm({ filename, onDone }: { filename: string; onDone: () => void }) {
  const fetcher = useFetcher<FormReply>({ key: DELETE_FILE_FETCHER });
  // FilesTable toasts the outcome: this form is gone once the file's row is.
  useFetcherOutcome(fetcher, { onSuccess: onDone, onFailure: onDone });
  return (
    <fetcher.Form method="post" className="grid grid-cols-1 gap-5">
      <div className="grid grid-cols-1 gap-1.5">
        <AlertDialogTitle>Delete {filename}?</AlertDialogTitle>
        <AlertDialogDescription>
          Its download URL stops working and it leaves the repositories. Files can't be changed once uploaded,
          so this is also how you replace one: delete it, then upload the new file.
        </AlertDialogDescription>
      </div>
      <input type="hidden" name="intent" value="delete-file" />
      <input type="hidden" name="filename" value={filename} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <AlertDialogCancel asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </AlertDialogCancel>
        <SubmitButton busy={fetcher.state !== "idle"} variant="destructive">
          Delete file
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
