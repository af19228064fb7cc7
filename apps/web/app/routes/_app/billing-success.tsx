// /billing/success: where the card payment provider sends the user back.
import { CircleCheck } from "lucide-react";
import { Link } from "react-router";
import { EmptyState } from "../../components/empty-state.tsx";
import { Button } from "../../components/ui/button.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/billing-success";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Payment received",
    noindex: true,
  });

export default function BillingSuccess() {
  return (
    <EmptyState
      icon={CircleCheck}
      title="Payment received"
      action={
        <Button asChild>
          <Link to="/subscription">Go to Subscription</Link>
        </Button>
      }
    >
      Thank you. Your subscription is being activated; it shows on the Subscription page within a minute.
    </EmptyState>
  );
}
