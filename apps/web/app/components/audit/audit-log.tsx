// The audit log as the dashboard shows it (the project's Audit log page and the account's):
// filters in a GET form, so a filtered view is a URL to share or bookmark, then the entries
// newest first — when, what, on what, who (the user, or which API key), from where — and a link
// to older entries. On small screens each entry's facts stack under its action.
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditEntry,
  auditActionLabels,
} from "@packyard/contract";
import { Bot, KeyRound, ScrollText, User } from "lucide-react";
import { Form, Link, useNavigation } from "react-router";
import type { AuditView } from "../../lib/audit.server.ts";
import { formatFileSize } from "../../lib/format.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { EmptyState } from "../empty-state.tsx";
import { Alert } from "../ui/alert.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Input } from "../ui/input.tsx";
import { Label } from "../ui/label.tsx";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring";

const groupLabels: Record<string, string> = {
  file: "Files",
  release: "Releases",
  project: "Project",
  signing_key: "Signing keys",
  api_key: "API keys",
  webhook: "Webhooks",
  retention: "Retention",
  session: "Sign-ins",
  account: "Account",
  import: "Imports",
  organization: "Organization",
  entitlement: "Entitlement tokens",
  trusted_publishing: "Trusted publishing",
};

/** The actions a log can hold: a project's has no sign-ins, API keys or changes of the account. */
function actionsFor(kind: "project" | "account"): AuditAction[] {
  return AUDIT_ACTIONS.filter((a) => kind === "account" || !/^(session|api_key|account)\./.test(a));
}

