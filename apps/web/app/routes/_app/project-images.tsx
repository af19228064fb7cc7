// /projects/{projectSlug}/images: the project's container images (issue 41, docs/containers.md) —
// how to log in and push, and each image's tags with their digests, platforms, sizes and who
// pushed them. Anyone who may read the project sees it; pushing needs an API key with publish
// access (the registry at /v2/).
import { projectImages } from "../../../server/formats/oci/images.ts";
import { Breadcrumbs } from "../../components/dashboard/breadcrumbs.tsx";
import { ProjectTabs } from "../../components/dashboard/project-tabs.tsx";
import { ImagesPanel } from "../../components/images/images-panel.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import {
  projectPageOr404,
  projectPermissions,
  projectPlace,
  sessionActor,
} from "../../lib/dashboard.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { projectCrumbs, projectPath } from "../../lib/project-path.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project-images";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Images of ${loaderData.project.name}` : "Images",
    noindex: true,
  });

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config, blobs } = services(context);
  const row = await projectPageOr404(database.db, user, params, url);
  const place = await projectPlace(database.db, row);
  const registry = new URL(config.baseUrl).host;
  return {
    project: { ...place, name: row.name },
    registry,
    defaultReference: `${registry}/${place.owner}/${place.slug}`.toLowerCase(),
    images: await projectImages(
      database.db,
      blobs,
      { id: row.id, slug: place.slug, username: place.owner },
      config.baseUrl,
    ),
    can: await projectPermissions(database.db, sessionActor(user), row),
  };
}

export default function ProjectImages({ loaderData }: Route.ComponentProps) {
  const { project, images, registry, defaultReference, can } = loaderData;
  return (
    <>
      <Breadcrumbs items={projectCrumbs(project, "Images")} />
      <ProjectTabs base={projectPath(project)} oversee={can.manage} />
      <PageHeader
        title="Container images"
        description="Every project is a container registry: the same keys, entitlement tokens and audit log as its packages."
      />
      <ImagesPanel images={images} registry={registry} defaultReference={defaultReference} />
    </>
  );
}
