// /blog/ (also /blog): the 4 featured posts, 12 non-featured posts and every category, loaded
// together (spec §2, §7); ?category=slug lists one category's posts, ?page=n older ones. The
// posts come from the configured content source (lib/blog). In the browser, pages already seen
// are served from the query cache for 5 minutes, and a failed load is retried once (spec §9).
import { ArrowLeft, ArrowRight, CloudOff, Newspaper } from "lucide-react";
import { data, Link } from "react-router";
import { CategoryNav } from "../../../components/blog/category-nav.tsx";
import { BlogNotFound } from "../../../components/blog/not-found.tsx";
import { FeaturedPostCard, PostListCard } from "../../../components/blog/post-card.tsx";
import { EmptyState } from "../../../components/empty-state.tsx";
import { CallToAction } from "../../../components/marketing/section.tsx";
import { Button } from "../../../components/ui/button.tsx";
import { blogSource, loadBlogIndex } from "../../../lib/blog/blog.server.ts";
import { blogQueryCache } from "../../../lib/blog/query-cache.ts";
import { BLOG_FEED_PATH, BLOG_INDEX_PATH, type PostCard } from "../../../lib/blog/view.ts";
import { pageMeta } from "../../../lib/meta.ts";
import { services } from "../../../lib/session.server.ts";
import type { Route } from "./+types/index";

const TITLE = "Blog";
const DESCRIPTION =
  "Articles for developers who publish packages: signed APT and YUM repositories, atomic publishing, signing keys, CI and releases, from the people who build Packyard.";

function parsePage(value: string | null): number {
  const page = Number(value ?? "1");
  return Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1;
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { config, logger } = services(context);
  const url = new URL(request.url);
  const category = url.searchParams.get("category")?.trim() || null;
  const page = parsePage(url.searchParams.get("page"));
  try {
    const index = await loadBlogIndex(blogSource(config), { category, page });
    return data({ status: "ok" as const, index }, { status: index.kind === "unknown-category" ? 404 : 200 });
  } catch (error) {
    logger.error(`the blog index could not be loaded (${url.search || "no filter"})`, error);
    return data({ status: "unavailable" as const }, { status: 503 });
  }
}

export async function clientLoader({ serverLoader, request }: Route.ClientLoaderArgs) {
  const url = new URL(request.url);
  return blogQueryCache.get(
    `${url.pathname.replace(/\/?$/, "/")}${url.search}`,
    serverLoader,
    (d) => d.status === "ok",
  );
}

export const links: Route.LinksFunction = () => [
  { rel: "alternate", type: "application/atom+xml", title: "The Packyard blog", href: BLOG_FEED_PATH },
];

export const meta: Route.MetaFunction = ({ matches, loaderData }) => {
  const baseUrl = matches[0]?.loaderData?.baseUrl;
  const index = loaderData?.status === "ok" ? loaderData.index : null;
  if (index?.kind === "unknown-category") {
    return pageMeta({ baseUrl, path: BLOG_INDEX_PATH, title: "Category not found", noindex: true });
  }
  if (index?.kind === "category") {
    const page = index.page > 1 ? `&page=${index.page}` : "";
    return pageMeta({
      baseUrl,
      path: `${BLOG_INDEX_PATH}?category=${encodeURIComponent(index.category.slug)}${page}`,
      title: `${index.category.title} · Blog`,
      description: index.category.description ?? `Posts about ${index.category.title} on the Packyard blog.`,
      keywords: `${index.category.title}, packyard blog, apt repository, yum repository, package publishing`,
    });
  }
  return pageMeta({
    baseUrl,
    path: index && index.page > 1 ? `${BLOG_INDEX_PATH}?page=${index.page}` : BLOG_INDEX_PATH,
    title: TITLE,
    description: DESCRIPTION,
    keywords:
      "packyard blog, apt repository, yum repository, hash sum mismatch, rpm signing, package publishing, ci releases",
  });
};

