// /billing: payment details and invoices for paid plans.

import { parseAnnual, parsePlan } from "@packyard/contract/plans.ts";
import { Receipt } from "lucide-react";
import { useSearchParams } from "react-router";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { PlanCards } from "../../components/plan-cards.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/billing";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Billing",
    noindex: true,
  });

export default function Billing() {
  const [search] = useSearchParams();
  const chosen = parsePlan(search.get("plan"));
  const annual = parseAnnual(search.get("annual")) ?? false;
  return (
    <>
      <PageHeader title="Billing" description="Invoices and payment details for your subscription." />
      <div className="grid gap-8">
        <PlanCards current="basic" annual={annual} highlight={chosen} />
        <EmptyState icon={Receipt} title="No invoices">
          The Basic plan is free, so there is nothing to pay. Invoices for paid plans appear here.
        </EmptyState>
      </div>
    </>
  );
}
