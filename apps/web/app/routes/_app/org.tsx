// /orgs/{orgSlug}: an organization's projects, for its members. Admins and owners create projects
// under it (the New project dialog posts to /projects with the organization as owner).
import { FolderGit2, Plus } from "lucide-react";
import { NewProjectDialog } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectsTable } from "../../components/dashboard/projects-table.tsx";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { OrgHeader } from "../../components/orgs/org-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { listProjects, sessionActor } from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { orgAbilities, orgOr404 } from "../../lib/orgs.server.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData?.org.name ?? "Organization",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  const actor = sessionActor(user);
  const { org, role } = await orgOr404(db, actor, params.orgSlug);
  const projects = (await listProjects(db, actor)).filter(
    (p) => p.ownerKind === "organization" && p.owner.toLowerCase() === org.slug.toLowerCase(),
  );
  return { org: { slug: org.slug, name: org.name }, role, can: orgAbilities(actor, role), projects };
}

export default function Organization({ loaderData }: Route.ComponentProps) {
  const { org, role, can, projects } = loaderData;
  useFlashToast("created", () => `Organization ${org.slug} created`);
  useFlashToast("deleted", (slug) => `Project ${slug} deleted`);
  useFlashToast("joined", () => `You joined ${org.name} as ${role}`);
  const newProject = can.admin ? (
    <NewProjectDialog
      owner={org.slug}
      trigger={
        <Button>
          <Plus aria-hidden="true" />
          New project
        </Button>
      }
    />
  ) : null;
  return (
    <>
      <OrgHeader org={org} role={role} admin={can.admin} />
      <div className="mb-6 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <p className="text-sm text-muted-foreground">
          {can.admin
            ? `Projects of ${org.name}. Its members reach them by their role; they stay here when someone leaves.`
            : `Projects of ${org.name}. Only its admins and owners create projects; ask one if you need a new one.`}
        </p>
        {projects.length ? newProject : null}
      </div>
      {projects.length === 0 ? (
        <EmptyState
          icon={FolderGit2}
          title={`${org.name} has no projects yet`}
          action={newProject ?? undefined}
        >
          {can.admin
            ? "Create one here, or move one of yours here from its settings (Transfer)."
            : "Its admins and owners create projects, or move theirs here."}
        </EmptyState>
      ) : (
        <ProjectsTable projects={projects} caption={`Projects of ${org.name}`} />
      )}
    </>
  );
}
