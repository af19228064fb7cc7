// The body of /projects/{slug}/publishing: the form that adds a trusted publisher (for those who
// manage the project) and a card per publisher, with its CI configuration. The page's action is
// lib/trusted-publishing.server.ts's.
import { useForm } from "@conform-to/react";
import {
  MAX_TRUSTED_PUBLISHERS,
  providerLabels,
  type TrustedPublisherProvider,
  type TrustedPublisherSummary,
} from "@packyard/contract/trusted-publishing.ts";
import { ChevronRight, ShieldCheck } from "lucide-react";
import { useState } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import type { PublishTarget } from "../../lib/publish-commands.ts";
import { FormAlert, SubmitButton } from "../dashboard/project-dialogs.tsx";
import { useFetcherOutcome, useFetcherToasts } from "../dashboard/use-fetcher-outcome.ts";
import { EmptyState } from "../empty-state.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { FormField } from "../ui/form-field.tsx";
import { RadioCards } from "../ui/radio-cards.tsx";
import { fieldMessage, trustedPublisherForm } from "./forms.ts";
import { PublisherCard, providerIcons, REMOVE_PUBLISHER_FETCHER } from "./publisher-card.tsx";

export function TrustedPublishingPanel({
  publishers,
  canManage,
  target,
}: {
  publishers: TrustedPublisherSummary[];
  canManage: boolean;
  /** The server's URL and the project, for the CI configuration. */
  target: PublishTarget;
}) {
  // A new, empty form after each publisher added.
  const [added, setAdded] = useState(0);
  useFetcherToasts(REMOVE_PUBLISHER_FETCHER, { failures: true });
  return (
    <div className="grid max-w-3xl min-w-0 gap-6">
      {canManage ? (
        <Card className="min-w-0">
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Add a trusted publisher</CardTitle>
            <CardDescription>
              A job may publish when its ID token names this repository and meets every condition you set. A
              project trusts up to {MAX_TRUSTED_PUBLISHERS} publishers.
            </CardDescription>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <AddPublisherForm key={added} onAdded={() => setAdded((n) => n + 1)} />
          </CardContent>
        </Card>
      ) : null}

      {publishers.length === 0 ? (
        <EmptyState icon={ShieldCheck} title="No trusted publishers yet">
          {canManage
            ? "Add your CI's repository above: its jobs then publish with their own ID token, and no API key has to be stored in the CI."
            : "An admin or owner of the project can add the CI workflows allowed to publish to it."}
        </EmptyState>
      ) : (
        <section aria-label="Trusted publishers" className="grid min-w-0 gap-4">
          {publishers.map((publisher, index) => (
            <PublisherCard
              key={publisher.id}
              publisher={publisher}
              target={target}
              readOnly={!canManage}
              snippetOpen={index === 0}
            />
          ))}
        </section>
      )}
    </div>
  );
}

const PROVIDER_OPTIONS = (["github", "gitlab"] as const).map((value) => ({
  value,
  label: providerLabels[value],
  icon: providerIcons[value],
  description: value === "github" ? "A repository's workflow" : "A project's pipeline",
}));

function AddPublisherForm({ onAdded }: { onAdded: () => void }) {
  const fetcher = useFetcher<FormReply>();
  const [provider, setProvider] = useState<TrustedPublisherProvider>("github");
  const [issuerOpen, setIssuerOpen] = useState(false);
  const [form, fields] = useForm<Record<string, unknown>>({
    id: "add-trusted-publisher",
    lastResult: fetcher.data?.result,
    onValidate: ({ formData }) => parseForm(formData, trustedPublisherForm),
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
      onAdded();
    },
  });
  const error = (name: string) => fieldMessage(fields[name]?.errors?.[0]);
  const github = provider === "github";
  return (
    <fetcher.Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
      <input type="hidden" name="intent" value="add" />
      <FormAlert errors={form.errors} code={fetcher.data?.code} />
      {/* The choice shows its provider's fields (a change event bubbles from the radio buttons). */}
      <div
        onChange={(event) => {
          const target = event.target as HTMLInputElement;
          if (target.name === "provider") setProvider(target.value as TrustedPublisherProvider);
        }}
      >
        <RadioCards
          legend="CI"
          name="provider"
          options={PROVIDER_OPTIONS}
          defaultValue="github"
          error={error("provider")}
        />
      </div>
      {/* Keyed by provider: a field of the other provider starts empty. */}
      <div key={provider} className="grid items-start gap-5 sm:grid-cols-2">
        {github ? (
          <FormField
            label="Repository"
            name="repository"
            autoComplete="off"
            spellCheck={false}
            placeholder="octo-org/widget"
            error={error("repository")}
            hint="The GitHub repository, as owner/name."
          />
        ) : (
          <FormField
            label="Project path"
            name="projectPath"
            autoComplete="off"
            spellCheck={false}
            placeholder="group/project"
            error={error("projectPath")}
            hint="The GitLab project, with its groups."
          />
        )}
        {github ? (
          <FormField
            label="Workflow file (optional)"
            name="workflow"
            autoComplete="off"
            spellCheck={false}
            placeholder="release.yml"
            error={error("workflow")}
            hint="Its name in .github/workflows; empty: any workflow."
          />
        ) : null}
        <FormField
          label="Environment (optional)"
          name="environment"
          autoComplete="off"
          spellCheck={false}
          placeholder="release"
          error={error("environment")}
          hint={`Only jobs that deploy to this ${github ? "GitHub" : "GitLab"} environment.`}
        />
        <FormField
          label="Ref (optional)"
          name="ref"
          autoComplete="off"
          spellCheck={false}
          placeholder="refs/tags/v*"
          error={error("ref")}
          hint="e.g. refs/tags/v* or main; leave empty for any branch or tag"
        />
      </div>
      {/* Open when its field has an error, and kept open once it was (the toggle event follows). */}
      <details
        className="group"
        open={issuerOpen || Boolean(error("issuer"))}
        onToggle={(event) => setIssuerOpen(event.currentTarget.open)}
      >
        <summary className="flex w-fit cursor-pointer list-none items-center gap-1 text-sm font-medium hover:underline [&::-webkit-details-marker]:hidden">
          <ChevronRight className="size-4 transition-transform group-open:rotate-90" aria-hidden="true" />
          Enterprise / self-managed
        </summary>
        <div className="mt-3 sm:max-w-[calc(50%-0.625rem)]">
          <FormField
            key={provider}
            label="Issuer (optional)"
            name="issuer"
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder={github ? "https://ghe.example.com/_services/token" : "https://gitlab.example.com"}
            error={error("issuer")}
            hint={
              github
                ? "GitHub Enterprise Server's issuer; empty: github.com's."
                : "Your GitLab's URL; empty: gitlab.com."
            }
          />
        </div>
      </details>
      <div>
        <SubmitButton busy={fetcher.state !== "idle"}>Add publisher</SubmitButton>
      </div>
    </fetcher.Form>
  );
}
