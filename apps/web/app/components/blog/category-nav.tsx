// The blog's category filter: "All posts" and one link per category (?category=slug), the
// current one marked for screen readers and by colour.
import { Rss } from "lucide-react";
import { Link } from "react-router";
import { BLOG_FEED_PATH, BLOG_INDEX_PATH, type CategoryView, categoryPath } from "../../lib/blog/view.ts";
import { cn } from "../../lib/utils.ts";

export function CategoryNav({ categories, current }: { categories: CategoryView[]; current: string | null }) {
  const item = (active: boolean) =>
    cn(
      "inline-flex h-9 items-center whitespace-nowrap rounded-full border px-4 text-sm font-medium transition-colors",
      active
        ? "border-primary bg-primary text-primary-foreground"
        : "border-border bg-card text-muted-foreground hover:border-primary/40 hover:text-foreground",
    );
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
      <nav aria-label="Blog categories" className="-mx-4 overflow-x-auto px-4 sm:mx-0 sm:px-0">
        <ul className="flex gap-2 py-1 sm:flex-wrap">
          <li>
            <Link
              to={BLOG_INDEX_PATH}
              aria-current={current === null ? "page" : undefined}
              className={item(current === null)}
            >
              All posts
            </Link>
          </li>
          {categories.map((c) => (
            <li key={c.slug}>
              <Link
                to={categoryPath(c.slug)}
                aria-current={current === c.slug ? "page" : undefined}
                className={item(current === c.slug)}
              >
                {c.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <a
        href={BLOG_FEED_PATH}
        className="inline-flex items-center gap-1.5 self-start text-sm font-medium text-muted-foreground hover:text-foreground sm:self-auto"
      >
        <Rss className="size-4" aria-hidden="true" />
        Atom feed
      </a>
    </div>
  );
}
