// /audit: the account's audit log — every project's entries, sign-ins and API keys — with who
// acted (signed in, or which API key) and from which address, filtered by the query string.
import { AuditLog } from "../../components/audit/audit-log.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { auditView } from "../../lib/audit.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/audit";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Audit log",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  const projects = await db
    .selectFrom("project")
    .select("slug")
    .where("owner_id", "=", user.id)
    .orderBy("slug")
    .execute();
  return {
    projects: projects.map((p) => p.slug),
    view: await auditView(db, { ownerId: user.id }, url),
  };
}

export default function AccountAudit({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Sign-ins, API keys and every change to your projects, newest first."
      />
      <AuditLog view={loaderData.view} kind="account" projects={loaderData.projects} />
    </>
  );
}
