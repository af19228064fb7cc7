// /orgs/new: create an organization (decision 040). Its slug shares the namespace of usernames
// (it appears in /releases/{owner}/… and /dl/{owner}/… the same way); the creator is its owner.
import { useForm } from "@conform-to/react";
import { USERNAME_MAX, USERNAME_MIN } from "@packyard/contract/profile.ts";
import { useState } from "react";
import { Form, redirect, useNavigation } from "react-router";
import { FormAlert } from "../../components/dashboard/project-dialogs.tsx";
import { slugify } from "../../components/dashboard/project-fields.tsx";
import { newOrgForm } from "../../components/orgs/forms.ts";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { domainFailure, invalid, sessionCaller } from "../../lib/dashboard.server.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { createOrganization } from "../../lib/orgs.server.ts";
import { orgPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-new";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "New organization",
    noindex: true,
  });

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const submission = parseForm(await request.formData(), newOrgForm);
  if (submission.status !== "success") return invalid(submission);
  const { database, clock } = services(context);
  let created: Awaited<ReturnType<typeof createOrganization>>;
  try {
    created = await createOrganization(
      { db: database.db, clock },
      sessionCaller(user, clientAddress(context)),
      submission.value,
    );
  } catch (error) {
    return domainFailure(submission, error, { NAME_TAKEN: "slug" });
  }
  throw redirect(`${orgPath(created.slug)}?created=1`);
}

export default function NewOrganization({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  const [form, fields] = useForm({
    id: "new-organization",
    lastResult: actionData?.result,
    onValidate: ({ formData }) => parseForm(formData, newOrgForm),
  });
  // The slug follows the name, as in the New project dialog, until it is edited by hand.
  const [name, setName] = useState((fields.name.initialValue as string | undefined) ?? "");
  const [slug, setSlug] = useState((fields.slug.initialValue as string | undefined) ?? "");
  const [slugEdited, setSlugEdited] = useState(slug !== "");
  return (
    <>
      <PageHeader
        title="New organization"
        description="An organization owns projects that several people publish to, each with a role. It keeps its projects when someone leaves."
      />
      <Card className="max-w-2xl">
        <CardContent className="pt-6">
          <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-5" noValidate>
            <FormAlert errors={form.errors} code={actionData?.code} />
            <FormField
              label="Name"
              name={fields.name.name}
              autoComplete="organization"
              maxLength={100}
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                if (!slugEdited) setSlug(slugify(event.target.value, USERNAME_MAX));
              }}
              error={fields.name.errors?.[0]}
              hint="How the organization is shown, e.g. Acme Corp."
            />
            <FormField
              label="Slug"
              name={fields.slug.name}
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              className="font-mono"
              maxLength={USERNAME_MAX}
              value={slug}
              onChange={(event) => {
                setSlug(event.target.value);
                setSlugEdited(true);
              }}
              error={fields.slug.errors?.[0]}
              hint={`Its name in URLs, e.g. /releases/acme/…: ${USERNAME_MIN} to ${USERNAME_MAX} letters, numbers, underscores and hyphens, not taken by a user or another organization.`}
            />
            <div>
              <Button type="submit" disabled={busy}>
                {busy ? "Creating…" : "Create organization"}
              </Button>
            </div>
          </Form>
        </CardContent>
      </Card>
    </>
  );
}
