// The blog's not-found view (spec §2, §8): a post that does not exist or could not be loaded,
// or a category that does not exist. Served with HTTP 404.
import { SearchX } from "lucide-react";
import { Link } from "react-router";
import { BLOG_INDEX_PATH } from "../../lib/blog/view.ts";
import { Button } from "../ui/button.tsx";

export function BlogNotFound({ what, slug }: { what: "post" | "category"; slug: string }) {
  return (
    <section
      className="mx-auto flex max-w-xl flex-col items-center px-4 py-20 text-center sm:py-24"
      data-testid="not-found"
    >
      <div className="rounded-full bg-accent p-3 text-primary">
        <SearchX className="size-6" aria-hidden="true" />
      </div>
      <p className="mt-4 text-sm font-semibold text-primary">404</p>
      <h1 className="mt-1 text-3xl font-bold tracking-tight">
        {what === "post" ? "Post not found" : "Category not found"}
      </h1>
      <p className="mt-3 break-words text-muted-foreground">
        {what === "post" ? "There is no blog post at " : "The blog has no category "}
        <span className="font-mono text-foreground">{slug}</span>. Check the address for typos, or browse the
        latest posts.
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Button asChild>
          <Link to={BLOG_INDEX_PATH}>Browse the blog</Link>
        </Button>
        <Button asChild variant="outline">
          <Link to="/">Go to Home page</Link>
        </Button>
      </div>
    </section>
  );
}
