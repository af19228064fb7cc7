// Uploading a release's files: drop several at once or choose them with the button; each file
// goes up in its own request with its own progress bar and its own outcome (the API's message
// when it fails). The page's data is revalidated after each file that arrives.
import { filenameProblem } from "@packyard/contract";
import { CircleAlert, CircleCheck, CloudUpload, File as FileIcon, Loader2, X } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import { formatFileSize } from "../../lib/format.ts";
import { cn } from "../../lib/utils.ts";
import { Button } from "../ui/button.tsx";
import { Progress } from "../ui/progress.tsx";
import { startUpload, type UploadHandle, uploadUrl } from "./upload.ts";

type Phase = "uploading" | "processing" | "done" | "failed" | "cancelled";

interface UploadItem {
  id: number;
  name: string;
  size: number;
  loaded: number;
  total: number;
  phase: Phase;
  message?: string;
}

const finished = (phase: Phase) => phase === "done" || phase === "failed" || phase === "cancelled";

export function FileUploader({
  projectSlug,
  version,
  maxBytes,
}: {
  projectSlug: string;
  version: string;
  maxBytes: number;
}) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const handles = useRef(new Map<number, UploadHandle>());
  const nextId = useRef(1);
  const dragDepth = useRef(0);
  const revalidator = useRevalidator();
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  const hintId = useId();
  const active = items.some((i) => !finished(i.phase));

  const update = useCallback((id: number, patch: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.id === id ? { ...item, ...patch } : item)));
  }, []);

  const start = useCallback(
    (files: File[]) => {
      const url = uploadUrl(projectSlug, version);
      const added: UploadItem[] = [];
      for (const file of files) {
        const id = nextId.current++;
        const base = { id, name: file.name, size: file.size, loaded: 0, total: file.size };
        const problem =
          filenameProblem(file.name) ??
          (file.size > maxBytes
            ? `The file is larger than the limit of ${formatFileSize(maxBytes)}`
            : undefined);
        if (problem) {
          added.push({ ...base, phase: "failed", message: problem });
          continue;
        }
        added.push({ ...base, phase: "uploading" });
        const handle = startUpload(
          url,
          file,
          (loaded, total) => update(id, { loaded, total }),
          () => update(id, { phase: "processing" }),
        );
        handles.current.set(id, handle);
        void handle.done.then((outcome) => {
          handles.current.delete(id);
          if (outcome.ok) {
            update(id, { phase: "done" });
            void revalidate.current();
          } else if (outcome.aborted) {
            update(id, { phase: "cancelled", message: "Cancelled" });
          } else {
            update(id, { phase: "failed", message: outcome.message });
          }
        });
      }
      setItems((list) => [...list, ...added]);
    },
    [projectSlug, version, maxBytes, update],
  );

  // Leaving the page would cancel uploads in flight: ask first.
  useEffect(() => {
    if (!active) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [active]);

  // A file dropped beside the drop zone would make the browser open it, leaving the page.
  useEffect(() => {
    const ignore = (event: DragEvent) => {
      if (event.dataTransfer && Array.from(event.dataTransfer.types).includes("Files"))
        event.preventDefault();
    };
    window.addEventListener("dragover", ignore);
    window.addEventListener("drop", ignore);
    return () => {
      window.removeEventListener("dragover", ignore);
      window.removeEventListener("drop", ignore);
    };
  }, []);

  useEffect(() => {
    const current = handles.current;
    return () => {
      for (const handle of current.values()) handle.abort();
    };
  }, []);

  const hasFiles = (event: React.DragEvent) => Array.from(event.dataTransfer.types).includes("Files");

  return (
    <div className="grid min-w-0 grid-cols-1 gap-4">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the drop target is a convenience; the button inside is the accessible way in */}
      <div
        data-testid="dropzone"
        data-dragging={dragging || undefined}
        onDragEnter={(event) => {
          if (!hasFiles(event)) return;
          event.preventDefault();
          dragDepth.current += 1;
          setDragging(true);
        }}
        onDragOver={(event) => {
          if (!hasFiles(event)) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = "copy";
        }}
        onDragLeave={() => {
          dragDepth.current = Math.max(0, dragDepth.current - 1);
          if (dragDepth.current === 0) setDragging(false);
        }}
        onDrop={(event) => {
          event.preventDefault();
          dragDepth.current = 0;
          setDragging(false);
          const files = Array.from(event.dataTransfer.files);
          if (files.length) start(files);
        }}
        className={cn(
          "flex flex-col items-center justify-center gap-3 rounded-xl border-2 border-dashed border-border px-6 py-8 text-center transition-colors",
          dragging && "border-primary bg-accent",
        )}
      >
        <div className="rounded-full bg-accent p-3 text-primary">
          <CloudUpload className="size-6" aria-hidden="true" />
        </div>
        <div>
          <p className="font-medium">{dragging ? "Drop to upload" : "Drag and drop files here"}</p>
          <p id={hintId} className="mt-1 text-sm text-muted-foreground">
            .deb, .rpm, archives, binaries, signatures — several at once, up to {formatFileSize(maxBytes)}{" "}
            each.
          </p>
        </div>
        <Button
          type="button"
          variant="outline"
          onClick={() => inputRef.current?.click()}
          aria-describedby={hintId}
        >
          Choose files
        </Button>
        <input
          ref={inputRef}
          type="file"
          multiple
          hidden
          tabIndex={-1}
          data-testid="file-input"
          aria-label="Files to upload"
          onChange={(event) => {
            const files = Array.from(event.currentTarget.files ?? []);
            event.currentTarget.value = "";
            if (files.length) start(files);
          }}
        />
      </div>

      {items.length ? (
        <section aria-label="Uploads" className="grid min-w-0 grid-cols-1 gap-2">
          <div className="flex items-center justify-between gap-2">
            <h3 className="text-sm font-medium">
              Uploads{" "}
              <span className="font-normal text-muted-foreground" aria-live="polite">
                ({items.filter((i) => i.phase === "done").length} of {items.length} done)
              </span>
            </h3>
            {items.some((i) => finished(i.phase)) ? (
              <Button
                type="button"
                variant="ghost"
                size="sm"
                onClick={() => setItems((list) => list.filter((i) => !finished(i.phase)))}
              >
                Clear finished
              </Button>
            ) : null}
          </div>
          <ul className="grid min-w-0 grid-cols-1 gap-2">
            {items.map((item) => (
              <UploadRow
                key={item.id}
                item={item}
                onCancel={() => handles.current.get(item.id)?.abort()}
                onDismiss={() => setItems((list) => list.filter((i) => i.id !== item.id))}
              />
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}

function UploadRow({
  item,
  onCancel,
  onDismiss,
}: {
  item: UploadItem;
  onCancel: () => void;
  onDismiss: () => void;
}) {
  const percent =
    item.phase === "done" || item.phase === "processing"
      ? 100
      : item.total > 0
        ? (item.loaded / item.total) * 100
        : 0;
  const status =
    item.phase === "uploading"
      ? `${Math.round(percent)}%`
      : item.phase === "processing"
        ? "Processing…"
        : item.phase === "done"
          ? "Uploaded"
          : (item.message ?? "Failed");
  return (
    <li
      className="grid min-w-0 grid-cols-1 gap-2 rounded-lg border border-border bg-card px-3 py-2.5"
      data-testid="upload-item"
      data-phase={item.phase}
    >
      <div className="flex items-center gap-3">
        <StatusIcon phase={item.phase} />
        <div className="min-w-0 flex-1">
          <div className="flex items-baseline justify-between gap-3">
            <p className="truncate text-sm font-medium" title={item.name}>
              {item.name}
            </p>
            <p className="shrink-0 text-xs text-muted-foreground tabular-nums">{formatFileSize(item.size)}</p>
          </div>
        </div>
        {finished(item.phase) ? (
          <Button
            type="button"
            variant="ghost"
            size="icon"
            className="size-7"
            aria-label={`Dismiss ${item.name}`}
            onClick={onDismiss}
          >
            <X aria-hidden="true" />
          </Button>
        ) : (
          <Button
            type="button"
            variant="ghost"
            size="icon"
            className="size-7"
            aria-label={`Cancel uploading ${item.name}`}
            disabled={item.phase === "processing"}
            onClick={onCancel}
          >
            <X aria-hidden="true" />
          </Button>
        )}
      </div>
      {item.phase === "failed" && item.loaded === 0 ? null : (
        <Progress
          value={percent}
          label={`${item.name} upload progress`}
          indicatorClassName={cn(
            item.phase === "done" && "bg-success",
            item.phase === "failed" && "bg-destructive",
            item.phase === "cancelled" && "bg-muted-foreground",
            item.phase === "processing" && "animate-pulse",
          )}
        />
      )}
      <p
        className={cn(
          "text-xs",
          item.phase === "failed"
            ? "text-destructive"
            : item.phase === "done"
              ? "text-success"
              : "text-muted-foreground",
        )}
        role={item.phase === "failed" ? "alert" : undefined}
        data-testid="upload-status"
      >
        {status}
      </p>
    </li>
  );
}

function StatusIcon({ phase }: { phase: Phase }) {
  const className = "size-4 shrink-0";
  if (phase === "done") return <CircleCheck className={cn(className, "text-success")} aria-hidden="true" />;
  if (phase === "failed")
    return <CircleAlert className={cn(className, "text-destructive")} aria-hidden="true" />;
  if (phase === "processing")
    return <Loader2 className={cn(className, "animate-spin text-muted-foreground")} aria-hidden="true" />;
  return <FileIcon className={cn(className, "text-muted-foreground")} aria-hidden="true" />;
}
