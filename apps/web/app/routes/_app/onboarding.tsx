// /onboarding: a signed-in user without a username picks one (spec §5), then goes to the
// dashboard with the plan they chose carried along — or, having chosen Starter or Pro on a
// server with Stripe, straight to Stripe Checkout for that plan and period.

import { useForm } from "@conform-to/react";
import { onboardingSchema } from "@packyard/contract/account.ts";
import { planParams } from "@packyard/contract/plans.ts";
import { data, Form, redirect, useNavigation, useSearchParams } from "react-router";
import { z } from "zod";
import { BillingError, startCheckout } from "../../../server/billing/account.ts";
import { AuthShell } from "../../components/auth-shell.tsx";
import { ChosenPlan } from "../../components/chosen-plan.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { paidChoice } from "../../lib/billing.ts";
import { parseForm, text } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { completeOnboarding, UsernameTakenError } from "../../lib/onboarding.server.ts";
import { safeRedirectPath } from "../../lib/redirects.ts";
import { requireUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/onboarding";

const onboardingForm = z.object({
  name: text(onboardingSchema.shape.name),
  username: text(onboardingSchema.shape.username),
});

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Welcome",
    noindex: true,
  });

function dashboardUrl(search: URLSearchParams) {
  // Where the visitor was going before sign-in sent them here (a path on this site only).
  const target = safeRedirectPath(search.get("redirect"), "");
  if (target && !target.startsWith("/onboarding")) return target;
  const params = planParams(search);
  params.set("welcome", "1");
  return `/dashboard?${params}`;
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser(request, context, url);
  if (user.username) throw redirect(dashboardUrl(url.searchParams));
  return { name: user.name, payments: Boolean(services(context).config.stripe) };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireUser(request, context, url);
  const submission = parseForm(await request.formData(), onboardingForm);
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400 });
  try {
    await completeOnboarding(services(context).database.db, user.id, submission.value);
  } catch (error) {
    if (error instanceof UsernameTakenError) {
      return data(
        { result: submission.reply({ fieldErrors: { username: [error.message] } }) },
        { status: 409 },
      );
    }
    throw error;
  }
  throw redirect(await afterOnboarding(request, context, url.searchParams));
}

/** Checkout for a chosen paid plan when Stripe is configured; otherwise the dashboard. */
async function afterOnboarding(
  request: Request,
  context: Route.ActionArgs["context"],
  search: URLSearchParams,
) {
  const choice = paidChoice(search);
  const svc = services(context);
  if (!choice || !svc.config.stripe) return dashboardUrl(search);
  try {
    return await startCheckout(svc, request.headers, choice);
  } catch (error) {
    if (!(error instanceof BillingError)) throw error;
    svc.logger.warn(`checkout after onboarding: ${error.message}`);
    // The plan waits on /subscription, with its "Continue to checkout".
    return `/subscription?${new URLSearchParams({ plan: choice.plan, annual: String(choice.annual) })}`;
  }
}

export default function Onboarding({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const [search] = useSearchParams();
  const [form, fields] = useForm({
    lastResult: actionData?.result,
    defaultValue: { name: loaderData.name },
    onValidate: ({ formData }) => parseForm(formData, onboardingForm),
  });
  return (
    <AuthShell
      title="Set up your account"
      description="Your username appears in your public release pages and repository URLs."
    >
      <ChosenPlan
        search={search}
        payments={loaderData.payments}
        next="Continue takes you to checkout for it."
        className="mb-5"
      />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-4" noValidate>
        <FormField
          label="Full name"
          name={fields.name.name}
          autoComplete="name"
          defaultValue={fields.name.defaultValue}
          error={fields.name.errors?.[0]}
        />
        <FormField
          label="Username"
          name={fields.username.name}
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          defaultValue={fields.username.defaultValue}
          error={fields.username.errors?.[0]}
          hint="3 to 30 lowercase letters, numbers and hyphens."
        />
        <Button type="submit" disabled={navigation.state !== "idle"}>
          Continue
        </Button>
      </Form>
    </AuthShell>
  );
}
