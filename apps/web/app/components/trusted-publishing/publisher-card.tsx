// One trusted publisher on /projects/{slug}/publishing: its CI and repository, the conditions a
// job's ID token must meet, when it was added and last used, the CI configuration to paste, and
// (for those who manage the project) Remove, confirmed in a dialog.
import {
  issuerOf,
  PUBLISH_TOKEN_TTL_SECONDS,
  providerLabels,
  type TrustedPublisherProvider,
  type TrustedPublisherSummary,
} from "@packyard/contract/trusted-publishing.ts";
import { ChevronRight, GitMerge, type LucideIcon, Trash2, Workflow } from "lucide-react";
import { Fragment } from "react";
import { useFetcher } from "react-router";
import type { FormReply } from "../../lib/forms.ts";
import type { PublishTarget } from "../../lib/publish-commands.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { SubmitButton } from "../dashboard/project-dialogs.tsx";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "../ui/alert-dialog.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardHeader } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { type CiSnippet, ciSnippet } from "./snippets.ts";

export const providerIcons: Record<TrustedPublisherProvider, LucideIcon> = {
  github: Workflow,
  gitlab: GitMerge,
};

/** What a job's ID token must name besides the repository, as label and value. */
function conditions(p: TrustedPublisherSummary): { label: string; value: string; code: boolean }[] {
  const rows: { label: string; value: string; code: boolean }[] = [];
  if (p.provider === "github")
    rows.push({ label: "Workflow", value: p.workflow ?? "Any workflow", code: p.workflow !== null });
  rows.push({ label: "Environment", value: p.environment ?? "Any or none", code: p.environment !== null });
  rows.push({ label: "Ref", value: p.ref ?? "Any branch or tag", code: p.ref !== null });
  // The provider's public issuer goes without saying.
  if (p.issuer !== issuerOf({ provider: p.provider }))
    rows.push({ label: "Issuer", value: p.issuer, code: true });
  return rows;
}

/** A path that may wrap after its slashes (group/subgroup/project) rather than inside a name. */
function Breakable({ path }: { path: string }) {
  return path.split("/").map((part, index) => (
    // The parts of one path, in order: their place is who they are.
    <Fragment key={index}>
      {index > 0 ? (
        <>
          /<wbr />
        </>
      ) : null}
      {part}
    </Fragment>
  ));
}

/**
 * The configuration to paste, with its file's path and a copy button (publish-instructions.tsx's
 * ConfigFile, as the integration guides show theirs), whole. Its lines are not wrapped, YAML's
 * indents matter: the box scrolls sideways on a narrow screen, and takes the focus so it can by
 * keyboard.
 */
function SnippetFile({ snippet }: { snippet: CiSnippet }) {
  return (
    <div
      className="min-w-0 overflow-hidden rounded-xl border border-border bg-[#0f172a] text-slate-100"
      data-testid={`ci-config-${snippet.system}`}
    >
      <div className="flex items-center justify-between gap-2 border-b border-white/10 py-1.5 pr-2 pl-4 text-xs text-slate-300">
        <span className="min-w-0 truncate font-mono">{snippet.path}</span>
        <CopyButton
          value={snippet.text}
          label={`Copy ${snippet.path}`}
          className="shrink-0 text-slate-400 hover:bg-white/10 hover:text-white"
        />
      </div>
      <pre
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling listing must be reachable by keyboard
        tabIndex={0}
        className="overflow-x-auto px-4 py-3 font-mono text-xs leading-5 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring"
      >
        <code>{snippet.text}</code>
      </pre>
    </div>
  );
}

/**
 * The fetcher key of the Remove dialogs: the card goes with its publisher before the answer is
 * in, so the page toasts it (useFetcherToasts).
 */
export const REMOVE_PUBLISHER_FETCHER = "remove-trusted-publisher";

