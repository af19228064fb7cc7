// One webhook on /projects/{slug}/webhooks: its URL, events and state, what can be done with it
// (edit, test, rotate the secret, turn off or on, delete), and its delivery log with redelivery.
// Every button posts to the page's action through a fetcher; the answers are toasted.
import { useForm } from "@conform-to/react";
import type { Webhook, WebhookDelivery } from "@packyard/contract";
import { KeyRound, Pencil, Power, RotateCcw, Send, Trash2 } from "lucide-react";
import { type ReactNode, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { type FormReply, firstError, parseForm } from "../../lib/forms.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { FormAlert, focusFirstField, SubmitButton } from "../dashboard/project-dialogs.tsx";
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
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "../ui/dialog.tsx";
import { webhookForm } from "./forms.ts";
import { WebhookFields } from "./webhook-fields.tsx";

/** The fetcher key of the forms whose answer carries a new secret (the page shows it). */
export const SECRET_FETCHER = "webhook-secret";

/** Toasts a fetcher's answers: the message on success, the first error on failure. */
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

/** A one-button form posting `intent` for the webhook (and more fields). */
function ActionButton({
  intent,
  webhookId,
  fields = {},
  children,
  variant = "outline",
  label,
}: {
  intent: string;
  webhookId: string;
  fields?: Record<string, string>;
  children: ReactNode;
  variant?: "outline" | "ghost";
  label?: string;
}) {
  const fetcher = useFetcher<FormReply>();
  useToasts(fetcher);
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="webhookId" value={webhookId} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button
        type="submit"
        size="sm"
        variant={variant}
        disabled={busy}
        aria-busy={busy || undefined}
        aria-label={label}
      >
        {children}
      </Button>
    </fetcher.Form>
  );
}

function StateBadge({ webhook }: { webhook: Webhook }) {
  if (!webhook.active)
    return (
      <Badge variant={webhook.disabledReason ? "destructive" : "secondary"}>
        {webhook.disabledReason ? "Turned off: failing" : "Off"}
      </Badge>
    );
  if (webhook.pausedUntil) return <Badge variant="warning">Paused</Badge>;
  if (webhook.failingSince) return <Badge variant="warning">Failing</Badge>;
  return <Badge variant="success">Active</Badge>;
}

