// /projects/{projectSlug}/settings: the project's repository settings (decision 027) — how long
// its signing keys live, whether its APT Release files carry Valid-Until, and their Origin,
// Label and Codename — with the signing keys in use. Saved by this route's action through the
// same domain function as PATCH /api/v1/projects/{slug}/repository-settings. Below them, the
// retention rules (decision 034; components/dashboard/retention-settings.tsx), and the Transfer card
// (decision 040; components/dashboard/transfer-project.tsx). Only whoever manages the project
// (its owner, an organization's admins and owners) changes them; others see them read-only.
import { useForm } from "@conform-to/react";
import {
  keyExpiryDays,
  ROTATION_LEAD_DAYS,
  releaseCodename,
  transferProjectSchema,
  updateRepositorySettingsInput,
  validUntilDays,
} from "@packyard/contract";
import { useEffect, useRef } from "react";
import { Form, redirect, useNavigation } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { getRepositorySettings } from "../../../server/projects/repository-settings.ts";
import { transferProject, updateProjectRepositorySettings } from "../../../server/projects/use-cases.ts";
import { getRetentionSettings } from "../../../server/retention/settings.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { FormAlert } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { RetentionSettingsCard } from "../../components/dashboard/retention-settings.tsx";
import { TransferProjectCard, type TransferTarget } from "../../components/dashboard/transfer-project.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import {
  domainFailure,
  invalid,
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectPlace,
  projectRef,
  sessionActor,
  sessionCaller,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm, succeededReply, text } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { listOrganizations } from "../../lib/orgs.server.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { type RetentionReply, retentionAction } from "../../lib/retention.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-settings";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.name} settings` : "Project settings",
    noindex: true,
  });

/** A number of days; empty: none. Anything else reaches the schema as NaN, which it refuses. */
function optionalDays<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => {
    const typed = typeof value === "string" ? value.trim() : "";
    return typed === "" ? null : Number(typed);
  }, schema.nullable());
}

const settingsForm = z
  .object({
    keyExpiryDays: optionalDays(keyExpiryDays),
    aptValidUntil: z.preprocess((value) => value === "on", z.boolean()),
    aptValidUntilDays: optionalDays(validUntilDays),
    aptOrigin: text(updateRepositorySettingsInput.shape.aptOrigin),
    aptLabel: text(updateRepositorySettingsInput.shape.aptLabel),
    aptCodename: text(releaseCodename.nullable().transform((v) => (v === "" ? null : v))),
  })
  .superRefine((value, ctx) => {
    if (value.aptValidUntil && value.aptValidUntilDays === null)
      ctx.addIssue({
        code: "custom",
        path: ["aptValidUntilDays"],
        message: "Enter how many days a signed Release stays valid",
      });
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, keys, clock } = services(context);
  const actor = sessionActor(user);
  const ref = projectRef(params, user);
  const row = await projectPageOr404(database.db, user, params, url);
  const settings = await getRepositorySettings(database.db, actor, ref);
  const place = await projectPlace(database.db, row);
  const can = await projectPermissions(database.db, actor, row);
  const now = clock().getTime();
  const signing = (await keys.all(row.id))
    .filter((key) => key.retire_at === null || Date.parse(key.retire_at) > now)
    .map((key) => ({
      fingerprint: key.fingerprint,
      algorithm: key.algorithm,
      createdAt: key.created_at,
      retireAt: key.retire_at,
      expiresAt: key.expires_at,
    }));
  const retention = await getRetentionSettings(database.db, row.id);
  // Where it may go: the organizations the user administers, or back to their own account.
  const transferTargets: TransferTarget[] = (await listOrganizations(database.db, user.id))
    .filter((org) => (org.role === "owner" || org.role === "admin") && org.slug !== place.owner)
    .map((org) => ({ owner: org.slug, label: `${org.name} (${org.slug})` }));
  if (place.ownerKind === "organization")
    transferTargets.push({ owner: user.username, label: `Personal (${user.username})` });
  return {
    ...place,
    name: row.name,
    settings,
    keys: signing,
    retention,
    can,
    transferTargets: can.manage ? transferTargets : [],
  };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database } = services(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const ref = projectRef(params, user);
  const actor = sessionActor(user);
  const caller = sessionCaller(user, clientAddress(context));
  const { project, refusal } = await projectForAction(database.db, actor, ref, "manage", formData);
  if (refusal) return refusal;
  if (intent === "retention-save" || intent === "retention-preview") {
    return retentionAction(services(context), user, project, formData, clientAddress(context));
  }
  if (intent === "transfer") {
    const submission = parseForm(formData, transferProjectSchema);
    if (submission.status !== "success") return invalid(submission);
    let moved: Awaited<ReturnType<typeof transferProject>>;
    try {
      moved = await transferProject({ db: database.db, limits: services(context).config }, caller, {
        project: ref,
        owner: submission.value.owner,
      });
    } catch (error) {
      return domainFailure(submission, error, { VALIDATION_FAILED: "owner" });
    }
    throw redirect(`${projectPath(moved)}?transferred=1`);
  }
  const submission = parseForm(formData, settingsForm);
  if (submission.status !== "success") return invalid(submission);
  const value = submission.value;
  try {
    await updateProjectRepositorySettings({ db: database.db }, caller, {
      project: ref,
      settings: {
        keyExpiryDays: value.keyExpiryDays,
        aptValidUntilDays: value.aptValidUntil ? value.aptValidUntilDays : null,
        aptOrigin: value.aptOrigin ?? null,
        aptLabel: value.aptLabel ?? null,
        aptCodename: value.aptCodename ?? null,
      },
    });
  } catch (error) {
    return domainFailure(submission, error);
  }
  return succeeded(submission, "Repository settings saved");
}

