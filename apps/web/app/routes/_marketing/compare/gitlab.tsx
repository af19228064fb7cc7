// /compare/gitlab: Packyard and GitLab, point by point (components/marketing/compare-data.ts).

import { comparisons } from "../../../components/marketing/compare-data.ts";
import { ComparePage, compareMeta } from "../../../components/marketing/compare-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/gitlab";

const comparison = comparisons.gitlab;

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname, ...compareMeta(comparison) });

export default function CompareGitlab() {
  return <ComparePage comparison={comparison} />;
}
