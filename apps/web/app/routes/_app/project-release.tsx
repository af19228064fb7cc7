// /projects/{projectSlug}/releases/{releaseVersion}: one release — upload and manage its files,
// edit its title and notes, yank or unyank it, promote it (decision 035).
import { Calendar, Download, ExternalLink, FileArchive, HardDrive } from "lucide-react";
import { Link, redirect } from "react-router";
import {
  deleteReleaseFile,
  unyankRelease,
  updateRelease,
  yankRelease,
} from "../../../server/releases/use-cases.ts";
import { YankedBadge } from "../../components/dashboard/badges.tsx";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { DownloadsTable } from "../../components/dashboard/downloads-table.tsx";
import { FileUploader } from "../../components/dashboard/file-uploader.tsx";
import { FilesTable } from "../../components/dashboard/files-table.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import {
  buttonForm,
  deleteFileForm,
  releaseDetailsForm,
  yankForm,
} from "../../components/dashboard/forms.ts";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { PROMOTE_FETCHER, PromoteDialog } from "../../components/dashboard/promote-dialog.tsx";
import {
  ReleaseDetailsForm,
  UNYANK_FETCHER,
  UPDATE_RELEASE_FETCHER,
  YankedBanner,
} from "../../components/dashboard/release-details.tsx";
import { YANK_FETCHER, YankDialog } from "../../components/dashboard/release-dialogs.tsx";
import { StatGrid } from "../../components/dashboard/stats.tsx";
import { useFetcherToasts } from "../../components/dashboard/use-fetcher-outcome.ts";
import { useFlashToast } from "../../components/dashboard/use-flash-toast.ts";
import { PublishInstructions } from "../../components/publish-instructions.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { Markdown } from "../../components/ui/markdown.tsx";
import {
  domainFailure,
  invalid,
  isDomainError,
  projectDto,
  projectForAction,
  projectPageOr404,
  projectPermissions,
  projectRef,
  refused,
  releaseDto,
  releaseOr404,
  sessionActor,
  sessionCaller,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { releaseDownloads } from "../../lib/downloads.server.ts";
import { formatCompactCount, formatFileSize } from "../../lib/format.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { failsAs, RELEASE_FETCH_FAILED } from "../../lib/page-data.server.ts";
import { projectCrumbs, projectPath, projectRefOf, releasePath } from "../../lib/project-path.ts";
import { promoteAction, promotionChoices } from "../../lib/promotion.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-release";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `${loaderData.project.name} ${loaderData.release.version}` : "Release",
    noindex: true,
  });

async function load({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const row = await projectPageOr404(db, user, params, url);
  const releaseRow = await releaseOr404(db, row.id, params.releaseVersion);
  const project = await projectDto(db, row);
  // "latest" moves; the page of a release lives at its own version.
  if (params.releaseVersion === "latest") {
    throw redirect(releasePath(project, releaseRow.version));
  }
  return {
    project: {
      slug: project.slug,
      name: project.name,
      owner: project.owner,
      ownerKind: project.ownerKind,
      visibility: project.visibility,
    },
    can: await projectPermissions(db, actor, row),
    release: await releaseDto(db, config.baseUrl, project, releaseRow),
    maxUploadBytes: config.maxUploadBytes,
    publishTarget: { baseUrl: config.baseUrl, owner: project.owner, slug: project.slug },
    fileDownloads: await releaseDownloads(
      db,
      row.id,
      releaseRow.version,
      services(context).clock().toISOString().slice(0, 10),
    ),
    promotion: await promotionChoices(db, row, releaseRow),
  };
}
export const loader = failsAs(RELEASE_FETCH_FAILED, load);

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database } = services(context);
  const db = database.db;
  const formData = await request.formData();
  const ref = projectRef(params, user);
  const { project, refusal } = await projectForAction(db, sessionActor(user), ref, "publish", formData);
  if (refusal) return refusal;
  const release = await releaseOr404(db, project.id, params.releaseVersion);
  const caller = sessionCaller(user, clientAddress(context));
  const target = { project: ref, version: release.version };

  switch (formData.get("intent") ?? "") {
    case "update": {
      const submission = parseForm(formData, releaseDetailsForm);
      if (submission.status !== "success") return invalid(submission);
      await updateRelease({ db }, caller, { ...target, changes: submission.value });
      return succeeded(submission, "Release saved");
    }
    case "yank": {
      const submission = parseForm(formData, yankForm);
      if (submission.status !== "success") return invalid(submission);
      await yankRelease({ db }, caller, { ...target, reason: submission.value.reason });
      return succeeded(submission, `Release ${release.version} yanked`);
    }
    case "unyank": {
      await unyankRelease({ db }, caller, target);
      return succeeded(parseForm(formData, buttonForm), `Release ${release.version} is no longer yanked`);
    }
    case "delete-file": {
      const submission = parseForm(formData, deleteFileForm);
      const filename = submission.status === "success" ? submission.value.filename : "";
      try {
        await deleteReleaseFile({ db }, caller, { ...target, filename });
      } catch (error) {
        if (isDomainError(error, "NOT_FOUND")) {
          return refused(submission, 404, {
            formError: `${filename} was already deleted`,
            code: "NOT_FOUND",
          });
        }
        return domainFailure(submission, error);
      }
      return succeeded(submission, `Deleted ${filename}`);
    }
    case "promote":
      return promoteAction(services(context), user, project, release, formData, clientAddress(context));
    default:
      return refused(parseForm(formData, buttonForm), 400, { formError: "Unknown action" });
  }
}

