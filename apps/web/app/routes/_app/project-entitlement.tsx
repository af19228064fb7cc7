// /projects/{projectSlug}/entitlements/{entitlementId}: one entitlement token — its limits with
// what is used of them, and its use per day over the last 30 days (files fetched, split into
// installs by a package manager and downloads by anything else, bytes, distinct machines) as a
// chart and a table. The same numbers as GET …/entitlements/{id}/usage.
import { data } from "react-router";
import { getEntitlementToken } from "../../../server/entitlements/use-cases.ts";
import { ENTITLEMENT_READ_ACCESS } from "../../../server/platform/core/authorization.ts";
import { DomainError } from "../../../server/platform/core/errors.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { EntitlementState } from "../../components/entitlements/entitlement-card.tsx";
import { EntitlementUsageView } from "../../components/entitlements/usage-view.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { projectPageOr404, projectPlace, projectRef, sessionCaller } from "../../lib/dashboard.server.ts";
import { entitlementUsageDays } from "../../lib/entitlements.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-entitlement";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.entitlement.name} · ${loaderData.name}` : "Entitlement token",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const db = database.db;
  const project = await projectPageOr404(db, user, params, url, ENTITLEMENT_READ_ACCESS);
  const caller = sessionCaller(user, clientAddress(context));
  let entitlement: Awaited<ReturnType<typeof getEntitlementToken>>;
  try {
    entitlement = await getEntitlementToken({ db, clock }, caller, {
      project: projectRef(params, user),
      id: params.entitlementId,
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw data(null, { status: 404 });
    throw error;
  }
  const days = await entitlementUsageDays(db, entitlement.id, clock());
  return { ...(await projectPlace(db, project)), name: project.name, entitlement, days };
}

export default function ProjectEntitlement({ loaderData }: Route.ComponentProps) {
  const { entitlement: t, days } = loaderData;
  const base = projectPath(loaderData);
  return (
    <>
      <Breadcrumbs
        items={[
          ...projectCrumbs(loaderData).slice(0, -1),
          { label: loaderData.name, to: base },
          { label: "Entitlement tokens", to: `${base}/entitlements` },
          { label: t.name },
        ]}
      />
      <ProjectTabs base={base} />
      <PageHeader
        title={t.name}
        description={t.note ?? `Entitlement token ${t.start}…, reading ${t.projects.join(", ")}.`}
        actions={<EntitlementState entitlement={t} />}
      />
      <EntitlementUsageView entitlement={t} days={days} />
    </>
  );
}
