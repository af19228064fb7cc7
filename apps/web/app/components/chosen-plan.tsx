// The plan a visitor picked on /pricing (?plan=…&annual=…), named on sign-up and onboarding so
// they can see it was kept; where checkout follows, it says so.
import { parseAnnual, parsePlan, plans } from "@packyard/contract/plans.ts";
import { formatCurrency } from "../lib/format.ts";
import { Alert } from "./ui/alert.tsx";

export function ChosenPlan({
  search,
  payments,
  next,
  className,
}: {
  search: URLSearchParams;
  /** Whether this server takes payments (Stripe configured). */
  payments: boolean;
  /** What comes after this page for a paid plan, when payments are on. */
  next: string;
  className?: string;
}) {
  const id = parsePlan(search.get("plan"));
  if (!id) return null;
  const plan = plans[id];
  const annual = parseAnnual(search.get("annual")) ?? false;
  const paid = plan.monthlyPrice > 0;
  const price = annual
    ? `${formatCurrency(plan.annualPrice)} a year`
    : `${formatCurrency(plan.monthlyPrice)} a month`;
  return (
    <Alert className={className} data-testid="chosen-plan">
      <p className="font-medium">
        You chose the {plan.name} plan{paid ? ` (${price})` : ""}.
      </p>
      {paid ? (
        <p className="mt-1">
          {payments
            ? next
            : "This server takes no payments: its operator puts accounts on a plan. You start on Basic."}
        </p>
      ) : null}
    </Alert>
  );
}