export default function ProjectRelease({ loaderData }: Route.ComponentProps) {
  const { project, release, maxUploadBytes, promotion, can } = loaderData;
  useFlashToast("created", () => `Release ${release.version} created. Upload its files below.`);
  useFetcherToasts(YANK_FETCHER);
  useFetcherToasts(UNYANK_FETCHER, { failures: true });
  useFetcherToasts(UPDATE_RELEASE_FETCHER);
  useFetcherToasts(PROMOTE_FETCHER);
  const totalBytes = release.files.reduce((sum, f) => sum + f.size, 0);
  const downloads = release.files.reduce((sum, f) => sum + f.downloads, 0);
  const publicPage =
    project.visibility === "public"
      ? `/releases/${project.owner}/${project.slug}/${encodeURIComponent(release.version)}`
      : null;

  return (
    <>
      <Breadcrumbs
        items={[
          ...projectCrumbs(project, "Releases").slice(0, 2),
          { label: "Releases", to: projectPath(project, "/releases") },
          { label: release.version },
        ]}
      />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <header className="mb-6 flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
            <h1 className="break-all font-mono text-2xl font-bold tracking-tight">{release.version}</h1>
            {release.yanked ? <YankedBadge /> : null}
          </div>
          {release.title ? <p className="mt-1 text-lg text-foreground">{release.title}</p> : null}
          <p className="mt-1 flex items-center gap-1.5 text-sm text-muted-foreground">
            <Calendar className="size-4" aria-hidden="true" />
            Published <FormattedDate iso={release.publishedAt} withTime /> in{" "}
            <Link to={projectPath(project)} className="font-medium text-foreground hover:underline">
              {project.name}
            </Link>
          </p>
        </div>
        <div className="flex shrink-0 flex-wrap gap-2">
          {publicPage ? (
            <Button asChild variant="ghost">
              <a href={publicPage} target="_blank" rel="noopener">
                Public page
                <ExternalLink aria-hidden="true" />
              </a>
            </Button>
          ) : null}
          {release.yanked || !can.publish ? null : (
            <PromoteDialog version={release.version} choices={promotion} />
          )}
          {release.yanked || !can.publish ? null : <YankDialog version={release.version} />}
        </div>
      </header>

      {release.yanked ? <YankedBanner release={release} readOnly={!can.publish} /> : null}

      <StatGrid
        className="mb-6 lg:grid-cols-3"
        stats={[
          { label: "Files", value: release.files.length, icon: FileArchive },
          { label: "Total size", value: formatFileSize(totalBytes), icon: HardDrive },
          {
            label: "Downloads",
            value: formatCompactCount(downloads),
            hint: "installs included",
            icon: Download,
          },
        ]}
      />

      <div className="grid grid-cols-1 gap-6">
        <Card>
          <CardHeader className="px-4 sm:px-6">
            <CardTitle>Files</CardTitle>
            <CardDescription>
              Files are immutable: to replace one, delete it and upload the new one. Checksums are computed on
              upload.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid grid-cols-1 gap-6 px-4 sm:px-6">
            {can.publish ? (
              <FileUploader
                projectSlug={projectRefOf(project)}
                version={release.version}
                maxBytes={maxUploadBytes}
              />
            ) : null}
            <FilesTable files={release.files} readOnly={!can.publish} />
          </CardContent>
        </Card>
        {can.publish && !release.yanked ? (
          <PublishInstructions
            target={loaderData.publishTarget}
            version={release.version}
            title="Add files from a terminal"
            description={`Push more files to ${release.version} from a terminal or CI. The CLI skips a file already here with the same contents; files are immutable, so one of that name with other contents is refused.`}
          />
        ) : null}
        <Card>
          <CardHeader className="flex-row items-start justify-between gap-4 px-4 sm:px-6">
            <div className="grid gap-1.5">
              <CardTitle>Installs and downloads per file</CardTitle>
              <CardDescription>
                The last 90 days (UTC): release URLs, APT and YUM repositories.
              </CardDescription>
            </div>
            <Link
              to={projectPath(project, "/downloads")}
              className="shrink-0 rounded-sm text-sm font-medium text-primary hover:underline"
            >
              All downloads
            </Link>
          </CardHeader>
          <CardContent className="px-4 sm:px-6">
            <DownloadsTable
              caption="Installs and downloads per file, last 90 days"
              keyLabel="File"
              rows={loaderData.fileDownloads.rows}
              renderKey={(row) => (
                <span className="font-mono text-xs sm:text-sm" title={row.key}>
                  {row.key}
                </span>
              )}
              empty="No installs or downloads in the last 90 days."
              testId="release-downloads"
            />
          </CardContent>
        </Card>
        {can.publish ? (
          <ReleaseDetailsForm key={release.id} release={release} />
        ) : release.notes ? (
          <Card>
            <CardHeader className="px-4 sm:px-6">
              <CardTitle>Release notes</CardTitle>
            </CardHeader>
            <CardContent className="px-4 sm:px-6">
              <Markdown>{release.notes}</Markdown>
            </CardContent>
          </Card>
        ) : null}
      </div>
    </>
  );
}
