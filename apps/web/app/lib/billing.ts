// Billing helpers shared by the public pricing page and the signed-in billing pages (browser-safe).
import { type PlanId, parseAnnual, parsePlan } from "@packyard/contract/plans.ts";

/** How the operator of a server without Stripe puts an account on a plan (README). */
export const SET_PLAN_COMMAND =
  "npm run packyard -- users set-plan --username NAME --plan starter|pro|basic [--until DATE]";

export type PaidPlanChoice = { plan: Exclude<PlanId, "basic">; annual: boolean };

/** A paid plan and period chosen in the URL (?plan=pro&annual=true), if any. */
export function paidChoice(search: URLSearchParams): PaidPlanChoice | undefined {
  const plan = parsePlan(search.get("plan"));
  if (!plan || plan === "basic") return undefined;
  return { plan, annual: parseAnnual(search.get("annual")) ?? false };
}
