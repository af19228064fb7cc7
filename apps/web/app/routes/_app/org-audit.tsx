// /orgs/{orgSlug}/audit: the organization's audit log (admins and owners, as
// GET /api/v1/orgs/{slug}/audit): its members, roles, invitations, keys and transfers, and every
// change to its projects, each naming the member or key that acted; filtered by the query string.
import { data } from "react-router";
import { AuditLog } from "../../components/audit/audit-log.tsx";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { auditView } from "../../lib/audit.server.ts";
import { sessionActor } from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { orgAbilities, orgOr404 } from "../../lib/orgs.server.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-audit";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Audit log · ${loaderData.org.name}` : "Audit log",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  const actor = sessionActor(user);
  const { org, role } = await orgOr404(db, actor, params.orgSlug);
  if (!orgAbilities(actor, role).admin) throw data(null, { status: 403 });
  const projects = await db
    .selectFrom("project")
    .select("slug")
    .where("owner_id", "=", org.id)
    .orderBy("slug")
    .execute();
  return {
    org: { slug: org.slug, name: org.name },
    role,
    projects: projects.map((p) => p.slug),
    // The actor filter offers the organization's keys.
    view: await auditView(db, { ownerId: org.id }, url),
  };
}

export default function OrgAudit({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <OrgHeader org={loaderData.org} role={loaderData.role} admin />
      <p className="mb-6 text-sm text-muted-foreground">
        Members, roles, invitations, API keys and every change to the organization's projects, with the member
        or key that acted, newest first.
      </p>
      <AuditLog view={loaderData.view} kind="account" projects={loaderData.projects} />
    </>
  );
}
