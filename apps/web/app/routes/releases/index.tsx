// /releases?q=…: search the public projects by name, slug, description or owner. Private
// projects are never listed, not even to their owners (this is the public directory).
import { PackageSearch, Search } from "lucide-react";
import { Form, Link, useNavigation } from "react-router";
import { EmptyState } from "../../components/empty-state.tsx";
import { ProjectCard } from "../../components/releases/project-card.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Input } from "../../components/ui/input.tsx";
import { pageMeta } from "../../lib/meta.ts";
import { normalizeQuery, SEARCH_LIMIT, searchPublicProjects } from "../../lib/public-releases.server.ts";
import { services } from "../../lib/session.server.ts";
import type { Route } from "./+types/index";

export async function loader({ context, url }: Route.LoaderArgs) {
  const q = normalizeQuery(url.searchParams.get("q"));
  const result = await searchPublicProjects(services(context).database.db, q);
  return { q, limit: SEARCH_LIMIT, ...result };
}

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData?.q ? `“${loaderData.q}” · Releases` : "Releases",
    description:
      "Browse and search public projects on Packyard: release notes, checksums and stable download URLs.",
    noindex: Boolean(loaderData?.q),
  });

export default function Releases({ loaderData }: Route.ComponentProps) {
  const { q, projects, truncated, limit } = loaderData;
  const navigation = useNavigation();
  const searching = navigation.state === "loading" && navigation.location?.pathname === "/releases";
  return (
    <main className="mx-auto max-w-6xl px-4 py-12 sm:px-6 sm:py-16">
      <div className="max-w-2xl">
        <h1 className="text-3xl font-bold tracking-tight sm:text-4xl">Public releases</h1>
        <p className="mt-3 text-muted-foreground">
          Find a project published on Packyard and download its releases, with checksums for every file.
        </p>
      </div>

      <Form method="get" role="search" className="mt-8 flex max-w-2xl gap-2" aria-label="Public projects">
        <label htmlFor="releases-q" className="sr-only">
          Search public projects
        </label>
        <div className="relative flex-1">
          <Search
            className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground"
            aria-hidden="true"
          />
          <Input
            key={q}
            id="releases-q"
            type="search"
            name="q"
            defaultValue={q}
            maxLength={100}
            placeholder="Project, description or owner"
            className="pl-9"
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <Button type="submit" disabled={searching}>
          Search
        </Button>
      </Form>

      <section className="mt-10" aria-labelledby="results-heading" aria-busy={searching}>
        <h2 id="results-heading" className="text-sm font-medium text-muted-foreground" aria-live="polite">
          {q
            ? projects.length === 0
              ? `No results for “${q}”`
              : `${truncated ? `First ${limit}` : projects.length} public project${projects.length === 1 ? "" : "s"} matching “${q}”`
            : projects.length === 0
              ? "No public projects yet"
              : "Recently updated"}
        </h2>
        {projects.length === 0 ? (
          <div className="mt-4">
            {q ? (
              <EmptyState
                icon={PackageSearch}
                title="No matching projects"
                action={
                  <Button asChild variant="outline">
                    <Link to="/releases">Clear the search</Link>
                  </Button>
                }
              >
                No public project has “{q}” in its name, description or owner. Try a shorter word, or check
                the spelling. Private projects never appear here.
              </EmptyState>
            ) : (
              <EmptyState
                icon={PackageSearch}
                title="Nothing published yet"
                action={
                  <Button asChild>
                    <Link to="/auth/signin?mode=signup">Publish the first project</Link>
                  </Button>
                }
              >
                Public projects show up here once their owners create them.
              </EmptyState>
            )}
          </div>
        ) : (
          <>
            <ul className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-3" data-testid="search-results">
              {projects.map((project) => (
                <ProjectCard key={project.id} project={project} />
              ))}
            </ul>
            {truncated ? (
              <p className="mt-6 text-sm text-muted-foreground">
                Showing the {limit} most recently updated matches. Add words to narrow the search.
              </p>
            ) : null}
          </>
        )}
      </section>
    </main>
  );
}