export default function BlogIndex({ loaderData }: Route.ComponentProps) {
  if (loaderData.status === "unavailable") {
    return (
      <main className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
        <h1 className="sr-only">Blog</h1>
        <EmptyState icon={CloudOff} title="The blog could not be loaded">
          The posts could not be fetched just now. Please try again in a few minutes.
        </EmptyState>
      </main>
    );
  }
  const { index } = loaderData;
  if (index.kind === "unknown-category") {
    return (
      <main>
        <BlogNotFound what="category" slug={index.slug} />
      </main>
    );
  }
  const current = index.kind === "category" ? index.category.slug : null;
  return (
    <main>
      <header className="border-b border-border bg-muted/30">
        <div className="mx-auto max-w-6xl px-4 pt-14 pb-8 sm:px-6 sm:pt-20">
          <p className="text-sm font-semibold uppercase tracking-wide text-primary">
            {index.kind === "category" ? (
              <Link to={BLOG_INDEX_PATH} className="hover:underline">
                Blog
              </Link>
            ) : (
              "Blog"
            )}
          </p>
          <h1 className="mt-3 max-w-3xl text-4xl font-bold tracking-tight text-balance sm:text-5xl">
            {index.kind === "category" ? index.category.title : "Notes on shipping packages"}
          </h1>
          <p className="mt-5 max-w-2xl text-lg text-muted-foreground">
            {index.kind === "category"
              ? (index.category.description ?? `Every post about ${index.category.title}.`)
              : "How signed APT and YUM repositories, atomic publishing and releases work, and how to get the most out of them. Written for developers who publish packages."}
          </p>
          <div className="mt-10">
            <CategoryNav categories={index.categories} current={current} />
          </div>
        </div>
      </header>

      <div className="mx-auto grid max-w-6xl gap-14 px-4 py-12 sm:px-6 sm:py-16">
        {index.kind === "all" && index.featured.length > 0 ? <Featured posts={index.featured} /> : null}
        <PostList
          title={
            index.kind === "category"
              ? `Posts in ${index.category.title}`
              : index.page > 1
                ? "Older posts"
                : "Latest posts"
          }
          posts={index.posts}
          emptyText={
            index.kind === "category"
              ? "No posts in this category yet."
              : index.page > 1
                ? "There are no older posts."
                : "No posts have been published yet."
          }
        />
        <Pager page={index.page} hasMore={index.hasMore} category={current} />
      </div>
      <CallToAction
        title="Publish your next release with Packyard"
        text="Signed APT and YUM repositories, release pages and stable download URLs from one push. Free for public projects, with one private project included."
      />
    </main>
  );
}

function Featured({ posts }: { posts: PostCard[] }) {
  const [first, ...rest] = posts;
  return (
    <section aria-labelledby="featured-heading" className="grid gap-6">
      <h2 id="featured-heading" className="text-2xl font-bold tracking-tight">
        Featured
      </h2>
      <div className="grid gap-6" data-testid="featured-posts">
        {first ? <FeaturedPostCard post={first} wide /> : null}
        {rest.length > 0 ? (
          <div className="grid gap-6 md:grid-cols-3">
            {rest.map((post) => (
              <FeaturedPostCard key={post.slug} post={post} />
            ))}
          </div>
        ) : null}
      </div>
    </section>
  );
}

function PostList({ title, posts, emptyText }: { title: string; posts: PostCard[]; emptyText: string }) {
  return (
    <section aria-labelledby="posts-heading" className="grid gap-6">
      <h2 id="posts-heading" className="text-2xl font-bold tracking-tight">
        {title}
      </h2>
      {posts.length > 0 ? (
        <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3" data-testid="post-list">
          {posts.map((post) => (
            <PostListCard key={post.slug} post={post} />
          ))}
        </div>
      ) : (
        <EmptyState icon={Newspaper} title="Nothing here yet">
          {emptyText}
        </EmptyState>
      )}
    </section>
  );
}

function Pager({ page, hasMore, category }: { page: number; hasMore: boolean; category: string | null }) {
  if (page === 1 && !hasMore) return null;
  const to = (n: number) => {
    const params = new URLSearchParams(category ? { category } : {});
    if (n > 1) params.set("page", String(n));
    const search = params.toString();
    return `${BLOG_INDEX_PATH}${search ? `?${search}` : ""}`;
  };
  return (
    <nav aria-label="Pages" className="flex items-center justify-between gap-4">
      {page > 1 ? (
        <Button asChild variant="outline">
          <Link to={to(page - 1)}>
            <ArrowLeft aria-hidden="true" />
            Newer posts
          </Link>
        </Button>
      ) : (
        <span />
      )}
      {hasMore ? (
        <Button asChild variant="outline">
          <Link to={to(page + 1)}>
            Older posts
            <ArrowRight aria-hidden="true" />
          </Link>
        </Button>
      ) : null}
    </nav>
  );
}
