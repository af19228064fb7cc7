// The band at the foot of the blog's pages: from reading about publishing to doing it.
import { Link } from "react-router";
import { Button } from "../ui/button.tsx";

export function BlogCallToAction() {
  return (
    <section aria-labelledby="blog-cta-title" className="border-t border-border">
      <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <div className="rounded-2xl bg-primary px-6 py-10 text-primary-foreground sm:px-10">
          <h2 id="blog-cta-title" className="text-2xl font-bold tracking-tight sm:text-3xl">
            Publish your next release with Packyard
          </h2>
          <p className="mt-3 max-w-2xl opacity-90">
            Signed APT and YUM repositories, release pages and stable download URLs from one push. Free for
            public projects, with one private project included.
          </p>
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
