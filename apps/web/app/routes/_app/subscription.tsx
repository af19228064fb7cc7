// /subscription: the account's plan (from accountPlan: the operator's, the Stripe
// subscription's or Basic), its period and renewal or end date; subscribe through Checkout,
// switch plan or period (prorated by Stripe), cancel at period end and resume. Without Stripe
// configured, the plan the operator set and how they set it.

import { type PlanId, parseAnnual, plans } from "@packyard/contract/plans.ts";
import { CalendarClock, ShieldCheck } from "lucide-react";
import { Link, useSearchParams } from "react-router";
import { usageSummary } from "../../../server/billing/usage.ts";
import { ConfirmedBillingButton, StripeRedirectButton } from "../../components/billing/billing-forms.tsx";
import { PastDueBanner } from "../../components/billing/past-due-banner.tsx";
import { UsageBars } from "../../components/billing/usage-bars.tsx";
import { FormattedDate, formatDate } from "../../components/dashboard/formatted-date.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { PlanCards } from "../../components/plan-cards.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Badge } from "../../components/ui/badge.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import {
  billingAccount,
  billingAction,
  type SubscriptionPageData,
  subscriptionPageData,
} from "../../lib/billing.server.ts";
import { paidChoice, SET_PLAN_COMMAND } from "../../lib/billing.ts";
import { formatCurrency } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import { cn } from "../../lib/utils.ts";
import type { Route } from "./+types/subscription";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Subscription",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const account = await billingAccount(context, user.id, url);
  return {
    ...(await subscriptionPageData(context, account.id)),
    // The same numbers as /dashboard: usage against each limit of the plan in force (an
    // organization's: over its projects).
    usageSummary: await usageSummary(database.db, config, account.id),
    org: account.org ?? null,
  };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  return billingAction(request, context, await billingAccount(context, user.id, url));
}

const STATUS_LABELS: Record<
  string,
  { label: string; variant: "success" | "warning" | "destructive" | "secondary" }
> = {
  active: { label: "Active", variant: "success" },
  trialing: { label: "Trial", variant: "success" },
  past_due: { label: "Payment failed", variant: "warning" },
  canceled: { label: "Ended", variant: "secondary" },
  incomplete: { label: "Awaiting payment", variant: "warning" },
  incomplete_expired: { label: "Expired", variant: "secondary" },
  unpaid: { label: "Unpaid", variant: "destructive" },
  paused: { label: "Paused", variant: "secondary" },
};

function priceLine(plan: PlanId, annual: boolean) {
  const price = annual ? plans[plan].annualPrice : plans[plan].monthlyPrice;
  return price === 0 ? "Free" : `${formatCurrency(price)} / ${annual ? "year" : "month"}`;
}

export default function Subscription({ loaderData, actionData }: Route.ComponentProps) {
  const page = loaderData;
  const [search] = useSearchParams();
  const current = page.plan;
  const billedAnnually = page.paying ? Boolean(page.subscription?.annual) : false;
  const annual = parseAnnual(search.get("annual")) ?? (page.paying ? billedAnnually : false);
  const choice = paidChoice(search);
  const periodLink = (value: boolean) => {
    const next = new URLSearchParams(search);
    next.set("annual", String(value));
    return `?${next}`;
  };
  return (
    <>
      <PageHeader
        title={page.org ? `Subscription of ${page.org.name}` : "Subscription"}
        description={
          page.org
            ? `The plan of the organization ${page.org.slug}: its own limits, counted over its projects, paid by one of its owners. Members are not charged.`
            : "Your plan, what it costs and when it renews. Public projects and repository signing are included on every plan."
        }
      />
      {page.notice ? <PastDueBanner plan={page.notice.plan} /> : null}
      {actionData && !actionData.ok ? (
        <Alert variant="error" className="mb-6">
          {actionData.error}
        </Alert>
      ) : null}
      {choice && page.payments && !page.paying ? (
        <Card className="mb-6 border-primary ring-1 ring-primary" data-testid="checkout-prompt">
          <CardHeader>
            <CardTitle>Continue to checkout</CardTitle>
            <CardDescription>
              You chose {plans[choice.plan].name}, billed {choice.annual ? "annually" : "monthly"}:{" "}
              {priceLine(choice.plan, choice.annual)}. Stripe takes the payment; you come back here when it is
              done.
            </CardDescription>
          </CardHeader>
          <CardContent className="flex flex-wrap gap-2">
            <StripeRedirectButton intent="checkout" plan={choice.plan} annual={choice.annual}>
              Pay with Stripe
            </StripeRedirectButton>
            <Button asChild variant="outline">
              <Link to={page.org ? `/subscription?org=${page.org.slug}` : "/subscription"}>Not now</Link>
            </Button>
          </CardContent>
        </Card>
      ) : null}
      <CurrentPlan page={page} />
      <UsageBars usage={loaderData.usageSummary} className="my-6" />
      <div className="mt-10 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h2 className="text-lg font-semibold tracking-tight">{page.paying ? "Change plan" : "Plans"}</h2>
          <p className="text-sm text-muted-foreground">
            {page.paying
              ? "Stripe prorates a change: the unused part of this period counts towards the new price."
              : page.payments
                ? "Paid plans are billed through Stripe, monthly or annually."
                : "This server takes no payments: its operator sets plans."}
          </p>
        </div>
        <nav
          aria-label="Billing period"
          className="inline-flex self-start rounded-lg border border-border p-1"
        >
          {[false, true].map((value) => (
            <Link
              key={String(value)}
              to={periodLink(value)}
              replace
              preventScrollReset
              aria-current={annual === value ? "page" : undefined}
              className={cn(
                "rounded-md px-3 py-1 text-sm font-medium",
                annual === value
                  ? "bg-primary text-primary-foreground"
                  : "text-muted-foreground hover:text-foreground",
              )}
            >
              {value ? "Annual" : "Monthly"}
            </Link>
          ))}
        </nav>
      </div>
      <div className="mt-4">
        <PlanCards
          current={current.plan}
          annual={annual}
          highlight={choice?.plan}
          action={(plan) => <PlanAction page={page} plan={plan} annual={annual} />}
        />
      </div>
      {!page.payments ? (
        <p className="mt-6 text-sm text-muted-foreground" data-testid="operator-hint">
          The operator of this server puts an account on a plan with{" "}
          <code className="break-words rounded bg-muted px-1.5 py-0.5 font-mono text-xs">
            {SET_PLAN_COMMAND}
          </code>
        </p>
      ) : null}
    </>
  );
}

