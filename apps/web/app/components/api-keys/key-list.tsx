// The user's API keys: name, the key's first characters, scope, last use and expiry; each one
// deletable after a confirmation, and the expired ones all at once.
import { KeyRound, Trash2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { formatExpiryLabel } from "../../lib/format.ts";
import { cn } from "../../lib/utils.ts";
import { EmptyState } from "../empty-state.tsx";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
} from "../ui/alert-dialog.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card } from "../ui/card.tsx";

export interface KeyItem {
  id: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  scope: { projects: "*" | string[]; access: "read" | "publish" };
  lastRequest: string | null;
  expiresAt: string | null;
  createdAt: string;
  expired: boolean;
}

/** What the /api-keys action answers the list's buttons: a toast's worth. */
export interface KeyListAnswer {
  intent: "delete" | "delete-expired" | null;
  ok: boolean;
  /** How many expired keys were deleted. */
  deleted?: number;
  error?: string;
}

/** "Expires in 30 days", "Expired" … or "Never expires". */
export function expiryText(expiresAt: string | null, now = new Date()): string {
  return expiresAt ? formatExpiryLabel(new Date(expiresAt), now) : "Never expires";
}

function dateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function KeyList({
  keys,
  projects,
  title = "Your keys",
}: {
  keys: KeyItem[];
  projects: { id: string; name: string }[];
  /** The list's heading: "Your keys" on /api-keys, the organization's keys on its settings. */
  title?: string;
}) {
  const cleanup = useFetcher<KeyListAnswer>({ key: "delete-expired-keys" });
  // One fetcher for the rows' deletes, held by the list: a row is gone once the list reloads,
  // and a toast raised from the row's own effect could be lost with it.
  const remove = useFetcher<KeyListAnswer>({ key: "delete-api-key" });
  const removing = useRef("");
  const deletingId = remove.state !== "idle" ? String(remove.formData?.get("keyId") ?? "") : "";
  const expiredCount = keys.filter((k) => k.expired).length;
  const names = new Map(projects.map((p) => [p.id, p.name]));

  // The action's answer arrives before the list is reloaded: toast on the data itself.
  useEffect(() => {
    if (!cleanup.data) return;
    if (cleanup.data.ok) {
      const n = cleanup.data.deleted ?? 0;
      toast.success(n === 0 ? "No expired keys to delete" : `Deleted ${n} expired key${n === 1 ? "" : "s"}`);
    } else toast.error(cleanup.data.error ?? "Could not delete the expired keys");
  }, [cleanup.data]);

  useEffect(() => {
    if (!remove.data) return;
    if (remove.data.ok) toast.success(`Deleted “${removing.current}”`);
    else toast.error(remove.data.error ?? "Could not delete the key");
  }, [remove.data]);

  const onDelete = (item: KeyItem, label: string) => {
    removing.current = label;
    void remove.submit({ intent: "delete", keyId: item.id }, { method: "post" });
  };

  return (
    <section aria-labelledby="keys-heading" className="grid gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="keys-heading" className="text-lg font-semibold tracking-tight">
          {title} <span className="font-normal text-muted-foreground">({keys.length})</span>
        </h2>
        {expiredCount > 0 ? (
          <cleanup.Form method="post">
            <input type="hidden" name="intent" value="delete-expired" />
            <Button type="submit" variant="outline" size="sm" disabled={cleanup.state !== "idle"}>
              <Trash2 aria-hidden="true" />
              Delete expired keys ({expiredCount})
            </Button>
          </cleanup.Form>
        ) : null}
      </div>
      {keys.length === 0 ? (
        <EmptyState icon={KeyRound} title="No API keys">
          Keys you create are listed here with their prefix, scope, last use and expiry. A key's secret is
          shown once, when it is created.
        </EmptyState>
      ) : (
        <Card className="overflow-hidden">
          <ul className="divide-y divide-border" aria-label="API keys">
            {keys.map((key) => (
              <KeyRow
                key={key.id}
                item={key}
                projectNames={names}
                deleting={deletingId === key.id}
                onDelete={onDelete}
              />
            ))}
          </ul>
        </Card>
      )}
    </section>
  );
}

function KeyRow({
  item,
  projectNames,
  deleting,
  onDelete,
}: {
  item: KeyItem;
  projectNames: Map<string, string>;
  deleting: boolean;
  onDelete: (item: KeyItem, label: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const label = item.name || "Unnamed key";

  const scope =
    item.scope.projects === "*"
      ? "All projects"
      : `Projects: ${item.scope.projects.map((id) => projectNames.get(id) ?? "a deleted project").join(", ") || "none"}`;

  return (
    <li
      className={cn(
        "grid gap-3 p-4 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-center sm:gap-6 sm:px-6",
        deleting && "opacity-50",
      )}
      data-testid="api-key"
      aria-label={label}
    >
      <div className="grid min-w-0 gap-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <span className="truncate font-medium">{label}</span>
          {item.start ? (
            <code
              className="rounded bg-muted px-1.5 py-0.5 font-mono text-xs"
              title="The key's first characters"
            >
              {item.start}…
            </code>
          ) : null}
          <Badge variant={item.scope.access === "publish" ? "default" : "secondary"}>
            {item.scope.access === "publish" ? "Publish" : "Read only"}
          </Badge>
        </div>
        <dl className="grid gap-x-6 gap-y-1 text-sm text-muted-foreground sm:grid-cols-3">
          <div className="min-w-0">
            <dt className="sr-only">Projects</dt>
            <dd className="truncate" title={scope}>
              {scope}
            </dd>
          </div>
          <div>
            <dt className="sr-only">Last used</dt>
            <dd suppressHydrationWarning>
              {item.lastRequest ? `Last used ${dateTime(item.lastRequest)}` : "Never used"}
            </dd>
          </div>
          <div>
            <dt className="sr-only">Expiry</dt>
            <dd
              suppressHydrationWarning
              className={cn(item.expired && "font-medium text-destructive")}
              title={item.expiresAt ? dateTime(item.expiresAt) : undefined}
              data-testid="key-expiry"
            >
              {expiryText(item.expiresAt)}
            </dd>
          </div>
        </dl>
      </div>
      <AlertDialog open={open} onOpenChange={setOpen}>
        <Button
          variant="ghost"
          size="sm"
          className="justify-self-start text-destructive hover:bg-destructive/10 sm:justify-self-end"
          onClick={() => setOpen(true)}
          disabled={deleting}
          aria-label={`Delete ${label}`}
        >
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
        <AlertDialogContent>
          <div className="grid gap-2">
            <AlertDialogTitle>Delete this API key?</AlertDialogTitle>
            <AlertDialogDescription>
              “{label}” stops working at once. Anything still using it — a CI job, the CLI — will get 401
              Unauthorized. This cannot be undone.
            </AlertDialogDescription>
          </div>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogCancel asChild>
              <Button variant="outline">Cancel</Button>
            </AlertDialogCancel>
            <Button
              variant="destructive"
              onClick={() => {
                setOpen(false);
                onDelete(item, label);
              }}
            >
              Delete key
            </Button>
          </div>
        </AlertDialogContent>
      </AlertDialog>
    </li>
  );
}
