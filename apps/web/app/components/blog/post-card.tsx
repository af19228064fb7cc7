// A post in a list: the featured ones with their picture, the rest as text cards. The whole
// card is one link (its title), with the category badges and the date below it.
import { Link } from "react-router";
import { readingTimeLabel } from "../../lib/blog/reading-time.ts";
import { blogPath, type PostCard as PostCardData } from "../../lib/blog/view.ts";
import { cn } from "../../lib/utils.ts";
import { formatDate } from "../releases/format-date.ts";
import { PostCover } from "./post-cover.tsx";

export function PostMeta({ post, className }: { post: PostCardData; className?: string }) {
  return (
    <p className={cn("flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground", className)}>
      <time dateTime={post.publishedAt}>{formatDate(post.publishedAt)}</time>
      <span aria-hidden="true">·</span>
      <span>{readingTimeLabel(post.readingMinutes)}</span>
    </p>
  );
}

function Categories({ post }: { post: PostCardData }) {
  if (post.categories.length === 0) return null;
  return (
    <p className="flex flex-wrap gap-x-3 gap-y-1 text-xs font-semibold uppercase tracking-wide text-primary">
      {post.categories.map((c) => (
        <span key={c.slug}>{c.title}</span>
      ))}
    </p>
  );
}

const headingLink =
  "after:absolute after:inset-0 after:rounded-xl focus-visible:outline-none focus-visible:after:outline-2 focus-visible:after:outline-offset-2 focus-visible:after:outline-ring";

/** A card with the post's picture; `wide` lays picture and text side by side on large screens. */
export function FeaturedPostCard({
  post,
  wide,
  headingLevel = "h3",
}: {
  post: PostCardData;
  wide?: boolean;
  headingLevel?: "h2" | "h3";
}) {
  const Heading = headingLevel;
  return (
    <article
      data-testid="post-card"
      className={cn(
        "group relative flex flex-col gap-5 rounded-xl border border-border bg-card p-4 shadow-sm transition-colors hover:border-primary/40",
        wide && "lg:grid lg:grid-cols-[minmax(0,1.15fr)_minmax(0,1fr)] lg:items-center lg:gap-8 lg:p-5",
      )}
    >
      <PostCover post={post} large={wide} />
      <div className="flex min-w-0 flex-col gap-3 px-1 pb-1">
        <Categories post={post} />
        <Heading
          className={cn("font-bold tracking-tight text-balance", wide ? "text-2xl sm:text-3xl" : "text-lg")}
        >
          <Link to={blogPath(post.slug)} className={cn("group-hover:text-primary", headingLink)}>
            {post.title}
          </Link>
        </Heading>
        {post.excerpt ? (
          <p className={cn("text-muted-foreground", wide ? "text-base" : "line-clamp-3 text-sm")}>
            {post.excerpt}
          </p>
        ) : null}
        <PostMeta post={post} className="mt-auto" />
      </div>
    </article>
  );
}

/** A text-only card for the list of posts. */
export function PostListCard({ post }: { post: PostCardData }) {
  return (
    <article
      data-testid="post-card"
      className="group relative flex flex-col gap-3 rounded-xl border border-border bg-card p-5 shadow-sm transition-colors hover:border-primary/40"
    >
      <Categories post={post} />
      <h3 className="text-lg font-semibold tracking-tight text-balance">
        <Link to={blogPath(post.slug)} className={cn("group-hover:text-primary", headingLink)}>
          {post.title}
        </Link>
      </h3>
      {post.excerpt ? <p className="line-clamp-3 text-sm text-muted-foreground">{post.excerpt}</p> : null}
      <PostMeta post={post} className="mt-auto pt-1" />
    </article>
  );
}
