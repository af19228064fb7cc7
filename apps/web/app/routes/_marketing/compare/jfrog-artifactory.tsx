// /compare/jfrog-artifactory: Packyard and JFrog Artifactory, point by point (components/marketing/compare-data.ts).

import { comparisons } from "../../../components/marketing/compare-data.ts";
import { ComparePage, compareMeta } from "../../../components/marketing/compare-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/jfrog-artifactory";

const comparison = comparisons["jfrog-artifactory"];

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname, ...compareMeta(comparison) });

export default function CompareJfrogArtifactory() {
  return <ComparePage comparison={comparison} />;
}