function RemoveDialog({ publisher }: { publisher: TrustedPublisherSummary }) {
  const fetcher = useFetcher<FormReply>({ key: REMOVE_PUBLISHER_FETCHER });
  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="outline" className="text-destructive hover:text-destructive">
          <Trash2 aria-hidden="true" />
          Remove
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <fetcher.Form method="post" className="grid gap-4">
          <AlertDialogTitle>Stop trusting {publisher.repository}?</AlertDialogTitle>
          <AlertDialogDescription>
            Its jobs can no longer get a publish token. A token one already got works until it expires, at
            most {PUBLISH_TOKEN_TTL_SECONDS / 60} minutes.
          </AlertDialogDescription>
          <input type="hidden" name="intent" value="remove" />
          <input type="hidden" name="publisherId" value={publisher.id} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogCancel asChild>
              <Button type="button" variant="outline">
                Cancel
              </Button>
            </AlertDialogCancel>
            <SubmitButton busy={fetcher.state !== "idle"} variant="destructive">
              Remove publisher
            </SubmitButton>
          </div>
        </fetcher.Form>
      </AlertDialogContent>
    </AlertDialog>
  );
}

/** `snippetOpen`: the CI configuration shown rather than folded (the first card's). */
export function PublisherCard({
  publisher: p,
  target,
  readOnly = false,
  snippetOpen = false,
}: {
  publisher: TrustedPublisherSummary;
  target: PublishTarget;
  readOnly?: boolean;
  snippetOpen?: boolean;
}) {
  const Icon = providerIcons[p.provider];
  const snippet = ciSnippet(p, target);
  return (
    <Card data-testid="trusted-publisher" className="min-w-0">
      <CardHeader className="px-4 sm:px-6">
        <div className="flex items-start justify-between gap-3">
          <div className="flex min-w-0 items-start gap-3">
            <div className="shrink-0 rounded-md bg-accent p-2 text-primary">
              <Icon className="size-4" aria-hidden="true" />
            </div>
            <div className="grid min-w-0 gap-0.5">
              <p className="text-sm text-muted-foreground">{providerLabels[p.provider]}</p>
              <h3 className="font-mono text-sm font-medium [overflow-wrap:anywhere]">
                <Breakable path={p.repository} />
              </h3>
            </div>
          </div>
          {readOnly ? null : (
            <div className="shrink-0">
              <RemoveDialog publisher={p} />
            </div>
          )}
        </div>
      </CardHeader>
      <CardContent className="grid gap-4 px-4 sm:px-6">
        <dl className="grid grid-cols-[max-content_1fr] items-baseline gap-x-6 gap-y-2 text-sm">
          {conditions(p).map(({ label, value, code }) => (
            <div key={label} className="contents">
              <dt className="text-muted-foreground">{label}</dt>
              <dd className="min-w-0 break-all">
                {code ? <code className="font-mono text-xs">{value}</code> : value}
              </dd>
            </div>
          ))}
          <dt className="text-muted-foreground">Added</dt>
          <dd>
            <FormattedDate iso={p.createdAt} />
          </dd>
          <dt className="text-muted-foreground">Last used</dt>
          <dd>{p.lastUsedAt ? <FormattedDate iso={p.lastUsedAt} withTime /> : "Never used"}</dd>
        </dl>
        <details className="group grid gap-3" open={snippetOpen || undefined}>
          <summary className="flex w-fit cursor-pointer list-none items-center gap-1 text-sm font-medium hover:underline [&::-webkit-details-marker]:hidden">
            <ChevronRight className="size-4 transition-transform group-open:rotate-90" aria-hidden="true" />
            {p.provider === "github" ? "GitHub Actions workflow" : "GitLab CI job"}
          </summary>
          <div className="mt-3 grid min-w-0 gap-2">
            <p className="text-sm text-muted-foreground">
              {p.provider === "github" ? (
                <>
                  <code className="font-mono text-xs">id-token: write</code> lets the job ask GitHub for its
                  ID token
                </>
              ) : (
                <>
                  <code className="font-mono text-xs">id_tokens</code> puts the job's ID token in{" "}
                  <code className="font-mono text-xs">PACKYARD_ID_TOKEN</code>
                </>
              )}
              ; the CLI trades it for a publish token valid {PUBLISH_TOKEN_TTL_SECONDS / 60} minutes.
            </p>
            <SnippetFile snippet={snippet} />
          </div>
        </details>
      </CardContent>
    </Card>
  );
}
