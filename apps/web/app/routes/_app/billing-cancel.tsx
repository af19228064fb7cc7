// /billing/cancel: where the card payment provider sends the user back.
import { CircleX } from "lucide-react";
import { Link } from "react-router";
import { EmptyState } from "../../components/empty-state.tsx";
import { Button } from "../../components/ui/button.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/billing-cancel";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Checkout cancelled",
    noindex: true,
  });

export default function BillingCancel() {
  return (
    <EmptyState
      icon={CircleX}
      title="Checkout cancelled"
      action={
        <Button asChild>
          <Link to="/subscription">Go to Subscription</Link>
        </Button>
      }
    >
      Nothing was charged. You can pick a plan again whenever you are ready.
    </EmptyState>
  );
}
