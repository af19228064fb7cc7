// /projects/{projectSlug}/audit: the project's audit log — uploads, deletions, yanks, releases,
// settings and key rotations, with who made them (the owner signed in, or which API key) and
// from which address — filtered by the query string (components/audit/audit-log.tsx).
import { PROJECT_AUDIT_ACCESS } from "../../../server/platform/core/authorization.ts";
import { AuditLog } from "../../components/audit/audit-log.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { auditView } from "../../lib/audit.server.ts";
import { projectPageOr404, projectPlace } from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-audit";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Audit log · ${loaderData.project.name}` : "Audit log",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  // Seen by those who manage the project (authorization.ts: oversee).
  const project = await projectPageOr404(db, user, params, url, PROJECT_AUDIT_ACCESS);
  return {
    project: { ...(await projectPlace(db, project)), name: project.name },
    view: await auditView(db, { projectId: project.id }, url),
  };
}

export default function ProjectAudit({ loaderData }: Route.ComponentProps) {
  const { project, view } = loaderData;
  return (
    <>
      <Breadcrumbs items={projectCrumbs(project, "Audit log")} />
      <ProjectTabs base={projectPath(project)} />
      <PageHeader title="Audit log" description={`Who changed what in ${project.name}, newest first.`} />
      <AuditLog view={view} kind="project" />
    </>
  );
}
