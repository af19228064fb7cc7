// An organization's single sign-on on its settings page (docs/sso.md): its identity providers
// (owners add and remove them, admins see them and the URLs each is given), how members sign in
// (require SSO, the default role, IdP groups → roles) and SCIM tokens (owners). Each form posts to
// the page's action through its own fetcher (intents add-sso, remove-sso, sso-settings,
// create-scim-token, revoke-scim-token). SSO is a Pro feature: below it, the card says so.
import type { OrgRole } from "@packyard/contract/orgs.ts";
import { orgRoles } from "@packyard/contract/orgs.ts";
import type { SsoProvider, SsoSettings } from "@packyard/contract/sso.ts";
import { KeyRound, ShieldCheck } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Link, useFetcher } from "react-router";
import { toast } from "sonner";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { Alert } from "../ui/alert.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { FormField } from "../ui/form-field.tsx";
import { Label } from "../ui/label.tsx";
import { TextareaField } from "../ui/textarea.tsx";

/** What the page's action answers an SSO form. */
export interface SsoAnswer {
  ssoAction: "add-sso" | "remove-sso" | "sso-settings" | "create-scim-token" | "revoke-scim-token";
  ok: boolean;
  message: string;
  code?: string;
  /** create-scim-token: shown once. */
  scim?: { token: string; baseUrl: string };
}

export interface ScimTokenRow {
  id: string;
  start: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:opacity-50";

function useAnswerToast(answer: SsoAnswer | undefined) {
  const seen = useRef<SsoAnswer | undefined>(undefined);
  useEffect(() => {
    if (!answer || seen.current === answer) return;
    seen.current = answer;
    if (answer.ok) toast.success(answer.message);
  }, [answer]);
}

function CopyLine({ label, value }: { label: string; value: string }) {
  return (
    <div className="grid gap-1">
      <span className="text-xs text-muted-foreground">{label}</span>
      <div className="flex min-w-0 items-center gap-1 rounded-md border border-border bg-muted/40 py-1 pr-1 pl-3">
        <code className="min-w-0 flex-1 truncate font-mono text-xs" title={value}>
          {value}
        </code>
        <CopyButton value={value} label={`Copy the ${label}`} successMessage="Copied" />
      </div>
    </div>
  );
}

/** "group = role" lines, as the settings form takes the mapping. */
export function groupRolesText(mapping: Record<string, OrgRole>): string {
  return Object.entries(mapping)
    .map(([group, role]) => `${group} = ${role}`)
    .join("\n");
}

function ProviderRow({ provider, canOwn }: { provider: SsoProvider; canOwn: boolean }) {
  const remove = useFetcher<SsoAnswer>();
  useAnswerToast(remove.data);
  return (
    <li className="grid gap-3 px-4 py-4 sm:px-6" data-testid="sso-provider">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Badge variant="secondary">{provider.type === "saml" ? "SAML 2.0" : "OpenID Connect"}</Badge>
        <span className="break-all font-mono font-medium">{provider.domain}</span>
        <span className="min-w-0 break-all text-xs text-muted-foreground sm:ml-auto">{provider.issuer}</span>
      </div>
      {provider.type === "saml" ? (
        <div className="grid gap-2">
          <CopyLine label="ACS URL (single sign-on URL)" value={provider.callbackUrl} />
          <CopyLine label="Entity ID (audience)" value={provider.entityId ?? ""} />
          <CopyLine label="SP metadata URL" value={provider.metadataUrl ?? ""} />
        </div>
      ) : (
        <div className="grid gap-2">
          <CopyLine label="Redirect URI" value={provider.callbackUrl} />
          <p className="text-xs text-muted-foreground">
            Client <span className="font-mono">{provider.clientId}</span> · groups from the{" "}
            <span className="font-mono">{provider.groupsAttribute}</span> claim
          </p>
        </div>
      )}
      {remove.data && !remove.data.ok ? <Alert variant="error">{remove.data.message}</Alert> : null}
      {canOwn ? (
        <remove.Form method="post">
          <input type="hidden" name="intent" value="remove-sso" />
          <input type="hidden" name="id" value={provider.id} />
          <Button type="submit" size="sm" variant="outline" disabled={remove.state !== "idle"}>
            Remove provider
          </Button>
        </remove.Form>
      ) : null}
    </li>
  );
}

function AddProviderForm({ verifiedDomains }: { verifiedDomains: string[] }) {
  const add = useFetcher<SsoAnswer>();
  useAnswerToast(add.data);
  const [type, setType] = useState<"saml" | "oidc">("saml");
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (add.state === "idle" && add.data?.ok) form.current?.reset();
  }, [add.state, add.data]);
  if (verifiedDomains.length === 0)
    return (
      <p className="text-sm text-muted-foreground">
        Verify a domain above first: a provider signs in the people of one of the organization's verified
        domains.
      </p>
    );
  return (
    <add.Form ref={form} method="post" className="grid gap-4" data-testid="add-sso">
      <input type="hidden" name="intent" value="add-sso" />
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="grid gap-2">
          <Label htmlFor="sso-type">Protocol</Label>
          <select
            id="sso-type"
            name="type"
            className={selectClass}
            value={type}
            onChange={(event) => setType(event.currentTarget.value as "saml" | "oidc")}
          >
            <option value="saml">SAML 2.0</option>
            <option value="oidc">OpenID Connect</option>
          </select>
        </div>
        <div className="grid gap-2">
          <Label htmlFor="sso-domain">Domain</Label>
          <select id="sso-domain" name="domain" className={selectClass}>
            {verifiedDomains.map((domain) => (
              <option key={domain} value={domain}>
                {domain}
              </option>
            ))}
          </select>
        </div>
      </div>
      {type === "saml" ? (
        <>
          <FormField
            label="IdP metadata URL"
            name="metadataUrl"
            type="url"
            placeholder="https://idp.example.com/app/metadata"
            autoComplete="off"
            hint="Or paste the metadata XML below."
          />
          <TextareaField
            label="IdP metadata XML"
            name="metadataXml"
            rows={4}
            className="font-mono text-xs"
            spellCheck={false}
            placeholder={'<EntityDescriptor entityID="…">…</EntityDescriptor>'}
          />
        </>
      ) : (
        <>
          <FormField
            label="Issuer"
            name="issuer"
            type="url"
            placeholder="https://login.example.com"
            autoComplete="off"
          />
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="Client ID" name="clientId" autoComplete="off" spellCheck={false} />
            <FormField label="Client secret" name="clientSecret" type="password" autoComplete="off" />
          </div>
        </>
      )}
      {add.data && !add.data.ok ? (
        <Alert variant="error" data-testid="sso-error">
          {add.data.message}
        </Alert>
      ) : null}
      <div>
        <Button type="submit" disabled={add.state !== "idle"}>
          {add.state === "idle" ? "Add provider" : "Checking the provider…"}
        </Button>
      </div>
    </add.Form>
  );
}

