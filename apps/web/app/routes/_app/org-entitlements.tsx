// /orgs/{orgSlug}/entitlements: the organization's entitlement tokens (docs/entitlements.md), each
// reading the projects it names — create one for a customer (choosing its projects; its secret
// shown once, with the setup commands of each), disable or enable, rotate, delete. Its admins and
// owners, as /api/v1/orgs/{org}/entitlements. A project's own tokens are on its Entitlements tab.
import { plans } from "@packyard/contract/plans.ts";
import { data } from "react-router";
import { accountPlan, limitsEnabled } from "../../../server/billing/plan.ts";
import { flushDownloadCounts } from "../../../server/billing/usage.ts";
import { listEntitlementTokens } from "../../../server/entitlements/use-cases.ts";
import { EntitlementsPanel } from "../../components/entitlements/entitlements-panel.tsx";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { sessionActor, sessionCaller } from "../../lib/dashboard.server.ts";
import { entitlementAction } from "../../lib/entitlements.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { orgAbilities, orgOr404 } from "../../lib/orgs.server.ts";
import { orgPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-entitlements";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Entitlement tokens · ${loaderData.org.name}` : "Entitlement tokens",
    noindex: true,
  });

/** A page that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config, clock } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const { org, role } = await orgOr404(db, actor, params.orgSlug);
  if (!orgAbilities(actor, role).admin) throw data(null, { status: 403 });
  await flushDownloadCounts(db);
  const entitlements = await listEntitlementTokens(
    { db, clock },
    sessionCaller(user, clientAddress(context)),
    {
      organization: org.slug,
    },
  );
  const projects = await db
    .selectFrom("project")
    .select("slug")
    .where("owner_id", "=", org.id)
    .orderBy("slug")
    .execute();
  const plan = plans[(await accountPlan(db, org.id)).plan];
  return {
    org: { slug: org.slug, name: org.name },
    role,
    baseUrl: config.baseUrl,
    entitlements,
    projects: projects.map((p) => p.slug),
    allowance: limitsEnabled(config) ? { plan: plan.name, tokens: plan.entitlementTokens } : null,
  };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const form = await request.formData();
  // The use cases decide who may (an admin or owner); a page for anyone else is not found.
  return entitlementAction(
    services(context),
    sessionCaller(user, clientAddress(context)),
    { organization: params.orgSlug },
    form,
  );
}

export default function OrgEntitlements({ loaderData }: Route.ComponentProps) {
  const { org } = loaderData;
  return (
    <>
      <OrgHeader org={org} role={loaderData.role} admin />
      <p className="mb-6 max-w-3xl text-sm text-muted-foreground">
        A read token for each customer, across the projects you choose: their machines install those projects'
        packages with it, within the limits you set. A project's own tokens are on its Entitlements tab.
      </p>
      <EntitlementsPanel
        entitlements={loaderData.entitlements}
        canManage
        allowance={loaderData.allowance}
        baseUrl={loaderData.baseUrl}
        tokenHref={(id) => orgPath(org.slug, `/entitlements/${id}`)}
        projectChoices={loaderData.projects}
      />
    </>
  );
}
