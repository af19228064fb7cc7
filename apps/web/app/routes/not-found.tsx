// Every URL no other route matches: the not-found page in the site's frame, answered with 404.
// It renders itself (rather than throwing to the root error boundary) so its meta is the page's
// only <title>: "Page Not Found".
import { data, useRouteLoaderData } from "react-router";
import { NotFoundView } from "../components/status-pages.tsx";
import { pageMeta } from "../lib/meta.ts";
import type { loader as rootLoader } from "../root.tsx";
import type { Route } from "./+types/not-found";

export function loader() {
  return data(null, { status: 404 });
}

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Page Not Found",
    description: "This page does not exist on Packyard.",
    noindex: true,
  });

export default function NotFound() {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  return <NotFoundView signedIn={Boolean(root?.user)} />;
}
