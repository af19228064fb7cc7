// Building blocks of the public pages: a page's opening, a section heading, and a call to action.
import type { ReactNode } from "react";
import { Link } from "react-router";
import { cn } from "../../lib/utils.ts";
import { Button } from "../ui/button.tsx";

export function PageIntro({
  eyebrow,
  title,
  lead,
  children,
  className,
}: {
  eyebrow?: string;
  title: string;
  lead?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("mx-auto max-w-6xl px-4 pb-10 pt-14 sm:px-6 sm:pt-20", className)}>
      {eyebrow ? (
        <p className="text-sm font-semibold uppercase tracking-wide text-primary">{eyebrow}</p>
      ) : null}
      <h1 className="mt-3 max-w-3xl text-4xl font-bold tracking-tight text-balance sm:text-5xl">{title}</h1>
      {lead ? <p className="mt-5 max-w-2xl text-lg text-muted-foreground">{lead}</p> : null}
      {children}
    </div>
  );
}

export function SectionHeading({
  id,
  eyebrow,
  title,
  lead,
  className,
}: {
  id?: string;
  eyebrow?: string;
  title: string;
  lead?: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn("max-w-2xl", className)}>
      {eyebrow ? (
        <p className="text-sm font-semibold uppercase tracking-wide text-primary">{eyebrow}</p>
      ) : null}
      <h2 id={id} className="mt-2 scroll-mt-24 text-3xl font-bold tracking-tight text-balance">
        {title}
      </h2>
      {lead ? <p className="mt-4 text-lg text-muted-foreground">{lead}</p> : null}
    </div>
  );
}

/** The closing band of a page: start for free, see the plans, or talk to us. */
export function CallToAction({
  title = "Publish your first release in minutes",
  text = "Free for public projects, with one private project and signed repositories included. Upgrade when you need more.",
}: {
  title?: string;
  text?: string;
}) {
  return (
    <section aria-labelledby="cta-title" className="border-t border-border">
      <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <div className="rounded-2xl bg-primary px-6 py-10 text-primary-foreground sm:px-10">
          <h2 id="cta-title" className="text-2xl font-bold tracking-tight sm:text-3xl">
            {title}
          </h2>
          <p className="mt-3 max-w-2xl opacity-90">{text}</p>
          <div className="mt-6 flex flex-wrap gap-3">
            <Button
              asChild
              size="lg"
              className="bg-primary-foreground text-primary hover:bg-primary-foreground/90"
            >
              <Link to="/auth/signin?mode=signup">Start for free</Link>
            </Button>
            <Button
              asChild
              size="lg"
              variant="outline"
              className="border-primary-foreground/40 bg-transparent text-primary-foreground hover:bg-primary-foreground/10"
            >
              <Link to="/pricing">See pricing</Link>
            </Button>
          </div>
        </div>
      </div>
    </section>
  );
}
