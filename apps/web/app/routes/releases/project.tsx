// /releases/{username}/{projectSlug}[/]: always the project's latest release (spec §2). Whether
// the project exists (and may be seen) is the release page's business.
import { redirect } from "react-router";
import { releasePath } from "../../components/releases/paths.ts";
import type { Route } from "./+types/project";

export function loader({ params }: Route.LoaderArgs) {
  throw redirect(releasePath(params.username, params.projectSlug, "latest"));
}

export default function ProjectRedirect() {
  return null;
}
