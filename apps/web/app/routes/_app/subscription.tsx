// /subscription: the account's plan and what each plan includes.

import { parseAnnual } from "@packyard/contract/plans.ts";
import { useSearchParams } from "react-router";
import { PageHeader } from "../../components/page-header.tsx";
import { PlanCards } from "../../components/plan-cards.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/subscription";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Subscription",
    noindex: true,
  });

export default function Subscription() {
  const [search] = useSearchParams();
  const annual = parseAnnual(search.get("annual")) ?? false;
  return (
    <>
      <PageHeader
        title="Subscription"
        description="You are on the Basic plan. Public projects and repository signing are included on every plan."
      />
      <PlanCards current="basic" annual={annual} />
    </>
  );
}
