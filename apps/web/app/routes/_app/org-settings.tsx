// /orgs/{orgSlug}/settings: rename the organization (admins and owners) and delete it (owners,
// once it owns no project: ORG_NOT_EMPTY says to transfer or delete them first). Its slug stays:
// it is in its projects' public URLs.
import { useForm } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { toast } from "sonner";
import { FormAlert } from "../../components/dashboard/project-dialogs.tsx";
import { deleteOrgForm, renameOrgForm } from "../../components/orgs/forms.ts";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import {
  domainFailure,
  invalid,
  refused,
  sessionActor,
  sessionAudit,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm, succeededReply } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import {
  auditOrgAction,
  deleteOrganization,
  orgAbilities,
  orgOr404,
  updateOrganization,
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
  const { org, role } = await orgOr404(services(context).database.db, actor, params.orgSlug);
  return { org: { slug: org.slug, name: org.name }, role, can: orgAbilities(actor, role) };
}

type Reply = FormReply & { section: "rename" | "delete" };

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const source = sessionAudit(user, clientAddress(context));
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const tag = (section: Reply["section"], reply: ReturnType<typeof succeeded>) =>
    data<Reply>({ ...reply.data, section }, reply.init ?? undefined);

  if (intent === "rename") {
    const submission = parseForm(formData, renameOrgForm);
    if (submission.status !== "success") return tag("rename", invalid(submission));
    try {
      const { org } = await orgOr404(db, actor, params.orgSlug);
      const updated = await updateOrganization(db, actor, params.orgSlug, submission.value, clock);
      if (updated.name !== org.name)
        await auditOrgAction(db, source, org.id, "organization.renamed", org.slug, {
          from: org.name,
          to: updated.name,
        });
    } catch (error) {
      return tag("rename", domainFailure(submission, error));
    }
    return tag("rename", succeeded(submission, "Organization renamed"));
  }
  if (intent === "delete") {
    const { org } = await orgOr404(db, actor, params.orgSlug);
    const submission = parseForm(formData, deleteOrgForm(org.slug));
    if (submission.status !== "success") return tag("delete", invalid(submission));
    try {
      await deleteOrganization(db, actor, org.slug, clock);
    } catch (error) {
      return tag("delete", domainFailure(submission, error));
    }
    // The organization's log goes with it: the deletion is in the deleting member's own.
    await auditOrgAction(db, source, user.id, "organization.deleted", org.slug, { organizationId: org.id });
    throw redirect(`/dashboard?orgDeleted=${encodeURIComponent(org.slug)}`);
  }
  return tag("rename", refused(parseForm(formData, renameOrgForm), 400, { formError: "Unknown action" }));
}

export default function OrgSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { org, role, can } = loaderData;
  const reply = actionData as Reply | undefined;
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
      <OrgHeader org={org} role={role} />
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
                <input type="hidden" name="intent" value="delete" />
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
