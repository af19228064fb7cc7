// /projects/{projectSlug}/webhooks: the project's webhooks (docs/webhooks.md) — add one (its
// secret shown once, with a copy button), edit, test, rotate the secret, turn off or on, delete,
// and each one's recent deliveries with redelivery. The action calls the same use cases as
// /api/v1/projects/{slug}/webhooks.
import { useForm } from "@conform-to/react";
import type { Webhook, WebhookDelivery } from "@packyard/contract";
import { Webhook as WebhookIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { data, useFetcher } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { WEBHOOK_MANAGE_ACCESS, WEBHOOK_READ_ACCESS } from "../../../server/platform/core/authorization.ts";
import { requestContext } from "../../../server/platform/http/request-context.ts";
import {
  createWebhook,
  deleteWebhook,
  type PersonCaller,
  rotateWebhookSecret,
  updateWebhook,
} from "../../../server/webhooks/use-cases.ts";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { FormAlert, SubmitButton } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { useFetcherOutcome } from "../../components/dashboard/use-fetcher-outcome.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { webhookForm } from "../../components/webhooks/forms.ts";
import { SECRET_FETCHER, WebhookCard } from "../../components/webhooks/webhook-card.tsx";
import { WebhookFields } from "../../components/webhooks/webhook-fields.tsx";
import {
  domainFailure,
  invalid,
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectPlace,
  projectRef,
  refused,
  sessionActor,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-webhooks";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.name} webhooks` : "Webhooks",
    noindex: true,
  });

/** A page that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

/** Deliveries listed per webhook. */
const DELIVERIES_SHOWN = 20;

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, webhooks } = services(context);
  const actor = sessionActor(user);
  // Seen by those who manage the project (authorization.ts: oversee).
  const project = await projectPageOr404(database.db, user, params, url, WEBHOOK_READ_ACCESS);
  const list = await webhooks.list(project);
  const deliveries: Record<string, WebhookDelivery[]> = {};
  for (const hook of list)
    deliveries[hook.id] = await webhooks.deliveries(project, hook.id, DELIVERIES_SHOWN);
  return {
    ...(await projectPlace(database.db, project)),
    name: project.name,
    webhooks: list,
    deliveries,
    can: await projectPermissions(database.db, actor, project),
  };
}

/** An answer that may carry a secret to show once. */
interface SecretReply extends FormReply {
  secret?: { webhookId: string; url: string; value: string; rotated: boolean };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, webhooks, clock } = services(context);
  const form = await request.formData();
  const ref = projectRef(params, user);
  // Refused before the form is read, as a form answer (the use cases check again).
  const { project, refusal } = await projectForAction(
    database.db,
    sessionActor(user),
    ref,
    WEBHOOK_MANAGE_ACCESS,
    form,
  );
  if (refusal) return refusal;
  const deps = { db: database.db, clock, webhooks };
  const caller: PersonCaller = {
    actor: sessionActor(user),
    address: context.get(requestContext).clientAddress,
  };
  const intent = String(form.get("intent") ?? "");
  const webhookId = String(form.get("webhookId") ?? "");

  if (intent === "create" || intent === "update") {
    const submission = parseForm(form, webhookForm);
    if (submission.status !== "success") return invalid(submission);
    const { url: target, description, events } = submission.value;
    try {
      if (intent === "create") {
        const created = await createWebhook(deps, caller, {
          project: ref,
          webhook: { url: target, description, events },
        });
        return data<SecretReply>({
          result: submission.reply({ resetForm: true }),
          message: "Webhook added",
          secret: { webhookId: created.id, url: created.url, value: created.secret, rotated: false },
        });
      }
      await updateWebhook(deps, caller, {
        project: ref,
        id: webhookId,
        webhook: { url: target, description, events },
      });
      return data<FormReply>({ result: submission.reply(), message: "Webhook saved" });
    } catch (error) {
      // A refused URL (a private address, a host that does not resolve) names the url field.
      return domainFailure(submission, error);
    }
  }

  // The buttons: no fields to check, answered with a message (or a refusal) for a toast.
  const submission = parseForm(form, z.object({}));
  try {
    switch (intent) {
      case "rotate": {
        const rotated = await rotateWebhookSecret(deps, caller, { project: ref, id: webhookId });
        return data<SecretReply>({
          result: submission.reply(),
          message: "Secret rotated",
          secret: { webhookId: rotated.id, url: rotated.url, value: rotated.secret, rotated: true },
        });
      }
      case "toggle": {
        const active = form.get("active") === "true";
        await updateWebhook(deps, caller, { project: ref, id: webhookId, webhook: { active } });
        return data<FormReply>({
          result: submission.reply(),
          message: active ? "Webhook turned on" : "Webhook turned off",
        });
      }
      case "delete":
        await deleteWebhook(deps, caller, { project: ref, id: webhookId });
        return data<FormReply>({ result: submission.reply(), message: "Webhook deleted" });
      case "test":
      case "redeliver": {
        const delivery =
          intent === "test"
            ? await webhooks.test(project, webhookId)
            : await webhooks.redeliver(project, webhookId, String(form.get("deliveryId") ?? ""));
        const attempt = delivery.attempts.at(-1);
        if (delivery.state === "delivered")
          return data<FormReply>({
            result: submission.reply(),
            message: `${intent === "test" ? "Test delivered" : "Redelivered"}: HTTP ${attempt?.status} in ${attempt?.durationMs} ms`,
          });
        return refused(submission, 502, {
          formError: `The receiver did not accept it (${attempt?.status === null || !attempt ? (attempt?.error ?? "no response") : `HTTP ${attempt.status}`}); it is retried with backoff`,
        });
      }
    }
  } catch (error) {
    return domainFailure(submission, error);
  }
  return refused(submission, 400, { formError: "Unknown action" });
}

