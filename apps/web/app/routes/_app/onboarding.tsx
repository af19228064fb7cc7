// /onboarding: a signed-in user without a username picks one (spec §5), then goes to the
// dashboard with the plan they chose carried along.

import { onboardingSchema } from "@packyard/contract/account.ts";
import { planParams } from "@packyard/contract/plans.ts";
import { data, Form, redirect, useNavigation } from "react-router";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { pageMeta } from "../../lib/meta.ts";
import { completeOnboarding, UsernameTakenError } from "../../lib/onboarding.server.ts";
import { requireUser, services } from "../../lib/session.server.ts";
import { fieldErrors } from "../../lib/validation.ts";
import type { Route } from "./+types/onboarding";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Welcome",
    noindex: true,
  });

function dashboardUrl(search: URLSearchParams) {
  const params = planParams(search);
  params.set("welcome", "1");
  return `/dashboard?${params}`;
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser(request, context, url);
  if (user.username) throw redirect(dashboardUrl(url.searchParams));
  return { name: user.name };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireUser(request, context, url);
  const form = await request.formData();
  const values = { name: String(form.get("name") ?? ""), username: String(form.get("username") ?? "") };
  const parsed = onboardingSchema.safeParse(values);
  if (!parsed.success) return data({ errors: fieldErrors(parsed.error), values }, { status: 400 });
  try {
    await completeOnboarding(services(context).database.db, user.id, parsed.data);
  } catch (error) {
    if (error instanceof UsernameTakenError) {
      return data({ errors: { username: error.message }, values }, { status: 409 });
    }
    throw error;
  }
  throw redirect(dashboardUrl(url.searchParams));
}

export default function Onboarding({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const errors: Record<string, string | undefined> = actionData?.errors ?? {};
  return (
    <AuthShell
      title="Set up your account"
      description="Your username appears in your public release pages and repository URLs."
    >
      <Form method="post" className="grid gap-4" noValidate>
        <FormField
          label="Full name"
          name="name"
          autoComplete="name"
          defaultValue={actionData?.values.name ?? loaderData.name}
          error={errors.name}
        />
        <FormField
          label="Username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          defaultValue={actionData?.values.username}
          error={errors.username}
          hint="3 to 30 lowercase letters, numbers and hyphens."
        />
        <Button type="submit" disabled={navigation.state !== "idle"}>
          Continue
        </Button>
      </Form>
    </AuthShell>
  );
}
