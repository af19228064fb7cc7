// /projects/{projectSlug}/libraries: the project's npm packages and Python distributions (issue
// 42, docs/npm.md, docs/pypi.md) — how to point npm, twine and pip at its registry and index,
// then each package with its newest version, tags, deprecation and provenance. Anyone who may
// read the project sees it; publishing needs an API key with publish access.
import { projectNpmPackages } from "../../../server/formats/npm/page-data.ts";
import { projectPythonPackages } from "../../../server/formats/pypi/page-data.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { LibrariesPanel } from "../../components/libraries/libraries-panel.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import {
  projectPageOr404,
  projectPermissions,
  projectPlace,
  sessionActor,
} from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath, releasePath } from "../../lib/project-path.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-libraries";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Libraries of ${loaderData.project.name}` : "Libraries",
    noindex: true,
  });

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const row = await projectPageOr404(database.db, user, params, url);
  const place = await projectPlace(database.db, row);
  const [npm, python, can] = await Promise.all([
    projectNpmPackages(database.db, row.id),
    projectPythonPackages(database.db, row.id),
    projectPermissions(database.db, sessionActor(user), row),
  ]);
  return {
    project: { ...place, name: row.name },
    npmRegistry: `${config.baseUrl}/npm/${place.owner}/${place.slug}/`,
    pypiUpload: `${config.baseUrl}/pypi/${place.owner}/${place.slug}/`,
    npm,
    python,
    can,
  };
}

export default function ProjectLibraries({ loaderData }: Route.ComponentProps) {
  const { project, npm, python, npmRegistry, pypiUpload, can } = loaderData;
  return (
    <>
      <Breadcrumbs items={projectCrumbs(project, "Libraries")} />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <PageHeader
        title="Libraries"
        description="Every project is an npm registry and a Python package index: each version is a file of the release of the same version."
      />
      <LibrariesPanel
        npmRegistry={npmRegistry}
        pypiUpload={pypiUpload}
        npm={npm}
        python={python}
        scope={project.owner.toLowerCase()}
        releaseHref={(version) => releasePath(project, version)}
      />
    </>
  );
}