export default function ProjectWebhooks({ loaderData }: Route.ComponentProps) {
  const { webhooks, deliveries, can } = loaderData;
  const secretFetcher = useFetcher<SecretReply>({ key: SECRET_FETCHER });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const secret = secretFetcher.data?.secret;
  const showSecret = secret && dismissed !== secret.value;
  // A secret from a webhook's Rotate button appears at the top: brought into view, its Copy
  // button focused.
  const secretPanel = useRef<HTMLDivElement>(null);
  const shownSecret = showSecret ? secret.value : null;
  useEffect(() => {
    if (!shownSecret) return;
    secretPanel.current?.scrollIntoView({ block: "start" });
    secretPanel.current?.querySelector<HTMLButtonElement>("button")?.focus({ preventScroll: true });
  }, [shownSecret]);

  return (
    <>
      <Breadcrumbs items={projectCrumbs(loaderData, "Webhooks")} />
      <ProjectTabs base={projectPath(loaderData)} />
      <PageHeader
        title="Webhooks"
        description="Packyard POSTs a signed JSON message to your URLs when releases, files, repositories or keys of this project change."
      />
      <div className="grid max-w-3xl gap-6">
        {showSecret ? (
          <div ref={secretPanel} className="scroll-mt-4">
            <NewSecret
              title={secret.rotated ? "The new signing secret" : "Your webhook's signing secret"}
              secret={secret.value}
              note="Copy it now and keep it somewhere safe: it is shown only once. Anyone with it can sign messages your receiver would take for Packyard's."
              actions={
                <Button variant="outline" onClick={() => setDismissed(secret.value)}>
                  Done
                </Button>
              }
            >
              <p className="text-sm text-muted-foreground">
                Check the <code className="font-mono text-foreground">Packyard-Signature</code> header of each
                delivery to <span className="break-all font-mono text-foreground">{secret.url}</span> with it:
                its <code className="font-mono text-foreground">v1</code> is the HMAC-SHA256 of the header's{" "}
                <code className="font-mono text-foreground">t</code>, a dot and the body.
              </p>
            </NewSecret>
          </div>
        ) : null}

        {can.manage ? (
          <Card>
            <CardHeader>
              <CardTitle>Add a webhook</CardTitle>
              <CardDescription>
                Failed deliveries are retried with backoff for 24 hours; a webhook failing for 3 days is
                turned off and you are mailed.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <CreateWebhookForm key={secret && !secret.rotated ? secret.webhookId : "new"} />
            </CardContent>
          </Card>
        ) : null}

        {webhooks.length === 0 ? (
          <EmptyState icon={WebhookIcon} title="No webhooks yet">
            Add one to start a deployment, notify a chat or mirror a release when something happens here.
          </EmptyState>
        ) : (
          <section aria-label="Webhooks" className="grid gap-4">
            {webhooks.map((hook: Webhook) => (
              <WebhookCard
                key={hook.id}
                webhook={hook}
                deliveries={deliveries[hook.id] ?? []}
                readOnly={!can.manage}
              />
            ))}
          </section>
        )}
      </div>
    </>
  );
}

function CreateWebhookForm() {
  const fetcher = useFetcher<SecretReply>({ key: SECRET_FETCHER });
  const [form] = useForm({
    id: "create-webhook",
    lastResult: fetcher.data?.secret ? undefined : fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, webhookForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
    },
  });
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
      <input type="hidden" name="intent" value="create" />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      <WebhookFields errors={form.allErrors} />
      <div>
        <SubmitButton busy={fetcher.state !== "idle"}>Add webhook</SubmitButton>
      </div>
    </fetcher.Form>
  );
}
