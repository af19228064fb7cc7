// /projects/{projectSlug}/entitlements: the project's entitlement tokens (docs/entitlements.md) —
// create one for a customer (its secret shown once, with the commands that set a machine up),
// disable or enable, rotate with an overlap, delete, and each one's limits and use. The action
// calls the same use cases as /api/v1/projects/{slug}/entitlements.
import { useForm } from "@conform-to/react";
import type { EntitlementSummary } from "@packyard/contract/entitlements.ts";
import { plans } from "@packyard/contract/plans.ts";
import { Ticket } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { data, Link, useFetcher } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { accountPlan, limitsEnabled } from "../../../server/billing/plan.ts";
import { flushDownloadCounts } from "../../../server/billing/usage.ts";
import {
  createEntitlement,
  deleteEntitlement,
  listEntitlementTokens,
  rotateEntitlement,
  updateEntitlement,
} from "../../../server/entitlements/use-cases.ts";
import {
  ENTITLEMENT_MANAGE_ACCESS,
  ENTITLEMENT_READ_ACCESS,
} from "../../../server/platform/core/authorization.ts";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { FormAlert, SubmitButton } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { useFetcherOutcome } from "../../components/dashboard/use-fetcher-outcome.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import {
  ENTITLEMENT_SECRET_FETCHER,
  EntitlementCard,
} from "../../components/entitlements/entitlement-card.tsx";
import { createRequest, entitlementForm } from "../../components/entitlements/forms.ts";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { CopyButton } from "../../components/ui/copy-button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
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
  sessionCaller,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-entitlements";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.name} entitlement tokens` : "Entitlement tokens",
    noindex: true,
  });

/** A page that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config, clock } = services(context);
  const db = database.db;
  const project = await projectPageOr404(db, user, params, url, ENTITLEMENT_READ_ACCESS);
  const place = await projectPlace(db, project);
  const caller = sessionCaller(user, clientAddress(context));
  // This server's latest answers are in the numbers shown (usage.ts writes them in batches).
  await flushDownloadCounts(db);
  const entitlements = await listEntitlementTokens({ db, clock }, caller, {
    project: projectRef(params, user),
  });
  const plan = plans[(await accountPlan(db, project.owner_id)).plan];
  return {
    ...place,
    name: project.name,
    baseUrl: config.baseUrl,
    entitlements,
    // What the plan allows (PLAN_LIMITS=off: anything), for the form's note.
    allowance: limitsEnabled(config) ? { plan: plan.name, tokens: plan.entitlementTokens } : null,
    can: await projectPermissions(db, sessionActor(user), project),
  };
}

/** An answer that may carry a secret to show once. */
interface SecretReply extends FormReply {
  secret?: {
    entitlementId: string;
    name: string;
    value: string;
    rotated: boolean;
    previousValidUntil: string | null;
  };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock, config } = services(context);
  const db = database.db;
  const form = await request.formData();
  const ref = projectRef(params, user);
  const { refusal } = await projectForAction(db, sessionActor(user), ref, ENTITLEMENT_MANAGE_ACCESS, form);
  if (refusal) return refusal;
  const deps = { db, clock, limits: config };
  const caller = sessionCaller(user, clientAddress(context));
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("entitlementId") ?? "");

  if (intent === "create") {
    const submission = parseForm(form, entitlementForm);
    if (submission.status !== "success") return invalid(submission);
    try {
      const created = await createEntitlement(deps, caller, {
        project: ref,
        entitlement: createRequest(submission.value),
      });
      return data<SecretReply>({
        result: submission.reply({ resetForm: true }),
        message: "Entitlement token created",
        secret: {
          entitlementId: created.entitlement.id,
          name: created.entitlement.name,
          value: created.token,
          rotated: false,
          previousValidUntil: null,
        },
      });
    } catch (error) {
      return domainFailure(submission, error);
    }
  }

  const submission = parseForm(form, z.object({}));
  try {
    switch (intent) {
      case "toggle": {
        const enabled = form.get("enabled") === "true";
        await updateEntitlement(deps, caller, { project: ref, id, entitlement: { enabled } });
        return data<FormReply>({
          result: submission.reply(),
          message: enabled ? "Token enabled" : "Token disabled",
        });
      }
      case "rotate": {
        const overlapHours = Number(form.get("overlapHours") ?? 24);
        const rotated = await rotateEntitlement(deps, caller, {
          project: ref,
          id,
          rotation: { overlapHours },
        });
        return data<SecretReply>({
          result: submission.reply(),
          message: "Secret rotated",
          secret: {
            entitlementId: rotated.entitlement.id,
            name: rotated.entitlement.name,
            value: rotated.token,
            rotated: true,
            previousValidUntil: rotated.entitlement.previousValidUntil,
          },
        });
      }
      case "delete":
        await deleteEntitlement(deps, caller, { project: ref, id });
        return data<FormReply>({ result: submission.reply(), message: "Token deleted" });
    }
  } catch (error) {
    return domainFailure(submission, error);
  }
  return refused(submission, 400, { formError: "Unknown action" });
}

