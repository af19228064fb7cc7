// One entitlement token on /projects/{slug}/entitlements: the customer, its state, limits with
// what is used of them, its last use, and what can be done with it (its usage page, disable or
// enable, rotate with an overlap, delete). Every button posts to the page's action through a
// fetcher; the answers are toasted, a rotation's new secret is shown at the top of the page.
import type { EntitlementSummary } from "@packyard/contract/entitlements.ts";
import { formatFileSize } from "@packyard/contract/file-size.ts";
import { BarChart3, KeyRound, Power, Trash2 } from "lucide-react";
import { type ReactNode, useRef, useState } from "react";
import { Link, useFetcher } from "react-router";
import { toast } from "sonner";
import { type FormReply, firstError } from "../../lib/forms.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { SubmitButton } from "../dashboard/project-dialogs.tsx";
import { useFetcherOutcome } from "../dashboard/use-fetcher-outcome.ts";
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
import { Card, CardContent, CardHeader } from "../ui/card.tsx";

/** The fetcher key of the forms whose answer carries a new secret (the page shows it). */
export const ENTITLEMENT_SECRET_FETCHER = "entitlement-secret";

function useToasts(fetcher: ReturnType<typeof useFetcher<FormReply>>, onSuccess?: () => void) {
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
      onSuccess?.();
    },
    onFailure: (reply) => {
      toast.error(firstError(reply) ?? "Something went wrong");
    },
  });
}

/** The limits, each with what is used of it, as short phrases. */
export function limitPhrases(t: EntitlementSummary): { label: string; value: ReactNode }[] {
  const rows: { label: string; value: ReactNode }[] = [];
  if (t.validFrom || t.validUntil)
    rows.push({
      label: "Valid",
      value: (
        <>
          {t.validFrom ? (
            <>
              from <FormattedDate iso={t.validFrom} />{" "}
            </>
          ) : null}
          {t.validUntil ? (
            <>
              until <FormattedDate iso={t.validUntil} />
            </>
          ) : null}
        </>
      ),
    });
  rows.push({
    label: "Downloads",
    value: t.maxDownloads === null ? `${t.downloads} (no limit)` : `${t.downloads} of ${t.maxDownloads}`,
  });
  rows.push({
    label: "This month",
    value:
      t.maxBytesPerMonth === null
        ? `${formatFileSize(t.bytesThisMonth)} (no limit)`
        : `${formatFileSize(t.bytesThisMonth)} of ${formatFileSize(t.maxBytesPerMonth)}`,
  });
  if (t.suites) rows.push({ label: "Suites", value: t.suites.join(", ") });
  if (t.groups) rows.push({ label: "Groups", value: t.groups.map((g) => g || "(root)").join(", ") });
  if (t.versionRange)
    rows.push({ label: "Versions", value: <code className="font-mono">{t.versionRange}</code> });
  return rows;
}

/**
 * A token's limits with what is used of them and its last use (and with `oldSecret` when its
 * previous secret still works), as the token's card and its usage page list them.
 */
