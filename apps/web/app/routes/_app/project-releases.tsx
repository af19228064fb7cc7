// /projects/{projectSlug}/releases: every release of a project, newest first, and the New
// release dialog (opened directly with ?new=1).
import { Tag } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, redirect, type ShouldRevalidateFunction, useSearchParams } from "react-router";
import { createRelease } from "../../../server/releases/use-cases.ts";
import { YankedBadge } from "../../components/dashboard/badges.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { buttonForm, newReleaseForm } from "../../components/dashboard/forms.ts";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { NewReleaseButton, NewReleaseDialog } from "../../components/dashboard/release-dialogs.tsx";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Card } from "../../components/ui/card.tsx";
import {
  domainFailure,
  invalid,
  listReleaseSummaries,
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectPlace,
  projectRef,
  refused,
  sessionActor,
  sessionCaller,
} from "../../lib/dashboard.server.ts";
import { formatCompactCount } from "../../lib/format.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath, releasePath as releasePathOf } from "../../lib/project-path.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-releases";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Releases · ${loaderData.project.name}` : "Releases",
    noindex: true,
  });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  const actor = sessionActor(user);
  const project = await projectPageOr404(db, user, params, url);
  return {
    project: { ...(await projectPlace(db, project)), name: project.name },
    can: await projectPermissions(db, actor, project),
    releases: await listReleaseSummaries(db, project.id),
  };
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const db = services(context).database.db;
  const formData = await request.formData();
  const ref = projectRef(params, user);
  const { project, refusal } = await projectForAction(db, sessionActor(user), ref, "publish", formData);
  if (refusal) return refusal;
  if ((formData.get("intent") ?? "create") !== "create") {
    return refused(parseForm(formData, buttonForm), 400, { formError: "Unknown action" });
  }
  const submission = parseForm(formData, newReleaseForm);
  if (submission.status !== "success") return invalid(submission);
  const { version } = submission.value;
  try {
    await createRelease({ db }, sessionCaller(user, clientAddress(context)), {
      project: ref,
      release: submission.value,
    });
  } catch (error) {
    return domainFailure(submission, error, { VERSION_EXISTS: "version", INVALID_VERSION: "version" });
  }
  throw redirect(`${releasePathOf(await projectPlace(db, project), version)}?created=1`);
}

// Opening the dialog from a link (?new=1) and dropping the param again needs no new data.
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}) => {
  if (formMethod || currentUrl.pathname !== nextUrl.pathname) return defaultShouldRevalidate;
  const withoutNew = (url: URL) => {
    const params = new URLSearchParams(url.search);
    params.delete("new");
    return params.toString();
  };
  return withoutNew(currentUrl) === withoutNew(nextUrl) ? false : defaultShouldRevalidate;
};

export default function ProjectReleases({ loaderData }: Route.ComponentProps) {
  const { project, releases, can } = loaderData;
  const [search, setSearch] = useSearchParams();
  const [dialogOpen, setDialogOpen] = useState(() => search.get("new") === "1");
  // A link with ?new=1 opens the dialog once; a reload afterwards shouldn't open it again.
  useEffect(() => {
    if (search.get("new") === null) return;
    const next = new URLSearchParams(search);
    next.delete("new");
    setSearch(next, { replace: true, preventScrollReset: true });
  }, [search, setSearch]);
  const releasePath = (version: string) => releasePathOf(project, version);
  const dialog = can.publish ? (
    <NewReleaseDialog
      action={projectPath(project, "/releases")}
      open={dialogOpen}
      onOpenChange={setDialogOpen}
      trigger={<NewReleaseButton />}
    />
  ) : undefined;

  return (
    <>
      <Breadcrumbs items={projectCrumbs(project, "Releases")} />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <PageHeader
        title="Releases"
        description={
          <>
            Every version of <span className="font-medium text-foreground">{project.name}</span>, newest
            first.
          </>
        }
        actions={dialog}
      />
      {releases.length === 0 ? (
        <EmptyState icon={Tag} title="No releases yet">
          Create a release with the <span className="font-medium">New release</span> button, then upload its
          files. You can also publish from CI: uploading to a version that doesn't exist yet creates it.
        </EmptyState>
      ) : (
        <Card className="overflow-hidden">
          <table className="w-full table-fixed text-sm" data-testid="releases-table">
            <caption className="sr-only">Releases of {project.name}</caption>
            <thead className="border-b border-border bg-muted/40 text-left text-xs font-medium uppercase tracking-wide text-muted-foreground">
              <tr>
                <th scope="col" className="px-4 py-3 sm:px-6">
                  Version
                </th>
                <th scope="col" className="hidden px-4 py-3 md:table-cell">
                  Title
                </th>
                <th scope="col" className="w-20 px-4 py-3 text-right">
                  Files
                </th>
                <th scope="col" className="hidden w-32 px-4 py-3 text-right sm:table-cell">
                  Downloads
                </th>
                <th scope="col" className="hidden w-36 px-4 py-3 text-right sm:table-cell sm:pr-6">
                  Published
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {releases.map((release) => (
                <tr key={release.id} className="transition-colors hover:bg-muted/40">
                  <td className="px-4 py-3 sm:px-6">
                    <div className="flex min-w-0 flex-wrap items-center gap-2">
                      <Link
                        to={releasePath(release.version)}
                        className="truncate rounded-sm font-mono font-medium hover:text-primary hover:underline"
                      >
                        {release.version}
                      </Link>
                      {release.yanked ? <YankedBadge /> : null}
                    </div>
                    {release.title ? (
                      <div className="mt-0.5 truncate text-xs text-muted-foreground md:hidden">
                        {release.title}
                      </div>
                    ) : null}
                    <div className="mt-0.5 text-xs text-muted-foreground sm:hidden">
                      <FormattedDate iso={release.createdAt} />
                    </div>
                  </td>
                  <td className="hidden truncate px-4 py-3 md:table-cell">
                    {release.title ?? <span className="text-muted-foreground">—</span>}
                  </td>
                  <td className="px-4 py-3 text-right tabular-nums">{release.fileCount}</td>
                  <td className="hidden px-4 py-3 text-right tabular-nums sm:table-cell">
                    {formatCompactCount(release.downloads)}
                  </td>
                  <td className="hidden px-4 py-3 text-right whitespace-nowrap text-muted-foreground sm:table-cell sm:pr-6">
                    <FormattedDate iso={release.createdAt} />
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
