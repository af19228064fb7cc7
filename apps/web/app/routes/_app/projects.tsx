// /projects: the publisher's projects.
import { FolderGit2 } from "lucide-react";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/projects";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Projects",
    noindex: true,
  });

export default function Projects() {
  return (
    <>
      <PageHeader
        title="Projects"
        description="Each project has releases, a signed APT and YUM repository, and public download URLs."
      />
      <EmptyState icon={FolderGit2} title="You have no projects yet">
        Projects you create are listed here with their latest release and download counts.
      </EmptyState>
    </>
  );
}
