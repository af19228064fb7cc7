// The release page's own not-found view (spec §2, §8): the project or the release is missing,
// or is another user's private project (which looks exactly like a missing one).
import { SearchX } from "lucide-react";
import { Link } from "react-router";
import { Button } from "../ui/button.tsx";
import { releasePath } from "./paths.ts";

export function ReleaseNotFound({
  what,
  owner,
  slug,
  version,
}: {
  what: "project" | "release";
  owner: string;
  slug: string;
  version?: string;
}) {
  const title = what === "project" ? "Project not found" : "Release not found";
  // A missing release sits below the project's own heading.
  const Heading = what === "project" ? "h1" : "h2";
  return (
    <section
      className="mx-auto flex max-w-xl flex-col items-center py-16 text-center"
      data-testid="not-found"
    >
      <div className="rounded-full bg-accent p-3 text-primary">
        <SearchX className="size-6" aria-hidden="true" />
      </div>
      <p className="mt-4 text-sm font-semibold text-primary">404</p>
      <Heading className="mt-1 text-3xl font-bold tracking-tight">{title}</Heading>
      <p className="mt-3 break-words text-muted-foreground">
        {what === "project" ? (
          <>
            There is no public project <span className="font-mono text-foreground">{`${owner}/${slug}`}</span>
            . Check the address for typos, or search the public projects.
          </>
        ) : (
          <>
            <span className="font-mono text-foreground">{`${owner}/${slug}`}</span> has no release{" "}
            <span className="font-mono text-foreground">{version}</span>. It may have been deleted, or the
            version may be misspelled.
          </>
        )}
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        {what === "release" ? (
          <Button asChild>
            <Link to={releasePath(owner, slug)}>Go to the latest release</Link>
          </Button>
        ) : null}
        <Button asChild variant={what === "release" ? "outline" : "default"}>
          <Link to="/releases">Search releases</Link>
        </Button>
        <Button asChild variant="outline">
          <Link to="/">Go to Home page</Link>
        </Button>
      </div>
    </section>
  );
}
