// /releases/{username}/{projectSlug}[/]: always the project's latest release (spec §2). Whether
// the project exists (and may be seen) is the release page's business. Another case of the
// owner's name, or an old name of theirs, first moves to their name now (301).
import { redirect } from "react-router";
import { releasePath } from "../../components/releases/paths.ts";
import { movedOwner } from "../../lib/public-releases.server.ts";
import { services } from "../../lib/session.server.ts";
import type { Route } from "./+types/project";

export async function loader({ params, context, url }: Route.LoaderArgs) {
  const owner = await movedOwner(services(context).database.db, params.username);
  if (owner)
    throw redirect(
      `/releases/${encodeURIComponent(owner)}/${encodeURIComponent(params.projectSlug)}${url.search}`,
      301,
    );
  throw redirect(releasePath(params.username, params.projectSlug, "latest"));
}

export default function ProjectRedirect() {
  return null;
}