function SettingsForm({
  settings,
  canOwn,
  hasProvider,
}: {
  settings: SsoSettings;
  canOwn: boolean;
  hasProvider: boolean;
}) {
  const save = useFetcher<SsoAnswer>();
  useAnswerToast(save.data);
  return (
    <save.Form method="post" className="grid gap-4" data-testid="sso-settings">
      <input type="hidden" name="intent" value="sso-settings" />
      <fieldset disabled={!canOwn} className="grid min-w-0 gap-4">
        <label className="flex items-start gap-3 text-sm">
          <input
            type="checkbox"
            name="enforced"
            value="true"
            defaultChecked={settings.enforced}
            disabled={!hasProvider && !settings.enforced}
            className="mt-0.5 size-4 accent-primary"
          />
          <span className="grid gap-1">
            <span className="font-medium">Require single sign-on</span>
            <span className="text-muted-foreground">
              Members reach the organization's projects only after signing in through its provider; their
              password sessions and personal API keys keep working for their own projects. Owners keep a
              break-glass sign-in with their password, and the organization's API keys are unaffected.
            </span>
          </span>
        </label>
        <div className="grid gap-2 sm:max-w-xs">
          <Label htmlFor="sso-default-role">Role of new members</Label>
          <select
            id="sso-default-role"
            name="defaultRole"
            defaultValue={settings.defaultRole}
            className={selectClass}
          >
            {orgRoles.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </div>
        <TextareaField
          label="Roles from IdP groups"
          name="groupRoles"
          rows={3}
          className="font-mono text-xs"
          spellCheck={false}
          defaultValue={groupRolesText(settings.groupRoles)}
          placeholder={"packyard-admins = admin\npackyard-publishers = publisher"}
          hint="One “group = role” per line (owner, admin, publisher or viewer). A member gets the highest role any of their groups maps to, else the role of new members."
        />
        {save.data && !save.data.ok ? <Alert variant="error">{save.data.message}</Alert> : null}
        {canOwn ? (
          <div>
            <Button type="submit" disabled={save.state !== "idle"}>
              Save sign-in settings
            </Button>
          </div>
        ) : null}
      </fieldset>
    </save.Form>
  );
}

function ScimTokens({ tokens }: { tokens: ScimTokenRow[] }) {
  const create = useFetcher<SsoAnswer>();
  const revoke = useFetcher<SsoAnswer>();
  useAnswerToast(create.data);
  useAnswerToast(revoke.data);
  const fresh = create.data?.ok ? create.data.scim : undefined;
  return (
    <div className="grid gap-3" data-testid="scim-tokens">
      <h3 className="font-medium">SCIM provisioning</h3>
      <p className="text-sm text-muted-foreground">
        Your identity provider creates, updates and removes members with a bearer token. Removing someone
        there removes their membership and ends their single sign-on sessions here.
      </p>
      {fresh ? (
        <Alert variant="success" className="grid gap-2" data-testid="scim-secret">
          <p className="font-medium">Copy the token now: it is not shown again.</p>
          <CopyLine label="SCIM base URL" value={fresh.baseUrl} />
          <CopyLine label="Bearer token" value={fresh.token} />
        </Alert>
      ) : null}
      {tokens.length > 0 ? (
        <ul className="divide-y divide-border rounded-md border border-border">
          {tokens.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center gap-x-3 gap-y-2 px-3 py-2 text-sm">
              <span className="font-mono">{token.start}…</span>
              <span className="text-xs text-muted-foreground">
                created <FormattedDate iso={token.createdAt} withTime />
                {token.lastUsedAt ? (
                  <>
                    {" "}
                    · last used <FormattedDate iso={token.lastUsedAt} withTime />
                  </>
                ) : (
                  " · never used"
                )}
              </span>
              <revoke.Form method="post" className="sm:ml-auto">
                <input type="hidden" name="intent" value="revoke-scim-token" />
                <input type="hidden" name="id" value={token.id} />
                <Button type="submit" size="sm" variant="outline" disabled={revoke.state !== "idle"}>
                  Revoke
                </Button>
              </revoke.Form>
            </li>
          ))}
        </ul>
      ) : null}
      {create.data && !create.data.ok ? <Alert variant="error">{create.data.message}</Alert> : null}
      <create.Form method="post">
        <input type="hidden" name="intent" value="create-scim-token" />
        <Button type="submit" variant="outline" disabled={create.state !== "idle"}>
          Create SCIM token
        </Button>
      </create.Form>
    </div>
  );
}

