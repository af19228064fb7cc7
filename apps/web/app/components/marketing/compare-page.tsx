// One comparison page: Packyard and a peer, point by point, each claim about the peer linked to
// the documentation it comes from and dated.
import { comparePages } from "@packyard/contract/site.ts";
import { ExternalLink } from "lucide-react";
import { Link } from "react-router";
import { cn } from "../../lib/utils.ts";
import { type Claim, type Comparison, packyard, READ_ON, topics } from "./compare-data.ts";
import { CallToAction, PageIntro } from "./section.tsx";

const readOn = new Date(`${READ_ON}T00:00:00Z`).toLocaleDateString("en-US", {
  year: "numeric",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

function Citations({ claim, slug }: { claim: Claim; slug: string }) {
  return (
    <>
      {claim.sources.map((index) => (
        <sup key={index} className="ml-0.5">
          <a
            href={`#${slug}-source-${index + 1}`}
            className="rounded px-0.5 text-xs font-medium text-primary hover:underline"
            aria-label={`Source ${index + 1}`}
          >
            [{index + 1}]
          </a>
        </sup>
      ))}
    </>
  );
}

export function ComparePage({ comparison }: { comparison: Comparison }) {
  const { slug, peer } = comparison;
  return (
    <main>
      <PageIntro
        eyebrow="Compare"
        title={`Packyard and ${peer}`}
        lead={
          <>
            {comparison.summary} Below, point by point, from each product's own documentation (read on{" "}
            {readOn}).
          </>
        }
      >
        <nav aria-label="Comparisons" className="mt-8 flex flex-wrap gap-2">
          {comparePages.map((page) => (
            <Link
              key={page.slug}
              to={`/compare/${page.slug}`}
              aria-current={page.slug === slug ? "page" : undefined}
              className={cn(
                "rounded-full border px-4 py-1.5 text-sm font-medium transition-colors",
                page.slug === slug
                  ? "border-primary bg-primary text-primary-foreground"
                  : "border-border text-muted-foreground hover:border-primary/50 hover:text-foreground",
              )}
            >
              vs {page.peer}
            </Link>
          ))}
        </nav>
      </PageIntro>

      <section aria-labelledby="comparison" className="mx-auto max-w-6xl px-4 pb-16 sm:px-6">
        <h2 id="comparison" className="sr-only">
          Point by point
        </h2>
        <div className="overflow-hidden rounded-xl border border-border bg-card shadow-sm">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">{`Packyard and ${peer}, point by point`}</caption>
            <thead className="hidden bg-muted/50 md:table-header-group">
              <tr>
                <th scope="col" className="w-44 px-5 py-3 font-semibold">
                  Point
                </th>
                <th scope="col" className="px-5 py-3 font-semibold">
                  Packyard
                </th>
                <th scope="col" className="px-5 py-3 font-semibold">
                  {peer}
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {topics.map((topic) => {
                const claim = comparison.rows[topic];
                return (
                  <tr key={topic} className="block px-5 py-4 md:table-row md:p-0">
                    <th
                      scope="row"
                      className="block pb-2 font-semibold md:table-cell md:px-5 md:py-4 md:align-top"
                    >
                      {topic}
                    </th>
                    <td className="block pb-3 md:table-cell md:px-5 md:py-4 md:align-top">
                      <span className="mb-1 block text-xs font-semibold uppercase tracking-wide text-primary md:hidden">
                        Packyard
                      </span>
                      {packyard[topic]}
                    </td>
                    <td className="block text-muted-foreground md:table-cell md:px-5 md:py-4 md:align-top">
                      <span className="mb-1 block text-xs font-semibold uppercase tracking-wide md:hidden">
                        {peer}
                      </span>
                      {claim.text}
                      <Citations claim={claim} slug={slug} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>

        <div className="mt-12 grid gap-10 lg:grid-cols-2">
          <div>
            <h2 className="text-xl font-semibold">When {peer} is the better choice</h2>
            <ul className="mt-4 grid gap-3 text-muted-foreground">
              {comparison.strengths.map((claim) => (
                <li key={claim.text} className="rounded-lg border border-border bg-card p-4">
                  {claim.text}
                  <Citations claim={claim} slug={slug} />
                </li>
              ))}
            </ul>
          </div>
          <div>
            <h2 className="text-xl font-semibold">Sources</h2>
            <p className="mt-2 text-sm text-muted-foreground">
              Every statement about {peer} comes from these pages, read on {readOn}. Products change: if one
              of them no longer holds,{" "}
              <Link to="/contact" className="text-primary underline underline-offset-2">
                tell us
              </Link>{" "}
              and we will correct it.
            </p>
            <ol className="mt-4 grid gap-2 text-sm">
              {comparison.sources.map((source, index) => (
                <li key={source.url} id={`${slug}-source-${index + 1}`} className="flex scroll-mt-24 gap-2">
                  <span className="w-6 shrink-0 text-muted-foreground">[{index + 1}]</span>
                  <a
                    href={source.url}
                    rel="noopener noreferrer"
                    target="_blank"
                    className="inline-flex min-w-0 items-start gap-1 break-words text-primary hover:underline"
                  >
                    <span className="min-w-0">{source.title}</span>
                    <ExternalLink className="mt-0.5 size-3.5 shrink-0" aria-hidden="true" />
                    <span className="sr-only">(opens in a new tab)</span>
                  </a>
                </li>
              ))}
            </ol>
          </div>
        </div>
      </section>

      <CallToAction
        title="Signed APT and YUM repositories with release pages"
        text="Start with the free plan: unlimited public projects, one private project, and signing included."
      />
    </main>
  );
}

export function compareMeta(comparison: Comparison) {
  return {
    title: `Compared with ${comparison.peer}`,
    description: `Packyard and ${comparison.peer} compared point by point: APT and YUM hosting, signing and key rotation, atomic publishing, release pages, self-hosting, pricing, CLI and API — each claim sourced and dated.`,
  };
}