/** The commands that set a customer's machine up with the token. */
function SetupCommands({ base, token }: { base: string; token: string }) {
  const lines = [
    { label: "Debian and Ubuntu (apt)", command: `curl -fsSL -u ${token}: ${base}/setup.deb.sh | sudo bash` },
    {
      label: "Fedora, RHEL and derivatives (dnf)",
      command: `curl -fsSL -u ${token}: ${base}/setup.rpm.sh | sudo bash`,
    },
  ];
  return (
    <div className="grid gap-3">
      {lines.map(({ label, command }) => (
        <div key={label} className="grid gap-1.5">
          <p className="text-sm font-medium">{label}</p>
          <div className="flex items-start gap-2">
            <code className="min-w-0 flex-1 break-all rounded-md border border-border bg-background px-3 py-2 font-mono text-xs">
              {command}
            </code>
            <CopyButton value={command} label={`Copy the ${label} command`} />
          </div>
        </div>
      ))}
    </div>
  );
}

export default function ProjectEntitlements({ loaderData }: Route.ComponentProps) {
  const { entitlements, can, allowance, baseUrl } = loaderData;
  const secretFetcher = useFetcher<SecretReply>({ key: ENTITLEMENT_SECRET_FETCHER });
  const [dismissed, setDismissed] = useState<string | null>(null);
  const secret = secretFetcher.data?.secret;
  const showSecret = secret && dismissed !== secret.value;
  const secretPanel = useRef<HTMLDivElement>(null);
  const shownSecret = showSecret ? secret.value : null;
  useEffect(() => {
    if (!shownSecret) return;
    secretPanel.current?.scrollIntoView({ block: "start" });
    secretPanel.current?.querySelector<HTMLButtonElement>("button")?.focus({ preventScroll: true });
  }, [shownSecret]);
  const base = projectPath(loaderData);
  const dlBase = `${baseUrl}/dl/${loaderData.owner}/${loaderData.slug}`;
  const noTokens = allowance !== null && allowance.tokens === 0;

  return (
    <>
      <Breadcrumbs items={projectCrumbs(loaderData, "Entitlement tokens")} />
      <ProjectTabs base={base} />
      <PageHeader
        title="Entitlement tokens"
        description="A read token for each customer: their machines install this project's packages with it, within the limits you set, and you see what they use."
      />
      <div className="grid max-w-3xl gap-6">
        {showSecret ? (
          <div ref={secretPanel} className="scroll-mt-4">
            <NewSecret
              title={secret.rotated ? `${secret.name}'s new secret` : `${secret.name}'s entitlement token`}
              secret={secret.value}
              note="Copy it now and send it to your customer: it is shown only once. It reads this project's packages and files, within the token's limits, and nothing else."
              actions={
                <Button variant="outline" onClick={() => setDismissed(secret.value)}>
                  Done
                </Button>
              }
            >
              {secret.rotated && secret.previousValidUntil ? (
                <p className="text-sm text-muted-foreground">
                  The old secret keeps working until{" "}
                  <FormattedDate iso={secret.previousValidUntil} withTime />.
                </p>
              ) : null}
              <SetupCommands base={dlBase} token={secret.value} />
            </NewSecret>
          </div>
        ) : null}

        {can.manage ? (
          noTokens ? (
            <Alert variant="info" data-testid="plan-note">
              Your {allowance.plan} plan does not include entitlement tokens.{" "}
              <Link to="/pricing" className="font-medium underline underline-offset-2">
                Compare plans
              </Link>{" "}
              to give your customers their own tokens. Your own machines read private projects with a
              read-only API key.
            </Alert>
          ) : (
            <Card>
              <CardHeader>
                <CardTitle>Create a token</CardTitle>
                <CardDescription>
                  Every limit is optional.{" "}
                  {allowance && allowance.tokens !== "unlimited"
                    ? `Your ${allowance.plan} plan includes ${allowance.tokens} tokens across your projects.`
                    : null}
                </CardDescription>
              </CardHeader>
              <CardContent>
                <CreateEntitlementForm key={secret && !secret.rotated ? secret.entitlementId : "new"} />
              </CardContent>
            </Card>
          )
        ) : null}

        {entitlements.length === 0 ? (
          <EmptyState icon={Ticket} title="No entitlement tokens yet">
            Create one per customer: apt and dnf install with it, and you can see and limit what each customer
            downloads.
          </EmptyState>
        ) : (
          <section aria-label="Entitlement tokens" className="grid gap-4">
            {entitlements.map((entitlement: EntitlementSummary) => (
              <EntitlementCard
                key={entitlement.id}
                entitlement={entitlement}
                href={`${base}/entitlements/${entitlement.id}`}
                readOnly={!can.manage}
              />
            ))}
          </section>
        )}
      </div>
    </>
  );
}

