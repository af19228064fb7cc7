// The body of the entitlement tokens pages, for a project's tokens and an organization's: the new
// secret shown once with the commands that set a customer's machine up, the create form (an
// organization's also chooses the projects), the plan's allowance, and a card per token. The
// pages' actions are lib/entitlements.server.ts's.
import { useForm } from "@conform-to/react";
import type { EntitlementSummary } from "@packyard/contract/entitlements.ts";
import { Ticket } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Link, useFetcher } from "react-router";
import { toast } from "sonner";
import type { SecretReply } from "../../lib/entitlements.server.ts";
import { parseForm } from "../../lib/forms.ts";
import { NewSecret } from "../api-keys/new-secret.tsx";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { FormAlert, SubmitButton } from "../dashboard/project-dialogs.tsx";
import { useFetcherOutcome } from "../dashboard/use-fetcher-outcome.ts";
import { EmptyState } from "../empty-state.tsx";
import { Alert } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { FormField } from "../ui/form-field.tsx";
import { ENTITLEMENT_SECRET_FETCHER, EntitlementCard } from "./entitlement-card.tsx";
import { entitlementForm, orgEntitlementForm } from "./forms.ts";

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

function ProjectChoices({ choices, error }: { choices: string[]; error?: string }) {
  return (
    <fieldset className="grid gap-2" aria-invalid={error ? true : undefined}>
      <legend className="mb-1 text-sm font-medium">Projects it reads</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {choices.map((slug) => (
          <label
            key={slug}
            className="flex items-center gap-2 rounded-md border border-border p-2.5 text-sm has-[:checked]:border-primary/50 has-[:checked]:bg-accent/40"
          >
            <input type="checkbox" name="projects" value={slug} className="size-4 accent-primary" />
            <span className="font-mono text-xs">{slug}</span>
          </label>
        ))}
      </div>
      {error ? <p className="text-sm text-destructive">{error}</p> : null}
    </fieldset>
  );
}

export interface EntitlementsPanelProps {
  entitlements: EntitlementSummary[];
  canManage: boolean;
  /** The plan's tokens (null: PLAN_LIMITS=off). */
  allowance: { plan: string; tokens: number | "unlimited" } | null;
  /** The server's BASE_URL, for the setup commands. */
  baseUrl: string;
  /** The token's own page. */
  tokenHref: (id: string) => string;
  /** An organization's: the projects a new token may read. */
  projectChoices?: string[];
}

export function EntitlementsPanel({
  entitlements,
  canManage,
  allowance,
  baseUrl,
  tokenHref,
  projectChoices,
}: EntitlementsPanelProps) {
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
  const noTokens = allowance !== null && allowance.tokens === 0;

  return (
    <div className="grid max-w-3xl gap-6">
      {showSecret ? (
        <div ref={secretPanel} className="scroll-mt-4">
          <NewSecret
            title={secret.rotated ? `${secret.name}'s new secret` : `${secret.name}'s entitlement token`}
            secret={secret.value}
            note="Copy it now and send it to your customer: it is shown only once. It reads the packages and files of its projects, within the token's limits, and nothing else."
            actions={
              <Button variant="outline" onClick={() => setDismissed(secret.value)}>
                Done
              </Button>
            }
          >
            {secret.rotated && secret.previousValidUntil ? (
              <p className="text-sm text-muted-foreground">
                The old secret keeps working until <FormattedDate iso={secret.previousValidUntil} withTime />.
              </p>
            ) : null}
            {secret.projects.map((project) => (
              <div key={project} className="grid gap-2">
                {secret.projects.length > 1 ? (
                  <p className="font-mono text-xs text-muted-foreground">{project}</p>
                ) : null}
                <SetupCommands base={`${baseUrl}/dl/${project}`} token={secret.value} />
              </div>
            ))}
          </NewSecret>
        </div>
      ) : null}

      {canManage ? (
        noTokens ? (
          <Alert variant="info" data-testid="plan-note">
            Your {allowance.plan} plan does not include entitlement tokens.{" "}
            <Link to="/pricing" className="font-medium underline underline-offset-2">
              Compare plans
            </Link>{" "}
            to give your customers their own tokens. Your own machines read private projects with a read-only
            API key.
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
              <CreateEntitlementForm
                key={secret && !secret.rotated ? secret.entitlementId : "new"}
                projectChoices={projectChoices}
              />
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
          {entitlements.map((entitlement) => (
            <EntitlementCard
              key={entitlement.id}
              entitlement={entitlement}
              href={tokenHref(entitlement.id)}
              readOnly={!canManage}
            />
          ))}
        </section>
      )}
    </div>
  );
}

function CreateEntitlementForm({ projectChoices }: { projectChoices?: string[] }) {
  const fetcher = useFetcher<SecretReply>({ key: ENTITLEMENT_SECRET_FETCHER });
  const [form, fields] = useForm<Record<string, unknown>>({
    id: "create-entitlement",
    lastResult: fetcher.data?.secret ? undefined : fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, projectChoices ? orgEntitlementForm : entitlementForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
    },
  });
  const error = (name: keyof typeof fields) => fields[name]?.errors?.[0];
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
      <input type="hidden" name="intent" value="create" />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      {projectChoices ? (
        <ProjectChoices choices={projectChoices} error={fields.projects?.errors?.[0]} />
      ) : null}
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
