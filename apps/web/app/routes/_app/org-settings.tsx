// /orgs/{orgSlug}/settings: rename the organization (admins and owners), its verified domains and
// single sign-on — identity providers, required SSO, group roles, SCIM tokens (owners change them,
// admins see them; docs/sso.md), its API keys (admins and
// owners: made like /api-keys's, but owned by the organization and scoped to its projects, so they
// keep working when their maker leaves; the secret shown once), and delete it (owners, once it
// owns no project: ORG_NOT_EMPTY says to transfer or delete them first). Its slug stays: it is in
// its projects' public URLs.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { apiErrorStatus, createSsoProviderSchema, ssoSettingsSchema } from "@packyard/contract";
import { useEffect, useRef, useState } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { toast } from "sonner";
import {
  addDomain,
  dnsTxtLookup,
  listDomains,
  removeDomain,
  verifyDomain,
} from "../../../server/orgs/domains.ts";
import { createScimToken, listScimTokens, revokeScimToken } from "../../../server/orgs/scim/tokens.ts";
import {
  assertSsoPlan,
  createSsoProvider,
  deleteSsoProvider,
  listSsoProviders,
  ssoSettingsOf,
  updateSsoSettings,
} from "../../../server/orgs/sso.ts";
import { ssoDepsOf } from "../../../server/orgs/sso-routes.ts";
import { requireOrganization } from "../../../server/orgs/storage.ts";
import { DomainError } from "../../../server/platform/core/errors.ts";
import { CreateKeyForm } from "../../components/api-keys/create-key-form.tsx";
import { KeyList, type KeyListAnswer } from "../../components/api-keys/key-list.tsx";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { createKeyForm } from "../../components/api-keys/options.ts";
import { FormAlert } from "../../components/dashboard/project-dialogs.tsx";
import { type DomainAnswer, DomainsCard } from "../../components/orgs/domains-card.tsx";
import { deleteOrgForm, renameOrgForm } from "../../components/orgs/forms.ts";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { type SsoAnswer, SsoCard } from "../../components/orgs/sso-card.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { type CreatedKey, expiresInSeconds, UnknownProjectError } from "../../lib/api-keys.server.ts";
import {
  domainFailure,
  invalid,
  refused,
  sessionActor,
  sessionCaller,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm, succeededReply } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import {
  createOrgKey,
  deleteExpiredOrgKeys,
  deleteOrganization,
  deleteOrgKey,
  listOrgKeys,
  orgAbilities,
  orgKeyProjects,
  orgOr404,
  renameOrganization,
} from "../../lib/orgs.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-settings";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Settings · ${loaderData.org.name}` : "Organization settings",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const actor = sessionActor(user);
  const db = services(context).database.db;
  const { org, role } = await orgOr404(db, actor, params.orgSlug);
  const can = orgAbilities(actor, role);
  return {
    org: { slug: org.slug, name: org.name },
    role,
    can,
    keys: can.admin ? await listOrgKeys(db, org.id) : [],
    domains: can.admin ? await listDomains(db, actor, org.slug) : [],
    projects: can.admin ? await orgKeyProjects(db, org.id) : [],
    sso: can.admin ? await ssoOf(services(context), actor, org, can.own) : null,
  };
}

/** The single sign-on card's data (admins see it; owners change it and see the SCIM tokens). */
async function ssoOf(
  all: ReturnType<typeof services>,
  actor: ReturnType<typeof sessionActor>,
  org: { id: string; slug: string; name: string; created_at: string },
  owner: boolean,
) {
  const deps = ssoDepsOf(all);
  const planAllows = await assertSsoPlan(deps, org).then(
    () => true,
    (error: unknown) => {
      if (error instanceof DomainError && error.code === "PLAN_LIMIT") return false;
      throw error;
    },
  );
  return {
    providers: await listSsoProviders(deps, actor, org.slug),
    settings: await ssoSettingsOf(deps.db, org.id),
    scimTokens: owner ? await listScimTokens(deps.db, actor, org.slug) : [],
    planAllows,
  };
}

/** "group = role" lines → the mapping (a line that is not one is left for the schema to refuse). */
function parseGroupRoles(text: string): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.lastIndexOf("=");
    mapping[at === -1 ? line.trim() : line.slice(0, at).trim()] = at === -1 ? "" : line.slice(at + 1).trim();
  }
  return mapping;
}

/** A page that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

type Reply = FormReply & { section: "rename" | "delete" };

/** The key form's answer: Conform's result, and the key once it is created. */
interface CreateAnswer {
  intent: "create";
  result: SubmissionResult;
  created?: CreatedKey;
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const source = sessionCaller(user, clientAddress(context));
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const tag = (section: Reply["section"], reply: ReturnType<typeof succeeded>) =>
    data<Reply>({ ...reply.data, section }, reply.init ?? undefined);

  if (intent === "rename") {
    const submission = parseForm(formData, renameOrgForm);
    if (submission.status !== "success") return tag("rename", invalid(submission));
    try {
      await orgOr404(db, actor, params.orgSlug);
      await renameOrganization({ db, clock }, source, {
        organization: params.orgSlug,
        name: submission.value.name,
      });
    } catch (error) {
      return tag("rename", domainFailure(submission, error));
    }
    return tag("rename", succeeded(submission, "Organization renamed"));
  }
  // The API keys' forms (components/api-keys): admins and owners.
  if (intent === "create" || intent === "delete" || intent === "delete-expired") {
    let org: Awaited<ReturnType<typeof orgOr404>>["org"];
    try {
      ({ org } = await requireOrganization(db, actor, params.orgSlug, "admin"));
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "NOT_FOUND") throw data(null, { status: 404 });
      return data<KeyListAnswer>({ intent: null, ok: false, error: error.message }, { status: 403 });
    }
    if (intent === "create") {
      const submission = parseForm(formData, createKeyForm);
      if (submission.status !== "success")
        return data<CreateAnswer>({ intent, result: submission.reply() }, { status: 400 });
      const input = submission.value;
      try {
        const created = await createOrgKey(services(context), source, org.slug, {
          name: input.name,
          expiresIn: expiresInSeconds(input.expiry),
          scope: { projects: input.scope === "all" ? "*" : input.projectIds, access: input.access },
        });
        return data<CreateAnswer>({ intent, result: submission.reply(), created });
      } catch (error) {
        if (error instanceof UnknownProjectError)
          return data<CreateAnswer>(
            { intent, result: submission.reply({ fieldErrors: { projectIds: [error.message] } }) },
            { status: 400 },
          );
        throw error;
      }
    }
    if (intent === "delete") {
      const keyId = String(formData.get("keyId") ?? "");
      const deleted = keyId ? await deleteOrgKey(services(context), source, org.slug, keyId) : false;
      return deleted
        ? data<KeyListAnswer>({ intent, ok: true })
        : data<KeyListAnswer>(
            { intent, ok: false, error: "This key does not exist any more" },
            { status: 404 },
          );
    }
    const deleted = await deleteExpiredOrgKeys(services(context), source, org.slug);
    return data<KeyListAnswer>({ intent, ok: true, deleted });
  }

  // Verified domains (components/orgs/domains-card.tsx, docs/sso.md): owners.
  if (intent === "add-domain" || intent === "verify-domain" || intent === "remove-domain") {
    const { config } = services(context);
    const deps = { db, dns: dnsTxtLookup(config.dnsResolver), clock };
    const domain = String(formData.get("domain") ?? "");
    const input = { organization: params.orgSlug, domain };
    // Someone who does not see the organization gets its 404 page; a domain's own refusals below.
    await orgOr404(db, actor, params.orgSlug);
    try {
      if (intent === "add-domain") {
        const added = await addDomain(deps, source, input);
        return data<DomainAnswer>({
          domainAction: intent,
          ok: true,
          message: `${added.domain} added: publish its TXT record, then verify`,
        });
      }
      if (intent === "verify-domain") {
        const verified = await verifyDomain(deps, source, input);
        return data<DomainAnswer>({
          domainAction: intent,
          ok: true,
          message: `${verified.domain} is verified`,
        });
      }
      await removeDomain(deps, source, input);
      return data<DomainAnswer>({ domainAction: intent, ok: true, message: `${domain} removed` });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return data<DomainAnswer>(
        { domainAction: intent, ok: false, message: error.message, code: error.code },
        { status: apiErrorStatus[error.code] },
      );
    }
  }

  // Single sign-on and SCIM (components/orgs/sso-card.tsx, docs/sso.md): owners.
  if (
    intent === "add-sso" ||
    intent === "remove-sso" ||
    intent === "sso-settings" ||
    intent === "create-scim-token" ||
    intent === "revoke-scim-token"
  ) {
    await orgOr404(db, actor, params.orgSlug);
    const deps = ssoDepsOf(services(context));
    const field = (name: string) => {
      const value = String(formData.get(name) ?? "").trim();
      return value === "" ? undefined : value;
    };
    const answer = (ok: boolean, message: string, extra: Partial<SsoAnswer> = {}) =>
      data<SsoAnswer>({ ssoAction: intent, ok, message, ...extra });
    try {
      if (intent === "add-sso") {
        const parsed = createSsoProviderSchema.safeParse({
          type: field("type"),
          domain: field("domain"),
          metadataXml: field("metadataXml"),
          metadataUrl: field("metadataUrl"),
          issuer: field("issuer"),
          clientId: field("clientId"),
          clientSecret: field("clientSecret"),
        });
        if (!parsed.success)
          return data<SsoAnswer>(
            { ssoAction: intent, ok: false, message: parsed.error.issues[0]?.message ?? "Check the form" },
            { status: 400 },
          );
        const provider = await createSsoProvider(deps, source, {
          organization: params.orgSlug,
          ...parsed.data,
        });
        return answer(
          true,
          `${provider.type === "saml" ? "SAML" : "OpenID Connect"} provider added for ${provider.domain}`,
        );
      }
      if (intent === "remove-sso") {
        await deleteSsoProvider(deps, source, {
          organization: params.orgSlug,
          id: String(formData.get("id") ?? ""),
        });
        return answer(true, "Provider removed");
      }
      if (intent === "sso-settings") {
        const parsed = ssoSettingsSchema.safeParse({
          enforced: formData.get("enforced") === "true",
          defaultRole: field("defaultRole"),
          groupRoles: parseGroupRoles(String(formData.get("groupRoles") ?? "")),
        });
        if (!parsed.success)
          return data<SsoAnswer>(
            {
              ssoAction: intent,
              ok: false,
              message: `Roles from IdP groups: each line is “group = role”, with owner, admin, publisher or viewer (${parsed.error.issues[0]?.message ?? "invalid"})`,
            },
            { status: 400 },
          );
        await updateSsoSettings(deps, source, { organization: params.orgSlug, ...parsed.data });
        return answer(true, "Sign-in settings saved");
      }
      if (intent === "create-scim-token") {
        const { token } = await createScimToken({ db, planLimits: deps.planLimits, clock }, source, {
          organization: params.orgSlug,
        });
        return answer(true, "SCIM token created", { scim: { token, baseUrl: `${deps.baseUrl}/scim/v2` } });
      }
      await revokeScimToken({ db }, source, {
        organization: params.orgSlug,
        id: String(formData.get("id") ?? ""),
      });
      return answer(true, "SCIM token revoked");
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return data<SsoAnswer>(
        { ssoAction: intent, ok: false, message: error.message, code: error.code },
        { status: apiErrorStatus[error.code] },
      );
    }
  }

  if (intent === "delete-organization") {
    const { org } = await orgOr404(db, actor, params.orgSlug);
    const submission = parseForm(formData, deleteOrgForm(org.slug));
    if (submission.status !== "success") return tag("delete", invalid(submission));
    try {
      await deleteOrganization({ db, clock }, source, { organization: org.slug });
    } catch (error) {
      return tag("delete", domainFailure(submission, error));
    }
    throw redirect(`/dashboard?orgDeleted=${encodeURIComponent(org.slug)}`);
  }
  return tag("rename", refused(parseForm(formData, renameOrgForm), 400, { formError: "Unknown action" }));
}

export default function OrgSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { org, role, can } = loaderData;
  const reply = actionData && "section" in actionData ? (actionData as Reply) : undefined;
  const createAnswer =
    actionData && "intent" in actionData && actionData.intent === "create"
      ? (actionData as CreateAnswer)
      : undefined;
  const created = createAnswer?.created ?? null;
  const [dismissed, setDismissed] = useState<string | null>(null);
  const showSecret = created && dismissed !== created.id;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  const toasted = useRef<Reply | undefined>(undefined);
  useEffect(() => {
    if (!reply || toasted.current === reply) return;
    toasted.current = reply;
    if (succeededReply(reply) && reply.message) toast.success(reply.message);
  }, [reply]);
  const [rename, renameFields] = useForm({
    id: "rename-organization",
    lastResult: reply?.section === "rename" ? reply.result : undefined,
    defaultValue: { name: org.name },
    onValidate: ({ formData }) => parseForm(formData, renameOrgForm),
  });
  const [remove, removeFields] = useForm({
    id: "delete-organization",
    lastResult: reply?.section === "delete" ? reply.result : undefined,
    onValidate: ({ formData }) => parseForm(formData, deleteOrgForm(org.slug)),
  });
  const [typed, setTyped] = useState("");

  return (
    <>
      <OrgHeader org={org} role={role} admin={can.admin} />
      <div className="grid max-w-2xl gap-6">
        {can.admin ? null : (
          <Alert data-testid="read-only">
            Your role ({role}) shows these settings read-only: the organization's admins and owners change
            them.
          </Alert>
        )}
        <Card>
          <CardHeader>
            <CardTitle>Name</CardTitle>
            <CardDescription>
              How the organization is shown. Its slug,{" "}
              <span className="font-mono text-foreground">{org.slug}</span>, stays: it is in its projects'
              release pages and repository URLs.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <Form method="post" id={rename.id} onSubmit={rename.onSubmit} className="grid gap-4" noValidate>
              <input type="hidden" name="intent" value="rename" />
              <FormAlert errors={rename.errors} code={reply?.code} />
              <fieldset disabled={!can.admin} className="grid min-w-0 gap-4">
                <FormField
                  label="Name"
                  name={renameFields.name.name}
                  autoComplete="organization"
                  maxLength={100}
                  defaultValue={renameFields.name.initialValue as string | undefined}
                  error={renameFields.name.errors?.[0]}
                />
                {can.admin ? (
                  <div>
                    <Button type="submit" disabled={busy}>
                      Save name
                    </Button>
                  </div>
                ) : null}
              </fieldset>
            </Form>
          </CardContent>
        </Card>

        {can.admin ? <DomainsCard domains={loaderData.domains} canOwn={can.own} /> : null}
        {loaderData.sso ? (
          <SsoCard
            providers={loaderData.sso.providers}
            settings={loaderData.sso.settings}
            verifiedDomains={loaderData.domains
              .filter((domain) => domain.verified)
              .map((domain) => domain.domain)}
            scimTokens={loaderData.sso.scimTokens}
            canOwn={can.own}
            planAllows={loaderData.sso.planAllows}
          />
        ) : null}

        {can.admin && showSecret ? (
          <NewSecret
            title={`The new API key “${created.name ?? "Unnamed key"}” of ${org.name}`}
            secret={created.key}
            actions={
              <Button variant="outline" onClick={() => setDismissed(created.id)}>
                Done
              </Button>
            }
          >
            <p className="text-sm text-muted-foreground">
              It belongs to {org.name}, not to you: it keeps working if you leave, until an admin deletes it.
            </p>
          </NewSecret>
        ) : null}
        {can.admin ? (
          <Card>
            <CardHeader>
              <CardTitle>API keys</CardTitle>
              <CardDescription>
                Keys of the organization for CI and machines, scoped to its projects. They keep working when
                the member who made them leaves; delete one when it is no longer needed.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <CreateKeyForm
                key={created?.id ?? "new"}
                projects={loaderData.projects}
                lastResult={created ? undefined : createAnswer?.result}
              />
            </CardContent>
          </Card>
        ) : null}
        {can.admin ? (
          <KeyList keys={loaderData.keys} projects={loaderData.projects} title="Organization keys" />
        ) : null}

        {can.own ? (
          <Card className="border-destructive/40">
            <CardHeader>
              <CardTitle>Delete organization</CardTitle>
              <CardDescription>
                Only an organization without projects can be deleted: transfer its projects (each project's
                Settings) or delete them first. Its API keys stop working, and its name stays reserved so
                nobody else publishes at the URLs its machines used.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <Form method="post" id={remove.id} onSubmit={remove.onSubmit} className="grid gap-4" noValidate>
                <input type="hidden" name="intent" value="delete-organization" />
                <FormAlert errors={remove.errors} code={reply?.code} />
                <FormField
                  label={`Type ${org.slug} to confirm`}
                  name={removeFields.confirm.name}
                  value={typed}
                  onChange={(e) => setTyped(e.target.value)}
                  autoComplete="off"
                  autoCapitalize="none"
                  spellCheck={false}
                  className="font-mono"
                  error={removeFields.confirm.errors?.[0]}
                />
                <div>
                  <Button type="submit" variant="destructive" disabled={busy || typed !== org.slug}>
                    Delete organization
                  </Button>
                </div>
              </Form>
            </CardContent>
          </Card>
        ) : null}
      </div>
    </>
  );
}