export function EntitlementFacts({
  entitlement: t,
  oldSecret = false,
}: {
  entitlement: EntitlementSummary;
  oldSecret?: boolean;
}) {
  return (
    <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
      {limitPhrases(t).map(({ label, value }) => (
        <div key={label} className="contents">
          <dt className="text-muted-foreground">{label}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
      <dt className="text-muted-foreground">Last used</dt>
      <dd className="min-w-0 break-words">
        {t.lastUsed ? (
          <>
            <FormattedDate iso={t.lastUsed.at} withTime /> from {t.lastUsed.address ?? "an unknown address"}
            {t.lastUsed.client ? <span className="text-muted-foreground"> ({t.lastUsed.client})</span> : null}
          </>
        ) : (
          "Never"
        )}
      </dd>
      {oldSecret && t.previousValidUntil ? (
        <>
          <dt className="text-muted-foreground">Old secret</dt>
          <dd>
            works until <FormattedDate iso={t.previousValidUntil} withTime />
          </dd>
        </>
      ) : null}
    </dl>
  );
}

export function EntitlementState({ entitlement }: { entitlement: EntitlementSummary }) {
  if (!entitlement.enabled) return <Badge variant="secondary">Disabled</Badge>;
  if (entitlement.validUntil && entitlement.validUntil < new Date().toISOString())
    return <Badge variant="warning">Expired</Badge>;
  return <Badge variant="success">Active</Badge>;
}

function ToggleButton({ entitlement }: { entitlement: EntitlementSummary }) {
  const fetcher = useFetcher<FormReply>();
  useToasts(fetcher);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value="toggle" />
      <input type="hidden" name="entitlementId" value={entitlement.id} />
      <input type="hidden" name="enabled" value={entitlement.enabled ? "false" : "true"} />
      <Button type="submit" size="sm" variant="outline" disabled={busy} aria-busy={busy || undefined}>
        <Power aria-hidden="true" />
        {entitlement.enabled ? "Disable" : "Enable"}
      </Button>
    </fetcher.Form>
  );
}

const OVERLAPS = [
  { hours: 24, label: "24 hours (default)" },
  { hours: 168, label: "7 days" },
  { hours: 1, label: "1 hour" },
  { hours: 0, label: "None: the old secret stops now" },
];

function RotateDialog({ entitlement }: { entitlement: EntitlementSummary }) {
  const [open, setOpen] = useState(false);
  const fetcher = useFetcher<FormReply>({ key: ENTITLEMENT_SECRET_FETCHER });
  const rotated = useRef(false);
  useFetcherOutcome(fetcher, {
    onSuccess: () => {
      rotated.current = true;
      setOpen(false);
    },
    onFailure: (reply) => {
      toast.error(firstError(reply) ?? "Something went wrong");
    },
  });
  return (
    <AlertDialog open={open} onOpenChange={setOpen}>
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="outline">
          <KeyRound aria-hidden="true" />
          Rotate
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent
        onCloseAutoFocus={(event) => {
          if (rotated.current) event.preventDefault();
          rotated.current = false;
        }}
      >
        <fetcher.Form method="post" className="grid gap-4">
          <AlertDialogTitle>Give {entitlement.name} a new secret?</AlertDialogTitle>
          <AlertDialogDescription>
            The new secret is shown once. The old one keeps working for the overlap you choose, so the
            customer's machines can move to the new one.
          </AlertDialogDescription>
          <fieldset className="grid gap-2">
            <legend className="mb-1 text-sm font-medium">Old secret keeps working for</legend>
            {OVERLAPS.map(({ hours, label }) => (
              <label key={hours} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="overlapHours"
                  value={hours}
                  defaultChecked={hours === 24}
                  className="size-4 accent-primary"
                />
                {label}
              </label>
            ))}
          </fieldset>
          <input type="hidden" name="intent" value="rotate" />
          <input type="hidden" name="entitlementId" value={entitlement.id} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogCancel asChild>
              <Button type="button" variant="outline">
                Cancel
              </Button>
            </AlertDialogCancel>
            <SubmitButton busy={fetcher.state !== "idle"}>Rotate secret</SubmitButton>
          </div>
        </fetcher.Form>
      </AlertDialogContent>
    </AlertDialog>
  );
}

function DeleteDialog({ entitlement }: { entitlement: EntitlementSummary }) {
  const fetcher = useFetcher<FormReply>();
  useToasts(fetcher);
  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="outline" className="text-destructive hover:text-destructive">
          <Trash2 aria-hidden="true" />
          Delete
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <fetcher.Form method="post" className="grid gap-4">
          <AlertDialogTitle>Delete {entitlement.name}'s token?</AlertDialogTitle>
          <AlertDialogDescription>
            Its secrets stop working at once and its usage is deleted. To stop it for a while, disable it
            instead.
          </AlertDialogDescription>
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="entitlementId" value={entitlement.id} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogCancel asChild>
              <Button type="button" variant="outline">
                Cancel
              </Button>
            </AlertDialogCancel>
            <SubmitButton busy={fetcher.state !== "idle"} variant="destructive">
              Delete token
            </SubmitButton>
          </div>
        </fetcher.Form>
      </AlertDialogContent>
    </AlertDialog>
  );
}

/** `href`: the token's own page (its usage); `readOnly`: without the buttons. */
export function EntitlementCard({
  entitlement,
  href,
  readOnly = false,
}: {
  entitlement: EntitlementSummary;
  href: string;
  readOnly?: boolean;
}) {
  const t = entitlement;
  return (
    <Card data-testid="entitlement">
      <CardHeader className="gap-2">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="grid min-w-0 gap-1">
            <h3 className="font-medium">
              <Link to={href} className="underline-offset-4 hover:underline">
                {t.name}
              </Link>
            </h3>
            <p className="text-sm text-muted-foreground">
              <code className="font-mono">{t.start}…</code>
              {t.note ? <> · {t.note}</> : null}
            </p>
          </div>
          <EntitlementState entitlement={t} />
        </div>
      </CardHeader>
      <CardContent className="grid gap-4">
        <EntitlementFacts entitlement={t} oldSecret />
        <div className="flex flex-wrap gap-2">
          <Button asChild size="sm" variant="outline">
            <Link to={href}>
              <BarChart3 aria-hidden="true" />
              Usage
            </Link>
          </Button>
          {readOnly ? null : (
            <>
              <ToggleButton entitlement={t} />
              <RotateDialog entitlement={t} />
              <DeleteDialog entitlement={t} />
            </>
          )}
        </div>
      </CardContent>
    </Card>
  );
}
