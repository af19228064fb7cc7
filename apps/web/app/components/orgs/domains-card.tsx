// An organization's verified domains on its settings page (docs/sso.md): owners claim a domain,
// copy the TXT record to publish, verify it and give it up; admins see them. Each form posts to
// the page's action (intents add-domain, verify-domain, remove-domain) through its own fetcher,
// so one domain's answer does not disturb the others.
import type { OrgDomain } from "@packyard/contract/orgs.ts";
import { CheckCircle2, Globe } from "lucide-react";
import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { Alert } from "../ui/alert.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { FormField } from "../ui/form-field.tsx";

/** What the page's action answers a domain form. */
export interface DomainAnswer {
  domainAction: "add-domain" | "verify-domain" | "remove-domain";
  ok: boolean;
  message: string;
  code?: string;
}

function useAnswerToast(answer: DomainAnswer | undefined) {
  const seen = useRef<DomainAnswer | undefined>(undefined);
  useEffect(() => {
    if (!answer || seen.current === answer) return;
    seen.current = answer;
    if (answer.ok) toast.success(answer.message);
  }, [answer]);
}

function RecordLine({ label, value }: { label: string; value: string }) {
  return (
    <div className="grid gap-1 sm:grid-cols-[4rem_minmax(0,1fr)] sm:items-center">
      <span className="text-xs text-muted-foreground">{label}</span>
      <div className="flex min-w-0 items-center gap-1 rounded-md border border-border bg-muted/40 py-1 pr-1 pl-3">
        <code className="min-w-0 flex-1 truncate font-mono text-xs" title={value}>
          {value}
        </code>
        <CopyButton
          value={value}
          label={`Copy the record's ${label.toLowerCase()}`}
          successMessage="Copied"
        />
      </div>
    </div>
  );
}

function DomainRow({ domain, canOwn }: { domain: OrgDomain; canOwn: boolean }) {
  const verify = useFetcher<DomainAnswer>();
  const remove = useFetcher<DomainAnswer>();
  useAnswerToast(verify.data);
  useAnswerToast(remove.data);
  const failure = [verify.data, remove.data].find((answer) => answer && !answer.ok);
  return (
    <li className="grid gap-3 px-4 py-4 sm:px-6" data-testid="org-domain">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="break-all font-mono font-medium">{domain.domain}</span>
        {domain.verified ? (
          <Badge variant="success">
            <CheckCircle2 aria-hidden className="mr-1 size-3.5" />
            Verified
          </Badge>
        ) : (
          <Badge variant="warning">Not verified</Badge>
        )}
        <span className="text-xs text-muted-foreground sm:ml-auto">
          {domain.verifiedAt ? (
            <>
              verified <FormattedDate iso={domain.verifiedAt} withTime />
            </>
          ) : (
            <>
              added <FormattedDate iso={domain.createdAt} withTime />
            </>
          )}
        </span>
      </div>
      {domain.verified ? null : (
        <div className="grid gap-2">
          <p className="text-sm text-muted-foreground">
            Publish this TXT record at your DNS provider, then verify. Changes can take a few minutes to
            appear.
          </p>
          <RecordLine label="Name" value={domain.record.name} />
          <RecordLine label="Value" value={domain.record.value} />
        </div>
      )}
      {failure ? <Alert variant="error">{failure.message}</Alert> : null}
      {canOwn ? (
        <div className="flex flex-wrap gap-2">
          {domain.verified ? null : (
            <verify.Form method="post">
              <input type="hidden" name="intent" value="verify-domain" />
              <input type="hidden" name="domain" value={domain.domain} />
              <Button type="submit" size="sm" disabled={verify.state !== "idle"}>
                {verify.state === "idle" ? "Verify" : "Looking up the record…"}
              </Button>
            </verify.Form>
          )}
          <remove.Form method="post">
            <input type="hidden" name="intent" value="remove-domain" />
            <input type="hidden" name="domain" value={domain.domain} />
            <Button type="submit" size="sm" variant="outline" disabled={remove.state !== "idle"}>
              Remove
            </Button>
          </remove.Form>
        </div>
      ) : null}
    </li>
  );
}

export function DomainsCard({ domains, canOwn }: { domains: OrgDomain[]; canOwn: boolean }) {
  const add = useFetcher<DomainAnswer>();
  useAnswerToast(add.data);
  // Emptied once the domain is added (it is listed below).
  const addForm = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (add.state === "idle" && add.data?.ok) addForm.current?.reset();
  }, [add.state, add.data]);
  return (
    <Card className="overflow-hidden">
      <CardHeader>
        <CardTitle>Domains</CardTitle>
        <CardDescription>
          Prove that the organization owns its members' email domain with a DNS TXT record. One domain belongs
          to one organization: the first to verify it.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {canOwn ? (
          <add.Form
            ref={addForm}
            method="post"
            className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-end"
          >
            <input type="hidden" name="intent" value="add-domain" />
            <FormField
              label="Domain"
              name="domain"
              placeholder="acme.com"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              className="font-mono"
              error={add.data && !add.data.ok ? add.data.message : undefined}
            />
            <Button type="submit" disabled={add.state !== "idle"}>
              Add domain
            </Button>
          </add.Form>
        ) : (
          <p className="text-sm text-muted-foreground">Owners add, verify and remove domains.</p>
        )}
        {domains.length === 0 ? (
          <p className="flex items-center gap-2 text-sm text-muted-foreground">
            <Globe aria-hidden className="size-4" />
            No domains yet.
          </p>
        ) : null}
      </CardContent>
      {domains.length > 0 ? (
        <ul className="divide-y divide-border border-t border-border">
          {domains.map((domain) => (
            <DomainRow key={domain.domain} domain={domain} canOwn={canOwn} />
          ))}
        </ul>
      ) : null}
    </Card>
  );
}
