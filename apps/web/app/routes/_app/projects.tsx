// /projects: the publisher's projects, and the New project dialog.
import { FolderGit2, Plus } from "lucide-react";
import { redirect } from "react-router";
import { createProject } from "../../../server/projects/use-cases.ts";
import { buttonForm, newProjectForm } from "../../components/dashboard/forms.ts";
import { NewProjectDialog } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectsTable } from "../../components/dashboard/projects-table.tsx";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import {
  domainFailure,
  invalid,
  listProjects,
  refused,
  sessionActor,
  sessionCaller,
} from "../../lib/dashboard.server.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectPath } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/projects";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Projects",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const projects = await listProjects(services(context).database.db, sessionActor(user));
  return { projects };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const formData = await request.formData();
  if ((formData.get("intent") ?? "create") !== "create") {
    return refused(parseForm(formData, buttonForm), 400, { formError: "Unknown action" });
  }
  const submission = parseForm(formData, newProjectForm);
  if (submission.status !== "success") return invalid(submission);
  const { database, config } = services(context);
  let created: Awaited<ReturnType<typeof createProject>>;
  try {
    // Under the user, or under an organization the user administers (the org page's dialog).
    created = await createProject(
      { db: database.db, limits: config },
      sessionCaller(user, clientAddress(context)),
      submission.value,
    );
  } catch (error) {
    return domainFailure(submission, error, { PROJECT_EXISTS: "slug", INVALID_SLUG: "slug" });
  }
  throw redirect(`${projectPath(created)}?created=1`);
}

export default function Projects({ loaderData }: Route.ComponentProps) {
  const { projects } = loaderData;
  useFlashToast("deleted", (slug) => `Project ${slug} deleted`);
  const newProject = (
    <NewProjectDialog
      trigger={
        <Button>
          <Plus aria-hidden="true" />
          New project
        </Button>
      }
    />
  );
  return (
    <>
      <PageHeader
        title="Projects"
        description="Each project has releases, a signed APT and YUM repository, and public download URLs."
        actions={projects.length ? newProject : undefined}
      />
      {projects.length === 0 ? (
        <EmptyState icon={FolderGit2} title="You have no projects yet" action={newProject}>
          Projects you create are listed here with their latest release and download counts.
        </EmptyState>
      ) : (
        <ProjectsTable projects={projects} caption="Your projects" />
      )}
    </>
  );
}
