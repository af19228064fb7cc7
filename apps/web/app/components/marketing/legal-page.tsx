// The frame of a legal page: title, last-updated date, a table of contents and readable text.
import type { ReactNode } from "react";
import { Link } from "react-router";

export interface LegalSection {
  id: string;
  title: string;
  body: ReactNode;
}

export function LegalPage({
  title,
  lastUpdated,
  intro,
  sections,
  other,
}: {
  title: string;
  /** ISO date. */
  lastUpdated: string;
  intro: ReactNode;
  sections: LegalSection[];
  other: { to: string; label: string };
}) {
  const date = new Date(`${lastUpdated}T00:00:00Z`);
  const shown = date.toLocaleDateString("en-US", {
    year: "numeric",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
  });
  return (
    <main className="mx-auto max-w-6xl px-4 pb-20 pt-14 sm:px-6 sm:pt-20">
      <p className="text-sm font-semibold uppercase tracking-wide text-primary">Legal</p>
      <h1 className="mt-3 text-4xl font-bold tracking-tight">{title}</h1>
      <p className="mt-3 text-sm text-muted-foreground">
        Last updated: <time dateTime={lastUpdated}>{shown}</time>
      </p>
      <div className="mt-10 grid gap-10 lg:grid-cols-[14rem_1fr]">
        <nav aria-label="On this page" className="lg:sticky lg:top-24 lg:self-start">
          <p className="text-sm font-semibold">On this page</p>
          <ol className="mt-3 grid gap-1.5 border-l border-border text-sm">
            {sections.map((section) => (
              <li key={section.id}>
                <a
                  href={`#${section.id}`}
                  className="-ml-px block border-l border-transparent pl-3 text-muted-foreground hover:border-primary hover:text-foreground"
                >
                  {section.title}
                </a>
              </li>
            ))}
          </ol>
          <p className="mt-6 text-sm">
            <Link to={other.to} className="text-primary hover:underline">
              {other.label}
            </Link>
          </p>
        </nav>
        <article className="max-w-3xl text-[15px] leading-7">
          <div className="text-lg text-muted-foreground [&_a]:text-primary [&_a]:underline [&_a]:underline-offset-2">
            {intro}
          </div>
          {sections.map((section, index) => (
            <section key={section.id} aria-labelledby={section.id} className="mt-10">
              <h2 id={section.id} className="scroll-mt-24 text-xl font-semibold tracking-tight">
                {index + 1}. {section.title}
              </h2>
              <div className="mt-3 grid gap-3 text-foreground/90 [&_a]:text-primary [&_a]:underline [&_a]:underline-offset-2 [&_code]:rounded [&_code]:bg-muted [&_code]:px-1 [&_code]:text-[13px] [&_li]:ml-5 [&_li]:list-disc [&_ul]:grid [&_ul]:gap-1.5">
                {section.body}
              </div>
            </section>
          ))}
        </article>
      </div>
    </main>
  );
}