/** `readOnly`: the webhook and its deliveries without the buttons (a viewer of an organization's project). */
export function WebhookCard({
  webhook,
  deliveries,
  readOnly = false,
}: {
  webhook: Webhook;
  deliveries: WebhookDelivery[];
  readOnly?: boolean;
}) {
  return (
    <Card data-testid="webhook">
      <CardHeader className="gap-3">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="grid min-w-0 gap-1">
            <h3 className="break-all font-mono text-sm font-medium">{webhook.url}</h3>
            {webhook.description ? (
              <p className="text-sm text-muted-foreground">{webhook.description}</p>
            ) : null}
          </div>
          <StateBadge webhook={webhook} />
        </div>
        <ul className="flex flex-wrap gap-1.5" aria-label="Events">
          {webhook.events.map((event) => (
            <li key={event}>
              <Badge variant="outline" className="font-mono">
                {event}
              </Badge>
            </li>
          ))}
        </ul>
        {webhook.failingSince ? (
          <p className="text-sm text-muted-foreground">
            Every delivery has failed since <FormattedDate iso={webhook.failingSince} withTime />. After 3
            days the webhook is turned off and you are mailed.
          </p>
        ) : null}
        {webhook.pausedUntil ? (
          <p className="text-sm text-muted-foreground" data-testid="webhook-paused">
            {`Paused after ${webhook.consecutiveTimeouts} attempts in a row without an answer: deliveries wait until `}
            <FormattedDate iso={webhook.pausedUntil} withTime />, when one is tried again. Any answer from
            your receiver (or a test that gets one) resumes them.
          </p>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-5">
        <div className="flex flex-wrap gap-2" hidden={readOnly}>
          <EditWebhookDialog webhook={webhook} />
          <ActionButton intent="test" webhookId={webhook.id}>
            <Send aria-hidden="true" />
            Send test
          </ActionButton>
          <RotateSecretDialog webhook={webhook} />
          <ActionButton
            intent="toggle"
            webhookId={webhook.id}
            fields={{ active: webhook.active ? "false" : "true" }}
          >
            <Power aria-hidden="true" />
            {webhook.active ? "Turn off" : "Turn on"}
          </ActionButton>
          <DeleteWebhookDialog webhook={webhook} />
        </div>
        <DeliveryLog webhookId={webhook.id} deliveries={deliveries} readOnly={readOnly} />
      </CardContent>
    </Card>
  );
}

function EditWebhookDialog({ webhook }: { webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm" variant="outline">
          <Pencil aria-hidden="true" />
          Edit
        </Button>
      </DialogTrigger>
      <DialogContent className="max-h-[90vh] overflow-y-auto sm:max-w-2xl" onOpenAutoFocus={focusFirstField}>
        <EditWebhookForm webhook={webhook} onDone={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function EditWebhookForm({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  const fetcher = useFetcher<FormReply>();
  const [form] = useForm({
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, webhookForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
      onDone();
    },
  });
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
      <DialogHeader>
        <DialogTitle>Edit webhook</DialogTitle>
        <DialogDescription>The secret stays the same; rotate it separately.</DialogDescription>
      </DialogHeader>
      <input type="hidden" name="intent" value="update" />
      <input type="hidden" name="webhookId" value={webhook.id} />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      <WebhookFields defaults={webhook} errors={form.allErrors} />
      <DialogFooter>
        <DialogClose asChild>
          <Button type="button" variant="outline">
            Cancel
          </Button>
        </DialogClose>
        <SubmitButton busy={fetcher.state !== "idle"}>Save changes</SubmitButton>
      </DialogFooter>
    </fetcher.Form>
  );
}

function RotateSecretDialog({ webhook }: { webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  // Shared with the page, which shows the new secret.
  const fetcher = useFetcher<FormReply>({ key: SECRET_FETCHER });
  // Once rotated, focus goes to the new secret at the top of the page, not back to this button.
  const rotated = useRef(false);
  useFetcherOutcome(fetcher, {
    onSuccess: () => {
      rotated.current = true;
      setOpen(false);
    },
  });
  return (
    <AlertDialog open={open} onOpenChange={setOpen}>
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="outline">
          <KeyRound aria-hidden="true" />
          Rotate secret
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent
        onCloseAutoFocus={(event) => {
          if (rotated.current) event.preventDefault();
          rotated.current = false;
        }}
      >
        <fetcher.Form method="post" className="grid gap-4">
          <AlertDialogTitle>Rotate the signing secret?</AlertDialogTitle>
          <AlertDialogDescription>
            A new secret signs every delivery from now on, retries of earlier ones included. Deliveries fail
            your receiver's check until it uses the new secret.
          </AlertDialogDescription>
          <input type="hidden" name="intent" value="rotate" />
          <input type="hidden" name="webhookId" value={webhook.id} />
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

function DeleteWebhookDialog({ webhook }: { webhook: Webhook }) {
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
          <AlertDialogTitle>Delete this webhook?</AlertDialogTitle>
          <AlertDialogDescription>
            <span className="break-all font-mono text-foreground">{webhook.url}</span> gets no more
            deliveries, and its delivery log is deleted.
          </AlertDialogDescription>
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="webhookId" value={webhook.id} />
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <AlertDialogCancel asChild>
              <Button type="button" variant="outline">
                Cancel
              </Button>
            </AlertDialogCancel>
            <SubmitButton busy={fetcher.state !== "idle"} variant="destructive">
              Delete webhook
            </SubmitButton>
          </div>
        </fetcher.Form>
      </AlertDialogContent>
    </AlertDialog>
  );
}

const stateBadge: Record<
  WebhookDelivery["state"],
  { label: string; variant: "success" | "warning" | "destructive" | "secondary" }
> = {
  delivered: { label: "Delivered", variant: "success" },
  pending: { label: "Retrying", variant: "warning" },
  sending: { label: "Sending", variant: "secondary" },
  failed: { label: "Failed", variant: "destructive" },
};

function DeliveryLog({
  webhookId,
  deliveries,
  readOnly,
}: {
  webhookId: string;
  deliveries: WebhookDelivery[];
  readOnly: boolean;
}) {
  return (
    <section aria-label="Recent deliveries" className="grid gap-2">
      <h4 className="text-sm font-medium">Recent deliveries</h4>
      {deliveries.length === 0 ? (
        <p className="text-sm text-muted-foreground">Nothing sent yet. Send a test to check your receiver.</p>
      ) : (
        <ul className="divide-y divide-border rounded-md border border-border">
          {deliveries.map((delivery) => {
            const last = delivery.attempts.at(-1);
            const badge = stateBadge[delivery.state];
            return (
              <li key={delivery.id} className="grid gap-2 p-3 text-sm" data-testid="delivery">
                <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                  <span className="font-mono text-xs font-medium">{delivery.event}</span>
                  <Badge variant={badge.variant}>{badge.label}</Badge>
                  <span className="text-muted-foreground">
                    {last ? (last.status === null ? "no response" : `HTTP ${last.status}`) : "not sent yet"}
                    {last ? ` · ${last.durationMs} ms` : ""}
                    {delivery.attempts.length > 1 ? ` · ${delivery.attempts.length} attempts` : ""}
                  </span>
                  <span className="text-muted-foreground sm:ml-auto">
                    <FormattedDate iso={delivery.createdAt} withTime />
                  </span>
                </div>
                <details className="group">
                  <summary className="cursor-pointer text-muted-foreground hover:text-foreground">
                    Details
                  </summary>
                  <div className="mt-2 grid gap-3">
                    <p className="break-all font-mono text-xs text-muted-foreground">
                      Delivery {delivery.id}
                    </p>
                    {delivery.nextAttemptAt ? (
                      <p>
                        Next attempt <FormattedDate iso={delivery.nextAttemptAt} withTime />
                      </p>
                    ) : null}
                    <ol className="grid gap-2">
                      {delivery.attempts.map((attempt, index) => (
                        <li key={`${attempt.at}-${index}`} className="grid gap-1 rounded-md bg-muted/50 p-2">
                          <span>
                            Attempt {index + 1}:{" "}
                            {attempt.status === null ? "no response" : `HTTP ${attempt.status}`} in{" "}
                            {attempt.durationMs} ms · <FormattedDate iso={attempt.at} withTime />
                          </span>
                          {attempt.error ? <span className="text-destructive">{attempt.error}</span> : null}
                          {attempt.responseExcerpt ? (
                            // Wrapped rather than scrolled (at most 1 KB): nothing to reach by keyboard.
                            <pre className="whitespace-pre-wrap break-all font-mono text-xs">
                              {attempt.responseExcerpt}
                            </pre>
                          ) : null}
                        </li>
                      ))}
                    </ol>
                    <pre className="whitespace-pre-wrap break-all rounded-md border border-border bg-background p-2 font-mono text-xs">
                      {JSON.stringify(delivery.payload, null, 2)}
                    </pre>
                    <div hidden={readOnly}>
                      <ActionButton
                        intent="redeliver"
                        webhookId={webhookId}
                        fields={{ deliveryId: delivery.id }}
                      >
                        <RotateCcw aria-hidden="true" />
                        Redeliver
                      </ActionButton>
                    </div>
                  </div>
                </details>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
