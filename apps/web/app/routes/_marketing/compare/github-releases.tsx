// /compare/github-releases: Packyard and GitHub Releases, point by point (components/marketing/compare-data.ts).

import { comparisons } from "../../../components/marketing/compare-data.ts";
import { ComparePage, compareMeta } from "../../../components/marketing/compare-page.tsx";
import { pageMeta } from "../../../lib/meta.ts";
import type { Route } from "./+types/github-releases";

const comparison = comparisons["github-releases"];

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname, ...compareMeta(comparison) });

export default function CompareGithubReleases() {
  return <ComparePage comparison={comparison} />;
}
