// /projects/{projectSlug}/publishing: the project's trusted publishers (issue 40) — the GitHub
// Actions and GitLab CI workflows allowed to publish with their OpenID Connect ID token instead of
// a stored API key. Those who manage the project add and remove them; each one's card has the CI
// configuration to paste. The action calls the same use cases as
// /api/v1/projects/{slug}/trusted-publishers.
import {
  TRUSTED_PUBLISHER_MANAGE_ACCESS,
  TRUSTED_PUBLISHER_READ_ACCESS,
} from "../../../server/platform/core/authorization.ts";
import { listProjectTrustedPublishers } from "../../../server/trusted-publishing/use-cases.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { TrustedPublishingPanel } from "../../components/trusted-publishing/trusted-publishing-panel.tsx";
import {
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectPlace,
  projectRef,
  sessionActor,
  sessionCaller,
} from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import { trustedPublisherAction } from "../../lib/trusted-publishing.server.ts";
import type { Route } from "./+types/project-publishing";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.name} trusted publishing` : "Trusted publishing",
    noindex: true,
  });

/** What a project's managers see: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const db = database.db;
  const project = await projectPageOr404(db, user, params, url, TRUSTED_PUBLISHER_READ_ACCESS);
  const place = await projectPlace(db, project);
  const publishers = await listProjectTrustedPublishers(
    { db },
    sessionCaller(user, clientAddress(context)),
    projectRef(params, user),
  );
  return {
    ...place,
    name: project.name,
    baseUrl: config.baseUrl,
    publishers,
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
    TRUSTED_PUBLISHER_MANAGE_ACCESS,
    form,
  );
  if (refusal) return refusal;
  return trustedPublisherAction(services(context), sessionCaller(user, clientAddress(context)), ref, form);
}

export default function ProjectPublishing({ loaderData }: Route.ComponentProps) {
  const { publishers, can, baseUrl, owner, slug } = loaderData;
  return (
    <>
      <Breadcrumbs items={projectCrumbs(loaderData, "Trusted publishing")} />
      <ProjectTabs base={projectPath(loaderData)} />
      <PageHeader
        title="Trusted publishing"
        description="CI jobs publish with a short-lived token they get for their OpenID Connect ID token: no Packyard secret is stored in the CI."
      />
      <TrustedPublishingPanel
        publishers={publishers}
        canManage={can.manage}
        target={{ baseUrl, owner, slug }}
      />
    </>
  );
}