export default function ProjectSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { name, settings, keys, retention, can, transferTargets } = loaderData;
  const { defaults } = settings;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  const [form, fields] = useForm({
    id: "repository-settings",
    // A retention answer (form: "retention") is the retention section's, not this form's.
    lastResult: actionData && !("form" in actionData) ? actionData.result : undefined,
    defaultValue: {
      keyExpiryDays: settings.keyExpiryDays === null ? "" : String(settings.keyExpiryDays),
      aptValidUntil: settings.aptValidUntilDays === null ? "" : "on",
      aptValidUntilDays: String(settings.aptValidUntilDays ?? 7),
      // Empty when the default applies: the placeholder shows it.
      aptOrigin: settings.aptOrigin === defaults.aptOrigin ? "" : settings.aptOrigin,
      aptLabel: settings.aptLabel === defaults.aptLabel ? "" : settings.aptLabel,
      aptCodename: settings.aptCodename === defaults.aptCodename ? "" : settings.aptCodename,
    },
    onValidate: ({ formData }) => parseForm(formData, settingsForm),
  });
  const toasted = useRef<FormReply | undefined>(undefined);
  useEffect(() => {
    if (!actionData || toasted.current === actionData) return;
    toasted.current = actionData;
    if (succeededReply(actionData) && actionData.message) toast.success(actionData.message);
  }, [actionData]);

  return (
    <>
      <Breadcrumbs items={projectCrumbs(loaderData, "Settings")} />
      <ProjectTabs base={projectPath(loaderData)} oversee={can.manage} />
      <PageHeader
        title="Repository settings"
        description="How this project's APT and YUM repositories are signed, and what apt is told about them."
      />
      <div className="grid max-w-2xl gap-6">
        {can.manage ? null : (
          <Alert data-testid="read-only">
            Your role in {loaderData.owner} ({can.role}) shows these settings read-only: its admins and owners
            change them.
          </Alert>
        )}
        <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-6" noValidate>
          <FormAlert errors={form.errors} code={actionData?.code} />
          <fieldset disabled={!can.manage} className="grid min-w-0 gap-6">
            <Card>
              <CardHeader>
                <CardTitle>Signing keys</CardTitle>
                <CardDescription>
                  {`A key with an expiry gets its successor ${ROTATION_LEAD_DAYS} days before it expires; both sign during a 7-day overlap, and you are mailed 30 and 7 days before. Applies to keys made from now on.`}
                </CardDescription>
              </CardHeader>
              <CardContent className="grid gap-4">
                <FormField
                  label="Key expiry (days)"
                  name={fields.keyExpiryDays.name}
                  inputMode="numeric"
                  placeholder="Never"
                  defaultValue={fields.keyExpiryDays.initialValue as string}
                  error={fields.keyExpiryDays.errors?.[0]}
                  hint="Empty: keys never expire. For example 365 or 730."
                  className="max-w-40"
                />
                <ul className="grid gap-3 text-sm" aria-label="Keys signing now">
                  {keys.map((key) => (
                    <li key={key.fingerprint} className="grid gap-1 rounded-md border border-border p-3">
                      <span className="break-all font-mono text-xs sm:text-sm">{key.fingerprint}</span>
                      <span className="text-muted-foreground">
                        {key.algorithm === "ed25519" ? "Ed25519" : "RSA 3072"} · made{" "}
                        <FormattedDate iso={key.createdAt} />
                        {key.expiresAt ? (
                          <>
                            {" "}
                            · expires <FormattedDate iso={key.expiresAt} />
                          </>
                        ) : (
                          " · never expires"
                        )}
                        {key.retireAt ? (
                          <>
                            {" "}
                            · signs until <FormattedDate iso={key.retireAt} withTime />
                          </>
                        ) : null}
                      </span>
                    </li>
                  ))}
                </ul>
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>APT Release file</CardTitle>
                <CardDescription>
                  Empty fields use the default shown. apt remembers Origin, Label and Codename: machines that
                  already use the repository refuse a change until they run{" "}
                  <code className="font-mono text-foreground">apt-get update --allow-releaseinfo-change</code>
                  .
                </CardDescription>
              </CardHeader>
              <CardContent className="grid gap-4">
                <div className="grid gap-2">
                  <label className="flex items-center gap-2 text-sm font-medium">
                    <input
                      type="checkbox"
                      name={fields.aptValidUntil.name}
                      defaultChecked={fields.aptValidUntil.initialValue === "on"}
                      className="size-4 accent-primary"
                    />
                    Add Valid-Until
                  </label>
                  <p className="text-sm text-muted-foreground">
                    apt refuses a Release past its Valid-Until, so a stale mirror or a replayed old index is
                    noticed. Packyard signs again when half the period has passed.
                  </p>
                </div>
                <FormField
                  label="Valid-Until period (days)"
                  name={fields.aptValidUntilDays.name}
                  inputMode="numeric"
                  defaultValue={fields.aptValidUntilDays.initialValue as string}
                  error={fields.aptValidUntilDays.errors?.[0]}
                  className="max-w-40"
                />
                <FormField
                  label="Origin"
                  name={fields.aptOrigin.name}
                  placeholder={defaults.aptOrigin}
                  autoComplete="off"
                  maxLength={100}
                  defaultValue={fields.aptOrigin.initialValue as string}
                  error={fields.aptOrigin.errors?.[0]}
                />
                <FormField
                  label="Label"
                  name={fields.aptLabel.name}
                  placeholder={defaults.aptLabel}
                  autoComplete="off"
                  maxLength={100}
                  defaultValue={fields.aptLabel.initialValue as string}
                  error={fields.aptLabel.errors?.[0]}
                />
                <FormField
                  label="Codename"
                  name={fields.aptCodename.name}
                  placeholder={defaults.aptCodename}
                  autoComplete="off"
                  autoCapitalize="none"
                  spellCheck={false}
                  maxLength={64}
                  className="font-mono"
                  defaultValue={fields.aptCodename.initialValue as string}
                  error={fields.aptCodename.errors?.[0]}
                  hint="Of the default suite, stable. Other suites keep their name as codename."
                />
              </CardContent>
            </Card>
            {can.manage ? (
              <Button type="submit" className="justify-self-start" disabled={busy}>
                {busy ? "Saving…" : "Save settings"}
              </Button>
            ) : null}
          </fieldset>
        </Form>
        {can.manage ? (
          <>
            <RetentionSettingsCard
              settings={retention}
              posted={
                actionData && "form" in actionData ? (actionData as unknown as RetentionReply) : undefined
              }
            />
            <TransferProjectCard project={{ ...loaderData, name }} targets={transferTargets} />
          </>
        ) : null}
      </div>
    </>
  );
}
