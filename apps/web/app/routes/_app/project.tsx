// /projects/{projectSlug}: a project's home — what it is, its numbers, its latest release —
// with the Edit project and Delete project dialogs.
import {
  ArrowRight,
  Calendar,
  Code,
  Download,
  ExternalLink,
  Globe,
  Package,
  Plus,
  Scale,
  Tag,
} from "lucide-react";
import { Link, redirect } from "react-router";
import { deleteProject, updateProject } from "../../../server/projects/use-cases.ts";
import { listFileRows } from "../../../server/releases/storage.ts";
import { VisibilityBadge, YankedBadge } from "../../components/dashboard/badges.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { buttonForm, deleteProjectForm, editProjectForm } from "../../components/dashboard/forms.ts";
import { DeleteProjectDialog, EditProjectDialog } from "../../components/dashboard/project-dialogs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { ReadmeBadges } from "../../components/dashboard/readme-badges.tsx";
import { StatGrid } from "../../components/dashboard/stats.tsx";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { PublishInstructions } from "../../components/publish-instructions.tsx";
import { RepositorySetupCard } from "../../components/repository-setup.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { CopyButton } from "../../components/ui/copy-button.tsx";
import {
  domainFailure,
  invalid,
  listReleaseSummaries,
  ownProjectOr404,
  projectDto,
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectRef,
  refused,
  sessionActor,
  sessionCaller,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { formatCompactCount, formatCount } from "../../lib/format.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { failsAs, PROJECT_FETCH_FAILED } from "../../lib/page-data.server.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { repositorySetup } from "../../lib/repository-setup.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData?.project.name ?? "Project",
    noindex: true,
  });

async function load({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const row = await projectPageOr404(db, user, params, url);
  const project = await projectDto(db, row);
  const releases = await listReleaseSummaries(db, row.id);
  const latest = releases.find((r) => !r.yanked) ?? null;
  return {
    project,
    latest,
    // The install lines name the latest release's packages, as its public page does.
    latestFiles: latest
      ? (await listFileRows(db, latest.id)).map((f) => ({ filename: f.filename, kind: f.kind }))
      : [],
    recent: releases.slice(0, 5),
    can: await projectPermissions(db, actor, row),
    latestUrlBase: `${config.baseUrl}/dl/${project.owner}/${project.slug}/releases/latest/`,
    publishTarget: { baseUrl: config.baseUrl, owner: project.owner, slug: project.slug },
    setup: await repositorySetup(context, row, project.owner),
    badgeBase: `${config.baseUrl}/dl/${project.owner}/${project.slug}/badge`,
    badgeLink:
      project.visibility === "public"
        ? `${config.baseUrl}/releases/${project.owner}/${project.slug}`
        : `${config.baseUrl}${projectPath(project)}`,
  };
}
export const loader = failsAs(PROJECT_FETCH_FAILED, load);

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const caller = sessionCaller(user, clientAddress(context));
  const ref = projectRef(params, user);
  const slug = params.projectSlug;
  const formData = await request.formData();
  const intent = formData.get("intent") ?? "";
  if (intent === "update" || intent === "delete") {
    const { refusal } = await projectForAction(db, actor, ref, "manage", formData);
    if (refusal) return refusal;
  }

  if (intent === "update") {
    const submission = parseForm(formData, editProjectForm);
    if (submission.status !== "success") return invalid(submission);
    try {
      await updateProject({ db, limits: config }, caller, { project: ref, changes: submission.value });
    } catch (error) {
      return domainFailure(submission, error);
    }
    return succeeded(submission, "Project updated");
  }

  if (intent === "delete") {
    const project = await ownProjectOr404(db, actor, ref);
    const place = await projectDto(db, project);
    const submission = parseForm(formData, deleteProjectForm(slug));
    if (submission.status !== "success") return invalid(submission);
    try {
      await deleteProject({ db }, caller, { project: ref });
    } catch (error) {
      return domainFailure(submission, error);
    }
    const back = place.ownerKind === "organization" ? `/orgs/${place.owner}` : "/projects";
    throw redirect(`${back}?deleted=${encodeURIComponent(slug)}`);
  }

  return refused(parseForm(formData, buttonForm), 400, { formError: "Unknown action" });
}

