// /billing/cancel: where Stripe Checkout sends the user who went back. Nothing was charged; the
// same plan and period can be tried again at once.

import { plans } from "@packyard/contract/plans.ts";
import { CircleX } from "lucide-react";
import { Link } from "react-router";
import { StripeRedirectButton } from "../../components/billing/billing-forms.tsx";
import { EmptyState } from "../../components/empty-state.tsx";
import { Button } from "../../components/ui/button.tsx";
import { billingAccount } from "../../lib/billing.server.ts";
import { paidChoice } from "../../lib/billing.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/billing-cancel";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Checkout canceled",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const payments = Boolean(services(context).config.stripe);
  const choice = payments ? paidChoice(url.searchParams) : undefined;
  // A checkout for an organization (?org=) is tried again for it (decision 040).
  const { org } = await billingAccount(context, user.id, url);
  return { choice: choice ?? null, org: org ? { slug: org.slug, name: org.name } : null };
}

export default function BillingCancel({ loaderData }: Route.ComponentProps) {
  const { choice, org } = loaderData;
  const subscription = org ? `/subscription?org=${encodeURIComponent(org.slug)}` : "/subscription";
  return (
    <EmptyState
      titleAs="h1"
      icon={CircleX}
      title="Checkout canceled"
      action={
        <div className="flex flex-wrap justify-center gap-2">
          {choice ? (
            <StripeRedirectButton
              intent="checkout"
              plan={choice.plan}
              annual={choice.annual}
              action={subscription}
            >
              Try again
            </StripeRedirectButton>
          ) : null}
          <Button asChild variant={choice ? "outline" : "default"}>
            <Link to={subscription}>{choice ? "Compare plans" : "Choose a plan"}</Link>
          </Button>
        </div>
      }
    >
      <span data-testid="checkout-canceled">
        Nothing was charged
        {choice
          ? ` and ${org ? `${org.name} is` : "you are"} still on ${org ? "its" : "your"} current plan. Try ${plans[choice.plan].name} (${choice.annual ? "annual" : "monthly"}) again whenever you are ready.`
          : ". You can pick a plan again whenever you are ready."}
      </span>
    </EmptyState>
  );
}