export function SsoCard(props: {
  providers: SsoProvider[];
  settings: SsoSettings;
  verifiedDomains: string[];
  scimTokens: ScimTokenRow[];
  canOwn: boolean;
  /** The organization's plan includes single sign-on (or plan limits are off). */
  planAllows: boolean;
}) {
  const { providers, settings, canOwn, planAllows } = props;
  return (
    <Card className="overflow-hidden" data-testid="sso-card">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound aria-hidden className="size-5" />
          Single sign-on
          {settings.enforced ? (
            <Badge variant="success">
              <ShieldCheck aria-hidden className="mr-1 size-3.5" />
              Required
            </Badge>
          ) : null}
        </CardTitle>
        <CardDescription>
          Members of a verified domain sign in through the organization's SAML 2.0 or OpenID Connect provider,
          and join it on their first sign-in. Give the provider the URLs below; paste its metadata or client
          here.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {!planAllows ? (
          <Alert data-testid="sso-plan">
            Single sign-on and SCIM are part of the Pro plan.{" "}
            <Link to="/pricing" className="font-medium underline underline-offset-2">
              See plans
            </Link>
          </Alert>
        ) : null}
        {canOwn && planAllows ? <AddProviderForm verifiedDomains={props.verifiedDomains} /> : null}
        {!canOwn ? (
          <p className="text-sm text-muted-foreground">Owners add and change identity providers.</p>
        ) : null}
      </CardContent>
      {providers.length > 0 ? (
        <ul className="divide-y divide-border border-t border-border">
          {providers.map((provider) => (
            <ProviderRow key={provider.id} provider={provider} canOwn={canOwn} />
          ))}
        </ul>
      ) : null}
      {planAllows || providers.length > 0 ? (
        <CardContent className="grid gap-6 border-t border-border pt-6">
          <SettingsForm settings={settings} canOwn={canOwn} hasProvider={providers.length > 0} />
          {canOwn && planAllows ? <ScimTokens tokens={props.scimTokens} /> : null}
        </CardContent>
      ) : null}
    </Card>
  );
}
