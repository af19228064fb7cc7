// /releases/{username}/{projectSlug}/{releaseVersion}: one project and one release, read on the
// server. "latest" is the newest release that is not yanked; with none the project is shown with
// no release (spec §4). A missing project or release — or another user's private project — is
// this page's own not-found view with HTTP 404 (spec §2, §8).
import { AlertTriangle, CalendarDays, PackageOpen, Settings2 } from "lucide-react";
import { data, Link, redirect } from "react-router";
import { releaseNpmPackages } from "../../../server/formats/npm/page-data.ts";
import { releaseImages } from "../../../server/formats/oci/images.ts";
import { releasePythonPackages } from "../../../server/formats/pypi/page-data.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { formatDate } from "../../components/releases/format-date.ts";
import { ReleaseNotFound } from "../../components/releases/not-found.tsx";
import { releasePath } from "../../components/releases/paths.ts";
import { ProjectHeader } from "../../components/releases/project-header.tsx";
import { ReleaseFiles } from "../../components/releases/release-files.tsx";
import { ReleaseImages } from "../../components/releases/release-images.tsx";
import { ReleaseNotes } from "../../components/releases/release-notes.tsx";
import { ReleasePackages } from "../../components/releases/release-packages.tsx";
import { latestVersion, VersionList, VersionSelect } from "../../components/releases/version-picker.tsx";
import { RepositorySetupCard } from "../../components/repository-setup.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Badge } from "../../components/ui/badge.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import { sessionActor } from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { failsAs, RELEASE_FETCH_FAILED } from "../../lib/page-data.server.ts";
import { releasePath as dashboardReleasePath, projectPath } from "../../lib/project-path.ts";
import { loadReleasePage } from "../../lib/public-releases.server.ts";
import { repositorySetup } from "../../lib/repository-setup.server.ts";
import { getSessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/release";

async function load({ request, context, params, url }: Route.LoaderArgs) {
  const { database, config } = services(context);
  const user = await getSessionUser(request, context);
  const page = await loadReleasePage(
    database.db,
    config.baseUrl,
    { username: params.username, projectSlug: params.projectSlug, requested: params.releaseVersion },
    user ? sessionActor(user) : null,
  );
  // Another case of the owner's name, or an old name of theirs: the page at their name now.
  if (page.status === "moved")
    throw redirect(`${releasePath(page.owner, params.projectSlug, params.releaseVersion)}${url.search}`, 301);
  const status = page.status === "project-not-found" || page.status === "release-not-found" ? 404 : 200;
  const setup =
    page.status === "project-not-found"
      ? null
      : await repositorySetup(context, page.project, page.project.owner);
  // Container images tagged with the release's version (docs/containers.md): pulled by digest,
  // so yanking the release or moving the tag later does not change what the line pulls.
  const images =
    page.status === "ok"
      ? await releaseImages(
          database.db,
          services(context).blobs,
          { id: page.project.id, slug: page.project.slug, username: page.project.owner },
          page.release.version,
          config.baseUrl,
        )
      : [];
  // npm packages and Python distributions stored in the release (docs/npm.md, docs/pypi.md).
  const [npm, python] =
    page.status === "ok"
      ? await Promise.all([
          releaseNpmPackages(database.db, config.baseUrl, page.project, page.release.version),
          releasePythonPackages(database.db, config.baseUrl, page.project, page.release.version),
        ])
      : [[], []];
  return data({ ...page, setup, images, npm, python }, { status });
}
export const loader = failsAs(RELEASE_FETCH_FAILED, load);

const DESCRIPTION_MAX = 200;
const clip = (text: string) =>
  text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX - 1)}…` : text;

export const meta: Route.MetaFunction = ({ matches, location, loaderData: page }) => {
  const baseUrl = matches[0]?.loaderData?.baseUrl;
  const path = location.pathname;
  if (!page || page.status === "project-not-found")
    return pageMeta({ baseUrl, path, title: "Project not found", noindex: true });
  const { project } = page;
  if (page.status === "release-not-found")
    return pageMeta({ baseUrl, path, title: `Release not found · ${project.name}`, noindex: true });
  const title = page.status === "ok" ? `${project.name} ${page.release.version}` : project.name;
  const summary =
    page.status === "ok"
      ? `${project.name} ${page.release.version}${page.release.title ? ` — ${page.release.title}` : ""} by @${project.owner}. ${project.description ?? "Release notes, checksums and downloads."}`
      : `${project.name} by @${project.owner}. ${project.description ?? "Releases on Packyard."}`;
  // pageMeta brings the Open Graph and Twitter card tags.
  return pageMeta({
    baseUrl,
    path,
    title,
    description: clip(summary),
    noindex: project.visibility === "private",
  });
};

export default function ReleasePage({ loaderData: page }: Route.ComponentProps) {
  if (page.status === "project-not-found") {
    return (
      <main className="mx-auto max-w-6xl px-4 sm:px-6">
        <ReleaseNotFound what="project" owner={page.username} slug={page.projectSlug} />
      </main>
    );
  }
  const { project, versions } = page;
  const current = page.status === "ok" ? page.release.version : undefined;
  return (
    <main className="mx-auto grid max-w-6xl gap-10 px-4 py-10 sm:px-6 sm:py-12">
      <ProjectHeader project={project} />
      <div className="grid gap-10 lg:grid-cols-[minmax(0,1fr)_17rem]">
        <div className="grid min-w-0 content-start gap-8">
          {page.status === "ok" ? (
            <ReleaseBody page={page} />
          ) : page.status === "release-not-found" ? (
            <ReleaseNotFound
              what="release"
              owner={project.owner}
              slug={project.slug}
              version={page.requested}
            />
          ) : (
            <NoRelease
              owner={project.owner}
              slug={project.slug}
              versions={versions}
              isOwner={page.isOwner}
              manage={projectPath(project)}
            />
          )}
        </div>
        <aside className="grid content-start gap-6" aria-label="Project versions">
          <VersionList owner={project.owner} slug={project.slug} versions={versions} current={current} />
          {page.isOwner ? (
            <Card className="grid gap-2 p-4 text-sm">
              <p className="font-medium">You own this project</p>
              <p className="text-muted-foreground">
                Edit notes, upload files or yank releases from your dashboard.
              </p>
              <Button asChild variant="outline" size="sm" className="justify-self-start">
                <Link to={current ? dashboardReleasePath(project, current) : projectPath(project)}>
                  <Settings2 aria-hidden="true" />
                  Manage
                </Link>
              </Button>
            </Card>
          ) : null}
        </aside>
      </div>
    </main>
  );
}

type OkPage = Extract<Route.ComponentProps["loaderData"], { status: "ok" }>;

function ReleaseBody({ page }: { page: OkPage }) {
  const { project, release, versions } = page;
  const latest = latestVersion(versions);
  return (
    <>
      <section aria-labelledby="release-heading" className="grid gap-4">
        <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0">
            <div className="flex flex-wrap items-center gap-2">
              <h2 id="release-heading" className="break-words text-2xl font-semibold tracking-tight">
                {release.title || `Version ${release.version}`}
              </h2>
              {release.yanked ? (
                <Badge variant="destructive">Yanked</Badge>
              ) : release.version === latest ? (
                <Badge variant="success">Latest</Badge>
              ) : null}
            </div>
            <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-muted-foreground">
              {release.title ? <span className="font-mono text-foreground">{release.version}</span> : null}
              <span className="inline-flex items-center gap-1">
                <CalendarDays className="size-4" aria-hidden="true" />
                Published <time dateTime={release.publishedAt}>{formatDate(release.publishedAt)}</time>
              </span>
            </p>
          </div>
          <VersionSelect
            owner={project.owner}
            slug={project.slug}
            versions={versions}
            current={release.version}
          />
        </div>
        {release.yanked ? (
          <Alert variant="error" role="note" className="flex gap-3" data-testid="yanked-banner">
            <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <div className="grid gap-1">
              <p className="font-semibold">This release has been yanked</p>
              {release.yankedReason ? (
                <p className="whitespace-pre-line">Reason: {release.yankedReason}</p>
              ) : null}
              <p className="text-foreground/80">
                It stays downloadable for existing users, but should not be used for new installs.{" "}
                {latest ? (
                  <Link
                    className="font-medium underline underline-offset-4"
                    to={releasePath(project.owner, project.slug, latest)}
                  >
                    {`Go to the latest release (${latest})`}
                  </Link>
                ) : null}
              </p>
            </div>
          </Alert>
        ) : null}
      </section>

      <section aria-labelledby="notes-heading" className="grid gap-3">
        <h3 id="notes-heading" className="text-lg font-semibold tracking-tight">
          Release notes
        </h3>
        <Card className="p-5 sm:p-6">
          {release.notes?.trim() ? (
            <ReleaseNotes markdown={release.notes} />
          ) : (
            <p className="text-sm text-muted-foreground">No release notes for this version.</p>
          )}
        </Card>
      </section>

      <ReleaseFiles
        files={release.files}
        sumsUrl={page.sumsUrl}
        keyUrl={page.setup?.keyUrl ?? page.sumsUrl.replace(/\/releases\/[^/]+\/SHA256SUMS$/, "/gpg.key")}
      />
      {page.setup ? <RepositorySetupCard setup={page.setup} files={release.files} /> : null}
      <ReleasePackages
        npm={page.npm}
        python={page.python}
        isPrivate={page.project.visibility === "private"}
      />
      {page.images.length > 0 ? <ReleaseImages images={page.images} /> : null}
    </>
  );
}

function NoRelease({
  owner,
  slug,
  versions,
  isOwner,
  manage,
}: {
  owner: string;
  slug: string;
  versions: OkPage["versions"];
  isOwner: boolean;
  /** The project's dashboard page (lib/project-path.ts). */
  manage: string;
}) {
  const allYanked = versions.length > 0;
  return (
    <EmptyState
      icon={PackageOpen}
      title="No releases yet"
      action={
        isOwner ? (
          <Button asChild>
            <Link to={manage}>Publish a release</Link>
          </Button>
        ) : allYanked ? (
          <VersionSelect owner={owner} slug={slug} versions={versions} />
        ) : null
      }
    >
      {allYanked
        ? "Every release of this project has been yanked, so there is no current release. Older versions are still listed for reference."
        : "This project has not published a release. Check back later."}
    </EmptyState>
  );
}