function CurrentPlan({ page }: { page: SubscriptionPageData & { org: { slug: string } | null } }) {
  const current = page.plan;
  const plan = plans[current.plan];
  const sub = page.subscription;
  const status = current.status ? STATUS_LABELS[current.status] : undefined;
  return (
    <Card data-testid="current-plan">
      <CardHeader className="gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="grid gap-1.5">
          <CardDescription>Current plan</CardDescription>
          <CardTitle className="flex flex-wrap items-center gap-2 text-2xl">
            <span data-testid="current-plan-name">{plan.name}</span>
            {status ? <Badge variant={status.variant}>{status.label}</Badge> : null}
            {current.source === "subscription" && current.cancelAtPeriodEnd ? (
              <Badge variant="warning">Cancels at period end</Badge>
            ) : null}
          </CardTitle>
          <p className="text-sm text-muted-foreground">
            {current.source === "subscription"
              ? `${priceLine(current.plan, Boolean(current.annual))}, billed ${current.annual ? "annually" : "monthly"}`
              : current.source === "operator"
                ? "Set by the operator of this server"
                : "Free: unlimited public projects, 1 private project"}
          </p>
        </div>
        {current.source === "subscription" ? (
          <div className="flex flex-col gap-2 sm:flex-row">
            {current.cancelAtPeriodEnd ? (
              <ConfirmedBillingButton
                intent="resume"
                title="Resume your subscription?"
                description={<p>It renews at the end of the period as before, at the same price.</p>}
                confirmLabel="Resume subscription"
                className="w-full sm:w-auto"
              >
                Resume subscription
              </ConfirmedBillingButton>
            ) : (
              <ConfirmedBillingButton
                intent="cancel"
                variant="outline"
                destructive
                title="Cancel at the end of the period?"
                description={
                  <>
                    <p>
                      You keep {plan.name} until{" "}
                      {current.periodEnd ? (
                        <FormattedDate iso={current.periodEnd} />
                      ) : (
                        "the end of the period"
                      )}
                      ; then the account moves to Basic and nothing more is charged.
                    </p>
                    <p>Nothing you published is deleted. You can resume until the period ends.</p>
                  </>
                }
                confirmLabel="Cancel at period end"
                className="w-full sm:w-auto"
              >
                Cancel subscription
              </ConfirmedBillingButton>
            )}
            <Button asChild variant="outline" className="w-full sm:w-auto">
              <Link to={page.org ? `/billing?org=${page.org.slug}` : "/billing"}>Billing and invoices</Link>
            </Button>
          </div>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-2 text-sm">
        {current.source === "subscription" && current.periodEnd ? (
          <p className="flex items-center gap-2" data-testid="renewal">
            <CalendarClock className="size-4 text-muted-foreground" aria-hidden="true" />
            {current.cancelAtPeriodEnd ? (
              <span>
                Ends on <FormattedDate iso={current.periodEnd} className="font-medium" />; Basic after that.
              </span>
            ) : current.status === "past_due" ? (
              <span>
                Stripe is retrying the payment for the period ending{" "}
                <FormattedDate iso={current.periodEnd} className="font-medium" />.
              </span>
            ) : current.status === "trialing" ? (
              <span>
                Trial until <FormattedDate iso={current.periodEnd} className="font-medium" />, then billed.
              </span>
            ) : (
              <span>
                Renews on <FormattedDate iso={current.periodEnd} className="font-medium" />.
              </span>
            )}
          </p>
        ) : null}
        {current.source === "operator" ? (
          <p className="flex items-center gap-2" data-testid="operator-plan">
            <ShieldCheck className="size-4 text-muted-foreground" aria-hidden="true" />
            {current.operatorUntil ? (
              <span>
                Until <OperatorUntil iso={current.operatorUntil} />
                {page.paying && sub ? `; your ${plans[sub.plan].name} subscription applies after that.` : "."}
              </span>
            ) : (
              <span>
                Until the operator changes it
                {page.paying && sub
                  ? `; your ${plans[sub.plan].name} subscription is billed meanwhile.`
                  : "."}
              </span>
            )}
          </p>
        ) : null}
        {current.source === "default" && sub?.status === "canceled" ? (
          <p className="text-muted-foreground" data-testid="ended-subscription">
            Your {plans[sub.plan].name} subscription ended
            {sub.endedAt ? (
              <>
                {" "}
                on <FormattedDate iso={sub.endedAt} />
              </>
            ) : null}
            . Everything you published stays; uploads beyond the Basic limits wait until you subscribe again.
          </p>
        ) : null}
        {page.lapsedOperatorPlan ? (
          <p className="text-muted-foreground">
            The {plans[page.lapsedOperatorPlan.plan].name} plan set by the operator ended on{" "}
            <FormattedDate iso={page.lapsedOperatorPlan.until} />.
          </p>
        ) : null}
        {current.source === "default" && page.payments ? (
          <p className="text-muted-foreground">
            Choose Starter or Pro below for private projects, more storage and downloads.
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

function PlanAction({ page, plan, annual }: { page: SubscriptionPageData; plan: PlanId; annual: boolean }) {
  const current = page.plan;
  const sub = page.subscription;
  const name = plans[plan].name;
  if (!page.payments) {
    if (plan === current.plan) return <CurrentButton />;
    if (plan === "basic") return null;
    return (
      <Button className="h-auto w-full whitespace-normal py-2" variant="outline" disabled>
        Payments are not configured on this server
      </Button>
    );
  }
  if (!page.paying) {
    if (plan === "basic") {
      return current.plan === "basic" ? <CurrentButton /> : null;
    }
    return (
      <StripeRedirectButton intent="checkout" plan={plan} annual={annual} className="w-full">
        Subscribe to {name}
      </StripeRedirectButton>
    );
  }
  if (plan === "basic") {
    if (current.cancelAtPeriodEnd) {
      return (
        <Button className="w-full" variant="outline" disabled>
          Basic from the end of the period
        </Button>
      );
    }
    return (
      <ConfirmedBillingButton
        intent="cancel"
        className="w-full"
        variant="outline"
        destructive
        title="Move to Basic at the end of the period?"
        description={
          <p>
            Your subscription is canceled at the end of the period you paid for; nothing more is charged and
            nothing you published is deleted.
          </p>
        }
        confirmLabel="Cancel at period end"
      >
        Downgrade to Basic
      </ConfirmedBillingButton>
    );
  }
  if (sub && sub.plan === plan && sub.annual === annual) return <CurrentButton />;
  const upgrade = plans[plan].monthlyPrice > plans[sub?.plan ?? "basic"].monthlyPrice;
  const periodOnly = sub?.plan === plan;
  const label = periodOnly
    ? `Switch to ${annual ? "annual" : "monthly"} billing`
    : `${upgrade ? "Upgrade" : "Downgrade"} to ${name}`;
  return (
    <ConfirmedBillingButton
      intent="change"
      plan={plan}
      annual={annual}
      className="w-full"
      variant={upgrade ? "default" : "outline"}
      title={`${label}?`}
      description={
        <>
          <p>
            {name}, billed {annual ? "annually" : "monthly"}: {priceLine(plan, annual)}.
          </p>
          <p>
            Stripe prorates the change: the unused part of the current period is credited, and the difference
            is charged to your card now.
          </p>
        </>
      }
      confirmLabel={label}
    >
      {label}
    </ConfirmedBillingButton>
  );
}

/**
 * The end of the operator's plan: a day given to set-plan ends at midnight UTC after it, so it
 * reads "the end of Jun 30, 2027 (UTC)"; any other time as a local date and time.
 */
function OperatorUntil({ iso }: { iso: string }) {
  const until = new Date(iso);
  if (until.getTime() % (24 * 60 * 60 * 1000) === 0) {
    const lastDay = new Date(until.getTime() - 12 * 60 * 60 * 1000).toISOString();
    return <span className="font-medium">the end of {formatDate(lastDay, { timeZone: "UTC" })} (UTC)</span>;
  }
  return <FormattedDate iso={iso} withTime className="font-medium" />;
}

function CurrentButton() {
  return (
    <Button className="w-full" variant="outline" disabled>
      Current plan
    </Button>
  );
}
