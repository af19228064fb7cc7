// /blog/{slug}: one post and the 3 most recent other posts (spec §2). A post that does not exist,
// or that could not be loaded (the error is logged), is the blog's not-found view with HTTP 404
// (spec §8). The page's metadata carries the post's SEO fields, Open Graph article tags and a
// BlogPosting JSON-LD block. In the browser, posts already seen are served from the query cache.
import { ArrowLeft } from "lucide-react";
import { data, Link } from "react-router";
import { BlogNotFound } from "../../../components/blog/not-found.tsx";
import { PostBody, postOutline } from "../../../components/blog/portable-text.tsx";
import { FeaturedPostCard } from "../../../components/blog/post-card.tsx";
import { CallToAction } from "../../../components/marketing/section.tsx";
import { formatDate } from "../../../components/releases/format-date.ts";
import { blogSource, loadBlogPost } from "../../../lib/blog/blog.server.ts";
import { blogQueryCache } from "../../../lib/blog/query-cache.ts";
import { readingTimeLabel } from "../../../lib/blog/reading-time.ts";
import {
  BLOG_FEED_PATH,
  BLOG_INDEX_PATH,
  blogPath,
  categoryPath,
  type PostPage,
} from "../../../lib/blog/view.ts";
import { blogPostingJsonLd, jsonLd, pageMeta } from "../../../lib/meta.ts";
import { services } from "../../../lib/session.server.ts";
import type { Route } from "./+types/post";

export async function loader({ context, params }: Route.LoaderArgs) {
  const { config, logger } = services(context);
  const slug = params.slug;
  try {
    const found = await loadBlogPost(blogSource(config), slug);
    if (found) return data({ status: "ok" as const, ...found });
  } catch (error) {
    logger.error(`blog post "${slug}" could not be loaded`, error);
  }
  return data({ status: "not-found" as const, slug }, { status: 404 });
}

export async function clientLoader({ serverLoader, params }: Route.ClientLoaderArgs) {
  return blogQueryCache.get(blogPath(params.slug), serverLoader, (d) => d.status === "ok");
}

export const links: Route.LinksFunction = () => [
  { rel: "alternate", type: "application/atom+xml", title: "The Packyard blog", href: BLOG_FEED_PATH },
];

export const meta: Route.MetaFunction = ({ matches, loaderData, params }) => {
  const baseUrl = matches[0]?.loaderData?.baseUrl;
  const path = blogPath(params.slug);
  if (loaderData?.status !== "ok") {
    return pageMeta({ baseUrl, path, title: "Post not found", noindex: true });
  }
  const { post } = loaderData;
  const description = post.seo.description ?? post.excerpt ?? undefined;
  const image = post.image ? { url: post.image.url, alt: post.image.alt || post.title } : undefined;
  return [
    ...pageMeta({
      baseUrl,
      path,
      title: post.seo.title ?? post.title,
      description,
      keywords: post.seo.keywords.length ? post.seo.keywords.join(", ") : undefined,
      image,
      type: "article",
    }),
    { property: "article:published_time", content: post.publishedAt },
    { property: "article:modified_time", content: post.updatedAt },
    ...post.categories.map((c) => ({ property: "article:section", content: c.title })),
    ...post.tags.map((tag) => ({ property: "article:tag", content: tag })),
    jsonLd(
      blogPostingJsonLd({
        baseUrl: baseUrl ?? "",
        path,
        title: post.title,
        description: description ?? post.title,
        publishedAt: post.publishedAt,
        updatedAt: post.updatedAt,
        authorName: post.authorName ?? undefined,
        image: post.image?.url,
        keywords: post.seo.keywords,
        categories: post.categories.map((c) => c.title),
      }),
    ),
  ];
};

