// The dashboard's banner while a payment has failed (subscription past due): the plan stays
// while Stripe retries the card; the button opens the customer portal to update it.
import { type PlanId, plans } from "@packyard/contract/plans.ts";
import { CreditCard } from "lucide-react";
import { StripeRedirectButton } from "./billing-forms.tsx";

export function PastDueBanner({ plan }: { plan: PlanId }) {
  return (
    <div
      role="alert"
      data-testid="past-due-banner"
      className="mb-6 flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 sm:flex-row sm:items-center sm:justify-between dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-200"
    >
      <p className="flex gap-2">
        <CreditCard className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        <span>
          <strong className="font-semibold">Your last payment for {plans[plan].name} failed.</strong> Your
          plan stays while Stripe retries the card; update it to keep your plan.
        </span>
      </p>
      <StripeRedirectButton intent="portal" action="/billing" size="sm" className="shrink-0">
        Update card
      </StripeRedirectButton>
    </div>
  );
}
