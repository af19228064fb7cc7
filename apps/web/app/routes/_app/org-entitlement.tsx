// /orgs/{orgSlug}/entitlements/{entitlementId}: one of the organization's entitlement tokens — its
// limits with what is used of them and its use per day (usage-view.tsx), for its admins and owners.
import { data } from "react-router";
import { getEntitlementToken } from "../../../server/entitlements/use-cases.ts";
import { DomainError } from "../../../server/platform/core/errors.ts";
import { EntitlementState } from "../../components/entitlements/entitlement-card.tsx";
import { EntitlementUsageView } from "../../components/entitlements/usage-view.tsx";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { sessionActor, sessionCaller } from "../../lib/dashboard.server.ts";
import { entitlementUsageDays } from "../../lib/entitlements.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { orgAbilities, orgOr404 } from "../../lib/orgs.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-entitlement";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.entitlement.name} · ${loaderData.org.name}` : "Entitlement token",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, clock } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const { org, role } = await orgOr404(db, actor, params.orgSlug);
  if (!orgAbilities(actor, role).admin) throw data(null, { status: 403 });
  let entitlement: Awaited<ReturnType<typeof getEntitlementToken>>;
  try {
    entitlement = await getEntitlementToken({ db, clock }, sessionCaller(user, clientAddress(context)), {
      organization: org.slug,
      id: params.entitlementId,
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw data(null, { status: 404 });
    throw error;
  }
  const days = await entitlementUsageDays(db, entitlement.id, clock());
  return { org: { slug: org.slug, name: org.name }, role, entitlement, days };
}

export default function OrgEntitlement({ loaderData }: Route.ComponentProps) {
  const { entitlement: t, days } = loaderData;
  return (
    <>
      <OrgHeader org={loaderData.org} role={loaderData.role} admin />
      <PageHeader
        title={t.name}
        description={t.note ?? `Entitlement token ${t.start}…, reading ${t.projects.join(", ")}.`}
        actions={<EntitlementState entitlement={t} />}
      />
      <EntitlementUsageView entitlement={t} days={days} />
    </>
  );
}