export default function BlogPost({ loaderData }: Route.ComponentProps) {
  if (loaderData.status !== "ok") {
    return (
      <main>
        <BlogNotFound what="post" slug={loaderData.slug} />
      </main>
    );
  }
  const { post, recent } = loaderData;
  return (
    <main>
      <article>
        <PostHeader post={post} />
        <div className="mx-auto grid max-w-6xl gap-10 px-4 pb-16 sm:px-6 lg:grid-cols-[minmax(0,1fr)_15rem] lg:gap-16">
          <div className="min-w-0 max-w-3xl">
            {post.image ? (
              <img
                src={post.image.url}
                alt={post.image.alt}
                className="mb-10 aspect-[16/9] w-full rounded-xl border border-border bg-muted object-cover"
              />
            ) : null}
            {post.content ? (
              <PostBody content={post.content} />
            ) : (
              <p className="text-muted-foreground">This post has no text.</p>
            )}
            {post.tags.length > 0 ? (
              <div className="mt-12 border-t border-border pt-6">
                <h2 className="sr-only">Tags</h2>
                <ul className="flex flex-wrap gap-2" aria-label="Tags">
                  {post.tags.map((tag) => (
                    <li
                      key={tag}
                      className="rounded-full bg-muted px-3 py-1 text-xs font-medium text-muted-foreground"
                    >
                      {tag}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
          </div>
          <Outline post={post} />
        </div>
      </article>
      {recent.length > 0 ? (
        <section aria-labelledby="recent-heading" className="border-t border-border bg-muted/30">
          <div className="mx-auto max-w-6xl px-4 py-14 sm:px-6">
            <div className="flex items-end justify-between gap-4">
              <h2 id="recent-heading" className="text-2xl font-bold tracking-tight">
                Recent posts
              </h2>
              <Link to={BLOG_INDEX_PATH} className="text-sm font-medium text-primary hover:underline">
                All posts
              </Link>
            </div>
            <div className="mt-6 grid gap-6 md:grid-cols-3" data-testid="recent-posts">
              {recent.map((p) => (
                <FeaturedPostCard key={p.slug} post={p} />
              ))}
            </div>
          </div>
        </section>
      ) : null}
      <CallToAction
        title="Publish your next release with Packyard"
        text="Signed APT and YUM repositories, release pages and stable download URLs from one push. Free for public projects, with one private project included."
      />
    </main>
  );
}

function PostHeader({ post }: { post: PostPage }) {
  return (
    <header className="mx-auto max-w-6xl px-4 pt-10 pb-10 sm:px-6 sm:pt-14">
      <nav aria-label="Breadcrumb" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
        <Link
          to={BLOG_INDEX_PATH}
          className="inline-flex items-center gap-1 font-medium text-primary hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden="true" />
          Blog
        </Link>
        {post.categories.map((c) => (
          <span key={c.slug} className="inline-flex items-center gap-2">
            <span aria-hidden="true" className="text-muted-foreground">
              /
            </span>
            <Link
              to={categoryPath(c.slug)}
              className="text-muted-foreground hover:text-foreground hover:underline"
            >
              {c.title}
            </Link>
          </span>
        ))}
      </nav>
      <div className="max-w-3xl">
        <h1 className="mt-5 text-3xl font-bold tracking-tight text-balance sm:text-5xl">{post.title}</h1>
        {post.excerpt ? (
          <p className="mt-5 text-lg text-muted-foreground sm:text-xl">{post.excerpt}</p>
        ) : null}
        <p className="mt-6 flex flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground">
          {post.authorName ? (
            <>
              <span className="font-medium text-foreground">{post.authorName}</span>
              <span aria-hidden="true">·</span>
            </>
          ) : null}
          <time dateTime={post.publishedAt}>{formatDate(post.publishedAt)}</time>
          <span aria-hidden="true">·</span>
          <span>{readingTimeLabel(post.readingMinutes)}</span>
        </p>
      </div>
    </header>
  );
}

function Outline({ post }: { post: PostPage }) {
  const outline = post.content ? postOutline(post.content) : [];
  if (outline.length < 2) return <div className="hidden lg:block" />;
  return (
    <nav aria-label="On this page" className="hidden lg:block">
      <div className="sticky top-24 border-l border-border pl-4">
        <p className="text-xs font-semibold uppercase tracking-wide text-muted-foreground">On this page</p>
        <ul className="mt-3 grid gap-2 text-sm">
          {outline.map((h) => (
            <li key={h.id}>
              <a href={`#${h.id}`} className="text-muted-foreground hover:text-foreground">
                {h.text}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </nav>
  );
}
