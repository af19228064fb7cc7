// /compare/nexus-oss: Packyard and Nexus Repository OSS, point by point (components/marketing/compare-data.ts).

import { comparisons } from "../../../components/marketing/compare-data.ts";
import { ComparePage, compareMeta } from "../../../components/marketing/compare-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/nexus-oss";

const comparison = comparisons["nexus-oss"];

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname, ...compareMeta(comparison) });

export default function CompareNexusOss() {
  return <ComparePage comparison={comparison} />;
}
