// /projects: the publisher's projects, and the New project dialog.
import { FolderGit2, Plus } from "lucide-react";
import { Link, redirect } from "react-router";
import { VisibilityBadge } from "../../components/dashboard/badges.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { buttonForm, newProjectForm } from "../../components/dashboard/forms.ts";
import { NewProjectDialog } from "../../components/dashboard/project-dialogs.tsx";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import {
  auditProjectAction,
  createProject,
  domainFailure,
  invalid,
  listProjects,
  refused,
  sessionActor,
  sessionAudit,
} from "../../lib/dashboard.server.ts";
import { formatCompactCount } from "../../lib/format.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
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
    created = await createProject(database.db, sessionActor(user), submission.value, config);
  } catch (error) {
    return domainFailure(submission, error, { PROJECT_EXISTS: "slug", INVALID_SLUG: "slug" });
  }
  const { slug } = created;
  await auditProjectAction(
    database.db,
    sessionAudit(user, clientAddress(context)),
    { id: created.id, owner_id: user.id, slug },
    { action: "project.created", target: slug, details: { visibility: created.visibility } },
  );
  throw redirect(`/projects/${slug}?created=1`);
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
        <Card className="overflow-hidden">
          <table className="w-full table-fixed text-sm" data-testid="projects-table">
            <caption className="sr-only">Your projects</caption>
            <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
              <tr>
                <th scope="col" className="px-4 py-3 sm:px-6">
                  Project
                </th>
                <th scope="col" className="hidden w-32 px-4 py-3 md:table-cell">
                  Visibility
                </th>
                <th scope="col" className="w-32 px-4 py-3 sm:w-44">
                  Latest
                </th>
                <th scope="col" className="hidden w-32 px-4 py-3 text-right sm:table-cell">
                  Downloads
                </th>
                <th scope="col" className="hidden w-36 px-4 py-3 text-right lg:table-cell sm:pr-6">
                  Updated
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {projects.map((project) => (
                <tr key={project.id} className="transition-colors hover:bg-muted/40">
                  <td className="break-words px-4 py-3 sm:px-6">
                    <Link
                      to={`/projects/${project.slug}`}
                      className="rounded-sm font-medium text-foreground hover:text-primary hover:underline"
                    >
                      {project.name}
                    </Link>
                    <div className="mt-0.5 flex items-center gap-2">
                      <span className="truncate font-mono text-xs text-muted-foreground">{project.slug}</span>
                      <span className="md:hidden">
                        <VisibilityBadge visibility={project.visibility} />
                      </span>
                    </div>
                  </td>
                  <td className="hidden px-4 py-3 md:table-cell">
                    <VisibilityBadge visibility={project.visibility} />
                  </td>
                  <td className="px-4 py-3">
                    {project.latestVersion ? (
                      <span
                        className="block truncate font-mono text-xs sm:text-sm"
                        title={project.latestVersion}
                      >
                        {project.latestVersion}
                      </span>
                    ) : (
                      <span className="text-muted-foreground">—</span>
                    )}
                    <div className="text-xs text-muted-foreground">
                      {project.releaseCount} {project.releaseCount === 1 ? "release" : "releases"}
                    </div>
                    <div className="text-xs text-muted-foreground sm:hidden">
                      {formatCompactCount(project.downloads)} downloads
                    </div>
                  </td>
                  <td className="hidden px-4 py-3 text-right tabular-nums sm:table-cell">
                    {formatCompactCount(project.downloads)}
                  </td>
                  <td className="hidden px-4 py-3 text-right text-muted-foreground lg:table-cell sm:pr-6">
                    <FormattedDate iso={project.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </>
  );
}