function CreateEntitlementForm() {
  const fetcher = useFetcher<SecretReply>({ key: ENTITLEMENT_SECRET_FETCHER });
  const [form, fields] = useForm({
    id: "create-entitlement",
    lastResult: fetcher.data?.secret ? undefined : fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, entitlementForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
    },
  });
  const error = (name: keyof typeof fields) => fields[name].errors?.[0];
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
      <input type="hidden" name="intent" value="create" />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      <div className="grid items-start gap-5 sm:grid-cols-2">
        <FormField
          label="Customer"
          name="name"
          maxLength={100}
          autoComplete="off"
          placeholder="e.g. Initech"
          error={error("name")}
          data-autofocus
        />
        <FormField
          label="Note (optional)"
          name="note"
          maxLength={500}
          autoComplete="off"
          placeholder="e.g. order 4711"
          error={error("note")}
        />
        <FormField label="Valid until (optional)" name="validUntil" type="date" error={error("validUntil")} />
        <FormField
          label="Version range (optional)"
          name="versionRange"
          autoComplete="off"
          spellCheck={false}
          placeholder=">=2.0 <3.0"
          error={error("versionRange")}
          hint="Releases it may install; empty: all."
        />
        <FormField
          label="Downloads (optional)"
          name="maxDownloads"
          inputMode="numeric"
          placeholder="No limit"
          error={error("maxDownloads")}
          hint="Packages and files, in all."
        />
        <FormField
          label="GB a month (optional)"
          name="maxGigabytesPerMonth"
          inputMode="numeric"
          placeholder="No limit"
          error={error("maxGigabytesPerMonth")}
          hint="Everything it fetches, per calendar month."
        />
        <FormField
          label="APT suites (optional)"
          name="suites"
          autoComplete="off"
          spellCheck={false}
          placeholder="stable"
          error={error("suites")}
          hint="Comma-separated; empty: all."
        />
        <FormField
          label="YUM groups (optional)"
          name="groups"
          autoComplete="off"
          spellCheck={false}
          placeholder="el9"
          error={error("groups")}
          hint="Comma-separated; empty: all."
        />
      </div>
      <div>
        <SubmitButton busy={fetcher.state !== "idle"}>Create token</SubmitButton>
      </div>
    </fetcher.Form>
  );
}
