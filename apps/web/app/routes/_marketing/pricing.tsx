// /pricing: the three plans from the contract's plans.ts, monthly or annual (?annual=true), with the chosen
// plan (?plan=) highlighted and carried into sign-up and onboarding (then Stripe Checkout). A
// signed-in visitor goes straight to /subscription with the plan. Without Stripe configured the
// paid plans say so, and how the operator sets a plan instead.

import { type PlanId, parseAnnual, parsePlan, plans } from "@packyard/contract/plans.ts";
import { Link, useRouteLoaderData, useSearchParams } from "react-router";
import { PlanCards } from "../../components/plan-cards.tsx";
import { Button } from "../../components/ui/button.tsx";
import { SET_PLAN_COMMAND } from "../../lib/billing.ts";
import { pageMeta } from "../../lib/meta.ts";
import { services } from "../../lib/session.server.ts";
import { cn } from "../../lib/utils.ts";
import type { loader as rootLoader } from "../../root.tsx";
import type { Route } from "./+types/pricing";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Pricing",
    description:
      "Free for public projects. Starter and Pro add private projects, storage and downloads. Signing on every plan.",
  });

export function loader({ context }: Route.LoaderArgs) {
  return { payments: Boolean(services(context).config.stripe) };
}

export default function Pricing({ loaderData }: Route.ComponentProps) {
  const { payments } = loaderData;
  const signedIn = Boolean(useRouteLoaderData<typeof rootLoader>("root")?.user);
  const [search] = useSearchParams();
  const annual = parseAnnual(search.get("annual")) ?? false;
  const chosen = parsePlan(search.get("plan"));
  // Only valid values travel on: ?plan=gold is dropped, not echoed into links.
  const toggle = (value: boolean) => {
    const next = new URLSearchParams(chosen ? { plan: chosen } : {});
    next.set("annual", String(value));
    return `?${next}`;
  };
  return (
    <main className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
      <div className="mx-auto max-w-2xl text-center">
        <h1 className="text-4xl font-bold tracking-tight">Pricing</h1>
        <p className="mt-4 text-lg text-muted-foreground">
          Unlimited public projects and signed repositories on every plan. Pay for private projects, storage
          and downloads when you need them.
        </p>
        <nav aria-label="Billing period" className="mt-8 inline-flex rounded-lg border border-border p-1">
          {[false, true].map((value) => (
            <Link
              key={String(value)}
              to={toggle(value)}
              replace
              preventScrollReset
              aria-current={annual === value ? "page" : undefined}
              className={cn(
                "rounded-md px-4 py-1.5 text-sm font-medium",
                annual === value
                  ? "bg-primary text-primary-foreground"
                  : "text-muted-foreground hover:text-foreground",
              )}
            >
              {value ? "Annual (2 months free)" : "Monthly"}
            </Link>
          ))}
        </nav>
      </div>
      <div className="mt-12">
        <PlanCards
          annual={annual}
          highlight={chosen}
          action={(plan) => (
            <PlanButton
              plan={plan}
              annual={annual}
              payments={payments}
              signedIn={signedIn}
              primary={plan === (chosen ?? "starter")}
            />
          )}
        />
      </div>
      {payments ? null : (
        <p
          className="mx-auto mt-8 max-w-2xl text-center text-sm text-muted-foreground"
          data-testid="payments-off"
        >
          This server takes no card payments. Its operator puts an account on a plan with{" "}
          <code className="break-words rounded bg-muted px-1.5 py-0.5 font-mono text-xs">
            {SET_PLAN_COMMAND}
          </code>
        </p>
      )}
      <section
        aria-labelledby="organizations-billing"
        className="mx-auto mt-12 max-w-2xl rounded-lg border border-border p-6"
        data-testid="organizations-billing"
      >
        <h2 id="organizations-billing" className="text-lg font-semibold">
          How are organizations billed?
        </h2>
        <p className="mt-2 text-sm text-muted-foreground">
          Each organization has a plan of its own, chosen from the same three. Its private projects, storage
          and downloads are counted over the organization's projects only, never against its members' own
          plans. Members cost nothing and are unlimited: invite as many owners, admins, publishers and viewers
          as you need. An owner of the organization pays for its plan{payments ? " by card" : ""}, from
          Subscription with the organization chosen; a new organization starts on Basic.
        </p>
        <p className="mt-2 text-sm text-muted-foreground" data-testid="sso-plan-note">
          Single sign-on through the organization's own SAML 2.0 or OpenID Connect provider, requiring it for
          every member, and SCIM provisioning are part of an organization's Pro plan.
        </p>
      </section>
      <p className="mt-8 text-center text-sm text-muted-foreground">
        Prices in US dollars{payments ? ", paid by card through Stripe" : ""}. Limits are enforced on the
        server; you are told before anything is refused.
      </p>
    </main>
  );
}

function PlanButton({
  plan,
  annual,
  payments,
  signedIn,
  primary,
}: {
  plan: PlanId;
  annual: boolean;
  payments: boolean;
  signedIn: boolean;
  primary: boolean;
}) {
  const free = plans[plan].monthlyPrice === 0;
  if (!free && !payments) {
    return (
      <Button className="h-auto w-full whitespace-normal py-2" variant="outline" disabled>
        Payments are not configured on this server
      </Button>
    );
  }
  const params = `plan=${plan}&annual=${annual}`;
  const to = signedIn
    ? free
      ? "/subscription"
      : `/subscription?${params}`
    : `/auth/signin?mode=signup&${params}`;
  return (
    <Button asChild className="w-full" variant={primary ? "default" : "outline"}>
      <Link to={to}>
        {free ? (signedIn ? "See your plan" : "Start for free") : `Choose ${plans[plan].name}`}
      </Link>
    </Button>
  );
}
