// /projects/{projectSlug}/entitlements: the project's entitlement tokens (docs/entitlements.md) —
// create one for a customer (its secret shown once, with the commands that set a machine up),
// disable or enable, rotate with an overlap, delete, and each one's limits and use. The action
// calls the same use cases as /api/v1/projects/{slug}/entitlements.
import { plans } from "@packyard/contract/plans.ts";
import { accountPlan, limitsEnabled } from "../../../server/billing/plan.ts";
import { flushDownloadCounts } from "../../../server/billing/usage.ts";
import { listEntitlementTokens } from "../../../server/entitlements/use-cases.ts";
import {
  ENTITLEMENT_MANAGE_ACCESS,
  ENTITLEMENT_READ_ACCESS,
} from "../../../server/platform/core/authorization.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { EntitlementsPanel } from "../../components/entitlements/entitlements-panel.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import {
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectPlace,
  projectRef,
  sessionActor,
  sessionCaller,
} from "../../lib/dashboard.server.ts";
import { entitlementAction } from "../../lib/entitlements.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-entitlements";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.name} entitlement tokens` : "Entitlement tokens",
    noindex: true,
  });

/** A page that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config, clock } = services(context);
  const db = database.db;
  const project = await projectPageOr404(db, user, params, url, ENTITLEMENT_READ_ACCESS);
  const place = await projectPlace(db, project);
  const caller = sessionCaller(user, clientAddress(context));
  // This server's latest answers are in the numbers shown (usage.ts writes them in batches).
  await flushDownloadCounts(db);
  const entitlements = await listEntitlementTokens({ db, clock }, caller, {
    project: projectRef(params, user),
  });
  const plan = plans[(await accountPlan(db, project.owner_id)).plan];
  return {
    ...place,
    name: project.name,
    baseUrl: config.baseUrl,
    entitlements,
    // What the plan allows (PLAN_LIMITS=off: anything), for the form's note.
    allowance: limitsEnabled(config) ? { plan: plan.name, tokens: plan.entitlementTokens } : null,
    can: await projectPermissions(db, sessionActor(user), project),
  };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const form = await request.formData();
  const ref = projectRef(params, user);
  const { refusal } = await projectForAction(
    services(context).database.db,
    sessionActor(user),
    ref,
    ENTITLEMENT_MANAGE_ACCESS,
    form,
  );
  if (refusal) return refusal;
  return entitlementAction(
    services(context),
    sessionCaller(user, clientAddress(context)),
    { project: ref },
    form,
  );
}

export default function ProjectEntitlements({ loaderData }: Route.ComponentProps) {
  const base = projectPath(loaderData);
  return (
    <>
      <Breadcrumbs items={projectCrumbs(loaderData, "Entitlement tokens")} />
      <ProjectTabs base={base} />
      <PageHeader
        title="Entitlement tokens"
        description="A read token for each customer: their machines install this project's packages with it, within the limits you set, and you see what they use."
      />
      <EntitlementsPanel
        entitlements={loaderData.entitlements}
        canManage={loaderData.can.manage}
        allowance={loaderData.allowance}
        baseUrl={loaderData.baseUrl}
        tokenHref={(id) => `${base}/entitlements/${id}`}
      />
    </>
  );
}