function ExternalLinkItem({ href, icon: Icon, label }: { href: string; icon: typeof Globe; label: string }) {
  let host = href;
  try {
    const url = new URL(href);
    host = `${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  } catch {
    // keep the raw value
  }
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="inline-flex min-w-0 items-center gap-1.5 rounded-sm hover:text-foreground hover:underline"
    >
      <Icon className="size-4 shrink-0" aria-hidden="true" />
      <span className="sr-only">{label}: </span>
      <span className="truncate">{host}</span>
      <ExternalLink className="size-3 shrink-0" aria-hidden="true" />
    </a>
  );
}

export default function ProjectHome({ loaderData }: Route.ComponentProps) {
  const { project, latest, recent, latestUrlBase, can } = loaderData;
  useFlashToast("created", () => `Project ${project.slug} created`);
  const releasesPath = projectPath(project, "/releases");
  const releasePath = (version: string) => `${releasesPath}/${encodeURIComponent(version)}`;

  return (
    <>
      <Breadcrumbs items={projectCrumbs(project)} />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <header className="mb-8 flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0 lg:flex-1">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
            <h1 className="break-words text-2xl font-bold tracking-tight">{project.name}</h1>
            <VisibilityBadge visibility={project.visibility} />
          </div>
          <p className="mt-1 font-mono text-sm text-muted-foreground">
            {project.owner}/{project.slug}
          </p>
          {can.role ? (
            <p className="mt-1 text-sm text-muted-foreground" data-testid="project-role">
              Your role in {project.owner}: <span className="font-medium text-foreground">{can.role}</span>
              {can.publish ? null : " (read only)"}
            </p>
          ) : null}
          {project.description ? (
            <p className="mt-3 max-w-3xl whitespace-pre-line text-muted-foreground">{project.description}</p>
          ) : null}
          <div className="mt-3 flex flex-wrap items-center gap-x-5 gap-y-2 text-sm text-muted-foreground">
            {project.homepage ? (
              <ExternalLinkItem href={project.homepage} icon={Globe} label="Homepage" />
            ) : null}
            {project.sourceUrl ? (
              <ExternalLinkItem href={project.sourceUrl} icon={Code} label="Source" />
            ) : null}
            {project.license ? (
              <span className="inline-flex items-center gap-1.5">
                <Scale className="size-4" aria-hidden="true" />
                <span className="sr-only">License: </span>
                {project.license}
              </span>
            ) : null}
            <span className="inline-flex items-center gap-1.5">
              <Calendar className="size-4" aria-hidden="true" />
              Created <FormattedDate iso={project.createdAt} />
            </span>
          </div>
        </div>
        <div className="flex flex-wrap gap-2 lg:max-w-xl lg:justify-end">
          {project.visibility === "public" ? (
            <Button asChild variant="ghost">
              <a href={`/releases/${project.owner}/${project.slug}`} target="_blank" rel="noopener">
                Public page
                <ExternalLink aria-hidden="true" />
              </a>
            </Button>
          ) : null}
          {can.manage ? (
            <>
              <EditProjectDialog project={project} />
              <DeleteProjectDialog project={project} />
            </>
          ) : null}
        </div>
      </header>

      <StatGrid
        className="mb-8"
        stats={[
          { label: "Releases", value: formatCompactCount(project.releaseCount), icon: Tag },
          {
            label: "Downloads",
            value: formatCompactCount(project.downloads),
            hint: "installs included",
            icon: Download,
          },
          {
            label: "Latest version",
            value: (
              <span className="font-mono text-lg sm:text-xl" title={project.latestVersion ?? undefined}>
                {project.latestVersion ?? "—"}
              </span>
            ),
            icon: Package,
          },
          {
            label: "Last updated",
            value: <FormattedDate iso={project.updatedAt} className="text-base sm:text-xl" />,
            icon: Calendar,
          },
        ]}
      />

      {recent.length === 0 && can.publish ? (
        <PublishInstructions
          target={loaderData.publishTarget}
          title="Your project is empty: publish like this"
          description={
            <>
              Push the first release from a terminal or CI, or create it here and upload its files in the
              browser. The newest release that isn't yanked is what <span className="font-mono">latest</span>{" "}
              points to.
            </>
          }
          action={
            <Button asChild variant="outline" size="sm">
              <Link to={`${releasesPath}?new=1`}>
                <Plus aria-hidden="true" />
                New release
              </Link>
            </Button>
          }
        />
      ) : recent.length === 0 ? (
        <EmptyState icon={Package} title="No releases yet">
          Its publishers create releases and upload their .deb, .rpm, archives and binaries. The newest
          release that isn't yanked is what <span className="font-mono">latest</span> points to.
        </EmptyState>
      ) : (
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-5">
          <Card className="lg:col-span-3">
            <CardHeader className="flex-row items-start justify-between gap-4">
              <div className="grid gap-1.5">
                <CardTitle>Latest release</CardTitle>
                <CardDescription>The newest release that isn't yanked.</CardDescription>
              </div>
              {can.publish ? (
                <Button asChild variant="outline" size="sm">
                  <Link to={`${releasesPath}?new=1`}>
                    <Plus aria-hidden="true" />
                    New release
                  </Link>
                </Button>
              ) : null}
            </CardHeader>
            <CardContent>
              {latest ? (
                <div className="rounded-lg border border-border p-4" data-testid="latest-release">
                  <div className="flex flex-wrap items-baseline justify-between gap-2">
                    <Link
                      to={releasePath(latest.version)}
                      className="font-mono text-lg font-semibold text-primary hover:underline"
                    >
                      {latest.version}
                    </Link>
                    <span className="text-sm text-muted-foreground">
                      <FormattedDate iso={latest.createdAt} />
                    </span>
                  </div>
                  {latest.title ? <p className="mt-1 font-medium">{latest.title}</p> : null}
                  <p className="mt-2 text-sm text-muted-foreground">
                    {latest.fileCount} {latest.fileCount === 1 ? "file" : "files"} ·{" "}
                    {formatCount(latest.downloads, "download")}
                  </p>
                </div>
              ) : (
                <p className="text-sm text-muted-foreground">
                  Every release of this project is yanked, so <span className="font-mono">latest</span> points
                  nowhere.
                </p>
              )}
              <div className="mt-4 grid min-w-0 grid-cols-1 gap-2">
                <p className="text-sm font-medium">Download the latest version of a file</p>
                <div className="flex items-center gap-1 rounded-md border border-border bg-muted/40 py-1 pr-1 pl-3">
                  <code className="min-w-0 flex-1 truncate text-xs">{latestUrlBase}&lt;filename&gt;</code>
                  <CopyButton value={latestUrlBase} label="Copy the latest download URL" />
                </div>
              </div>
            </CardContent>
          </Card>

          <Card className="lg:col-span-2">
            <CardHeader className="flex-row items-center justify-between gap-4">
              <CardTitle>Recent releases</CardTitle>
              <Link
                to={releasesPath}
                className="inline-flex items-center gap-1 rounded-sm text-sm font-medium text-primary hover:underline"
              >
                All releases
                <ArrowRight className="size-3.5" aria-hidden="true" />
              </Link>
            </CardHeader>
            <CardContent>
              <ul className="divide-y divide-border">
                {recent.map((release) => (
                  <li key={release.id} className="flex items-center justify-between gap-3 py-2.5">
                    <div className="flex min-w-0 items-center gap-2">
                      <Link
                        to={releasePath(release.version)}
                        className="truncate font-mono text-sm font-medium hover:text-primary hover:underline"
                      >
                        {release.version}
                      </Link>
                      {release.yanked ? <YankedBadge /> : null}
                    </div>
                    <span className="shrink-0 text-xs text-muted-foreground">
                      <FormattedDate iso={release.createdAt} />
                    </span>
                  </li>
                ))}
              </ul>
            </CardContent>
          </Card>
        </div>
      )}
      {recent.length > 0 && can.publish ? (
        <div className="mt-8">
          <PublishInstructions
            target={loaderData.publishTarget}
            version="VERSION"
            title="Publish a new version"
            description="From a terminal or CI: the CLI creates the release and uploads every file; curl uploads one file with an API key."
          />
        </div>
      ) : null}
      <div className="mt-8">
        <RepositorySetupCard setup={loaderData.setup} files={loaderData.latestFiles} />
      </div>
      <div className="mt-8">
        <ReadmeBadges
          badgeBase={loaderData.badgeBase}
          linkUrl={loaderData.badgeLink}
          isPrivate={project.visibility === "private"}
        />
      </div>
    </>
  );
}
