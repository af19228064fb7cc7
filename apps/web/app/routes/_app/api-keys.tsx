// /api-keys: keys for CI and the CLI.
import { KeyRound } from "lucide-react";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/api-keys";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "API keys",
    noindex: true,
  });

export default function ApiKeys() {
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let CI jobs and the packyard CLI publish and read on your behalf."
      />
      <EmptyState icon={KeyRound} title="No API keys">
        Keys you create are listed here with their prefix, scope, last use and expiry. A key's secret is shown
        once, when it is created.
      </EmptyState>
    </>
  );
}