function AuditFilters({
  view,
  kind,
  projects,
}: {
  view: AuditView;
  kind: "project" | "account";
  projects?: string[];
}) {
  const { filters } = view;
  const navigation = useNavigation();
  const busy = navigation.state === "loading" && navigation.location?.search !== undefined;
  const actions = actionsFor(kind);
  const groups = AUDIT_ACTION_GROUPS.filter((g) => actions.some((a) => a.startsWith(`${g}.`)));
  return (
    <Form
      method="get"
      className="mb-6 grid grid-cols-2 gap-4 lg:grid-cols-5"
      aria-label="Filter the audit log"
    >
      <div className="col-span-2 grid content-start gap-2 sm:col-span-1">
        <Label htmlFor="audit-action">Action</Label>
        <select id="audit-action" name="action" defaultValue={filters.action} className={selectClass}>
          <option value="">All actions</option>
          {groups.map((group) => (
            <optgroup key={group} label={groupLabels[group] ?? group}>
              <option value={group}>All {(groupLabels[group] ?? group).toLowerCase()}</option>
              {actions
                .filter((a) => a.startsWith(`${group}.`))
                .map((a) => (
                  <option key={a} value={a}>
                    {auditActionLabels[a]}
                  </option>
                ))}
            </optgroup>
          ))}
        </select>
      </div>
      <div className="col-span-2 grid content-start gap-2 sm:col-span-1">
        <Label htmlFor="audit-actor">Who</Label>
        <select id="audit-actor" name="actor" defaultValue={filters.actor} className={selectClass}>
          <option value="">Anyone</option>
          <option value="user">Signed in (dashboard, session)</option>
          <option value="key">Any API key</option>
          {view.keys.map((key) => (
            <option key={key.id} value={`key:${key.id}`}>
              Key: {key.name ?? key.id}
            </option>
          ))}
          <option value="system">Packyard (jobs)</option>
        </select>
      </div>
      {kind === "account" && projects ? (
        <div className="col-span-2 grid content-start gap-2 lg:col-span-1">
          <Label htmlFor="audit-project">Project</Label>
          <select id="audit-project" name="project" defaultValue={filters.project} className={selectClass}>
            <option value="">All</option>
            {projects.map((slug) => (
              <option key={slug} value={slug}>
                {slug}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div className="grid content-start gap-2">
        <Label htmlFor="audit-from">From</Label>
        <Input id="audit-from" name="from" type="date" defaultValue={filters.from} />
      </div>
      <div className="grid content-start gap-2">
        <Label htmlFor="audit-to">To</Label>
        <Input id="audit-to" name="to" type="date" defaultValue={filters.to} />
      </div>
      <div className="col-span-2 flex items-end gap-2 lg:col-span-5">
        <Button type="submit" disabled={busy}>
          Apply filters
        </Button>
        <Button asChild variant="ghost">
          <Link to=".">Clear</Link>
        </Button>
      </div>
    </Form>
  );
}

function ActorCell({ actor }: { actor: AuditEntry["actor"] }) {
  if (actor.kind === "system")
    return (
      <span className="flex min-w-0 items-center gap-1.5">
        <Bot className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="truncate">Packyard</span>
      </span>
    );
  if (actor.kind === "key")
    return (
      <span
        className="flex min-w-0 items-center gap-1.5"
        title={`API key ${actor.key?.name ?? ""}${actor.key?.start ? ` (${actor.key.start}…)` : ""} of ${actor.username ?? "you"}`}
      >
        <KeyRound className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="truncate">
          <span className="sr-only">API key </span>
          {actor.key?.name ?? "a deleted key"}
        </span>
      </span>
    );
  return (
    <span className="flex min-w-0 items-center gap-1.5" title="Signed in">
      <User className="size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
      <span className="truncate">{actor.username ?? "you"}</span>
    </span>
  );
}

const text = (value: unknown) =>
  typeof value === "string" || typeof value === "number" ? String(value) : null;

/** The facts an entry's details add, in a line. */
export function describeDetails(entry: AuditEntry): string | null {
  const d = entry.details;
  const parts: string[] = [];
  const version = text(d.version);
  if (version && entry.target !== version) parts.push(`version ${version}`);
  if (typeof d.size === "number") parts.push(formatFileSize(d.size));
  if (entry.action === "project.visibility_changed") parts.push(`${text(d.from)} → ${text(d.to)}`);
  else if (Array.isArray(d.changed)) parts.push(`changed ${d.changed.join(", ")}`);
  if (text(d.reason)) parts.push(`reason: ${text(d.reason)}`);
  if (text(d.algorithm)) parts.push(String(d.algorithm));
  if (entry.action.startsWith("api_key.")) {
    if (text(d.access)) parts.push(`${d.access} access`);
    parts.push(d.projects === "*" ? "all projects" : "chosen projects");
  }
  if (text(d.method)) parts.push(String(d.method).replace(/-/g, " "));
  return parts.length ? parts.join(" · ") : null;
}

function Target({ entry, showProject }: { entry: AuditEntry; showProject: boolean }) {
  const project =
    showProject && entry.project?.slug && entry.target !== entry.project.slug ? entry.project.slug : null;
  if (!entry.target && !project) return <span className="text-muted-foreground">—</span>;
  return (
    <span className="min-w-0 break-all font-mono text-xs">
      {project ? <span className="text-muted-foreground">{project} · </span> : null}
      {entry.target}
    </span>
  );
}

export function AuditLog({
  view,
  kind,
  projects,
}: {
  view: AuditView;
  kind: "project" | "account";
  /** The account's projects, for its filter. */
  projects?: string[];
}) {
  const { page, error, filters } = view;
  const filtered = Object.values(filters).some(Boolean);
  const older = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
  if (page.nextCursor) older.set("cursor", page.nextCursor);
  return (
    <>
      <AuditFilters view={view} kind={kind} projects={projects} />
      {error ? (
        <Alert variant="error" className="mb-6">
          {error}
        </Alert>
      ) : null}
      {page.entries.length === 0 ? (
        <EmptyState
          icon={ScrollText}
          title={filtered ? "No entries match these filters" : "Nothing recorded yet"}
        >
          {filtered
            ? "Try a wider date range or another action."
            : "Uploads, deletions, yanks, releases, key rotations and settings changes appear here, with who made them and from where. Entries are kept for a year."}
        </EmptyState>
      ) : (
        <div className="overflow-hidden rounded-lg border border-border">
          <table className="w-full table-fixed text-sm" data-testid="audit-table">
            <caption className="sr-only">
              {kind === "project" ? "The project's audit log" : "Your account's audit log"}, newest first
            </caption>
            <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
              <tr>
                <th scope="col" className="hidden w-44 px-4 py-3 md:table-cell">
                  When
                </th>
                <th scope="col" className="px-4 py-3">
                  Action
                </th>
                <th scope="col" className="hidden px-4 py-3 lg:table-cell">
                  On
                </th>
                <th scope="col" className="hidden w-48 px-4 py-3 sm:table-cell">
                  Who
                </th>
                <th scope="col" className="hidden w-36 px-4 py-3 lg:table-cell">
                  Address
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {page.entries.map((entry) => {
                const details = describeDetails(entry);
                return (
                  <tr key={entry.id} data-testid="audit-row" data-action={entry.action} className="align-top">
                    <td className="hidden px-4 py-3 whitespace-nowrap text-muted-foreground md:table-cell">
                      <FormattedDate iso={entry.at} withTime />
                    </td>
                    <td className="px-4 py-3">
                      <Badge variant="secondary">{auditActionLabels[entry.action] ?? entry.action}</Badge>
                      {details ? (
                        <p className="mt-1 break-words text-xs text-muted-foreground">{details}</p>
                      ) : null}
                      {/* Small screens: the hidden columns' facts under the action. */}
                      <div className="mt-2 grid gap-1 text-xs lg:hidden">
                        <Target entry={entry} showProject={kind === "account"} />
                        <div className="text-muted-foreground sm:hidden">
                          <ActorCell actor={entry.actor} />
                        </div>
                        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground">
                          <span className="md:hidden">
                            <FormattedDate iso={entry.at} withTime />
                          </span>
                          {entry.address ? <span className="font-mono">{entry.address}</span> : null}
                        </div>
                      </div>
                    </td>
                    <td className="hidden px-4 py-3 lg:table-cell">
                      <Target entry={entry} showProject={kind === "account"} />
                    </td>
                    <td className="hidden px-4 py-3 sm:table-cell">
                      <ActorCell actor={entry.actor} />
                    </td>
                    <td className="hidden px-4 py-3 font-mono text-xs text-muted-foreground lg:table-cell">
                      {entry.address ?? "—"}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="mt-4 flex flex-wrap items-center justify-between gap-2 text-sm text-muted-foreground">
        <p>Entries are kept for one year.</p>
        {page.nextCursor ? (
          <Button asChild variant="outline" size="sm">
            <Link to={`?${older}`}>Older entries</Link>
          </Button>
        ) : null}
      </div>
    </>
  );
}
