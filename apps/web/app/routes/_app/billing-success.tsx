// /billing/success?session_id=…: where Stripe Checkout sends the user back. The loader asks
// Stripe for the checkout session and, once it is paid, applies the subscription at once (the
// webhook may not have arrived yet; applying twice changes nothing), then shows the new plan.

import { plans } from "@packyard/contract/plans.ts";
import { CircleCheck, Clock, SearchX, TriangleAlert } from "lucide-react";
import { Link } from "react-router";
import { BillingError, confirmCheckout } from "../../../server/billing/account.ts";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { EmptyState } from "../../components/empty-state.tsx";
import { Button } from "../../components/ui/button.tsx";
import { organizationOf, planView } from "../../lib/billing.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/billing-success";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData?.state === "complete" ? "Payment received" : "Checking your payment",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const svc = services(context);
  // Said on the page, not by a silent redirect: someone who lands here expects a payment.
  if (!svc.config.stripe) return { state: "no-payments" as const };
  const sessionId = url.searchParams.get("session_id");
  if (!sessionId) return { state: "not-found" as const };
  try {
    const confirmed = await confirmCheckout(svc, user.id, sessionId);
    if (confirmed.state !== "complete") return { state: confirmed.state };
    // An organization's plan, when an owner subscribed for it (decision 040).
    const org =
      confirmed.account && confirmed.account !== user.id
        ? await organizationOf(context, confirmed.account)
        : undefined;
    return { state: "complete" as const, plan: planView(confirmed.plan), org: org ?? null };
  } catch (error) {
    if (!(error instanceof BillingError)) throw error;
    svc.logger.warn(`confirming checkout ${sessionId}: ${error.message}`);
    return { state: "error" as const };
  }
}

export default function BillingSuccess({ loaderData }: Route.ComponentProps) {
  const result = loaderData;
  if (result.state === "complete") {
    const { plan, org } = result;
    return (
      <EmptyState
        titleAs="h1"
        icon={CircleCheck}
        title={`${org ? `${org.name} is` : "You are"} on ${plans[plan.plan].name}`}
        action={
          <div className="flex flex-wrap justify-center gap-2">
            <Button asChild>
              <Link to="/dashboard">Go to the dashboard</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to={org ? `/billing?org=${org.slug}` : "/billing"}>Billing and invoices</Link>
            </Button>
          </div>
        }
      >
        <span data-testid="checkout-confirmed">
          Thank you, your payment went through. {plans[plan.plan].name} is active now
          {plan.source === "subscription" && plan.annual !== undefined
            ? `, billed ${plan.annual ? "annually" : "monthly"}`
            : ""}
          {plan.periodEnd ? (
            <>
              ; it renews on <FormattedDate iso={plan.periodEnd} />
            </>
          ) : null}
          . A receipt is on the Billing page.
        </span>
      </EmptyState>
    );
  }
  if (result.state === "open") {
    return (
      <EmptyState
        titleAs="h1"
        icon={Clock}
        title="Waiting for the payment"
        action={
          <div className="flex flex-wrap justify-center gap-2">
            <Button asChild>
              <Link to="." reloadDocument>
                Check again
              </Link>
            </Button>
            <Button asChild variant="outline">
              <Link to="/subscription">Back to the plans</Link>
            </Button>
          </div>
        }
      >
        Stripe has not confirmed this payment yet. If you completed it, check again in a moment; nothing is
        charged twice.
      </EmptyState>
    );
  }
  if (result.state === "expired") {
    return (
      <EmptyState
        titleAs="h1"
        icon={Clock}
        title="This checkout expired"
        action={
          <Button asChild>
            <Link to="/subscription">Choose a plan</Link>
          </Button>
        }
      >
        Nothing was charged. Start again from your plans whenever you are ready.
      </EmptyState>
    );
  }
  if (result.state === "error") {
    return (
      <EmptyState
        titleAs="h1"
        icon={TriangleAlert}
        title="Stripe could not be reached"
        action={
          <Button asChild>
            <Link to="." reloadDocument>
              Try again
            </Link>
          </Button>
        }
      >
        Your payment, if you made it, is safe: the plan is applied as soon as Stripe answers.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      titleAs="h1"
      icon={SearchX}
      title="No checkout to confirm"
      action={
        <Button asChild>
          <Link to="/subscription">Go to Subscription</Link>
        </Button>
      }
    >
      {result.state === "no-payments"
        ? "This server takes no payments, so nothing was charged. Your current plan is on the Subscription page."
        : "This link does not name a checkout of yours. Your current plan is on the Subscription page."}
    </EmptyState>
  );
}
