// /integrations/{nexus|artifactory|gitlab|github-releases}: moving to Packyard from each.
import { data } from "react-router";
import { PageHeader } from "../../components/page-header.tsx";
import { Card } from "../../components/ui/card.tsx";
import { integrationGuides } from "../../lib/integrations.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/integration";

export function loader({ params }: Route.LoaderArgs) {
  const guide = integrationGuides.find((g) => g.slug === params.integration);
  if (!guide) throw data(null, { status: 404 });
  return { slug: guide.slug };
}

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: integrationGuides.find((g) => g.slug === loaderData?.slug)?.title ?? "Integrations",
    noindex: true,
  });

export default function Integration({ loaderData }: Route.ComponentProps) {
  const guide = integrationGuides.find((g) => g.slug === loaderData.slug)!;
  return (
    <>
      <PageHeader title={guide.title} description={guide.summary} />
      <Card className="max-w-3xl p-6">
        <ol className="grid list-decimal gap-4 pl-5">
          {guide.steps.map((step) => (
            <li key={step.title}>
              <p className="font-medium">{step.title}</p>
              <p className="mt-1 text-sm text-muted-foreground">{step.text}</p>
            </li>
          ))}
        </ol>
      </Card>
    </>
  );
}
