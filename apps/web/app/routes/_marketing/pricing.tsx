// /pricing: the three plans from the contract's plans.ts, monthly or annual (?annual=true), with the chosen
// plan (?plan=) highlighted and carried into sign-up and onboarding.

import { parseAnnual, parsePlan, plans } from "@packyard/contract/plans.ts";
import { Link, useSearchParams } from "react-router";
import { PlanCards } from "../../components/plan-cards.tsx";
import { Button } from "../../components/ui/button.tsx";
import { pageMeta } from "../../lib/meta.ts";
import { cn } from "../../lib/utils.ts";
import type { Route } from "./+types/pricing";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Pricing",
    description:
      "Free for public projects. Starter and Pro add private projects, storage and downloads. Signing on every plan.",
  });

export default function Pricing() {
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
            <Button
              asChild
              className="w-full"
              variant={plan === (chosen ?? "starter") ? "default" : "outline"}
            >
              <Link to={`/auth/signin?mode=signup&plan=${plan}&annual=${annual}`}>
                {plans[plan].monthlyPrice === 0 ? "Start for free" : `Choose ${plans[plan].name}`}
              </Link>
            </Button>
          )}
        />
      </div>
      <p className="mt-8 text-center text-sm text-muted-foreground">
        Prices in US dollars. Limits are enforced on the server; you are told before anything is refused.
      </p>
    </main>
  );
}
