// The blog for the route loaders: which content source the configuration names (the posts
// shipped in the repository unless the content service is configured), what each page loads
// from it, and listAllPostSlugs for the sitemap.
import type { BlogContentConfig } from "../../../server/platform/config/config.ts";
import { shippedSource } from "./embedded.server.ts";
import { readingTimeMinutes } from "./reading-time.ts";
import { createSanitySource } from "./sanity.server.ts";
import { BLOG_LIMITS, type BlogPost, type BlogSource, type PostSlug } from "./types.ts";
import type { CategoryView, PostCard, PostPage } from "./view.ts";

const sources = new WeakMap<BlogContentConfig, BlogSource>();

/** The content source for this configuration, made once per configuration. */
export function blogSource(config: { blogContent: BlogContentConfig }): BlogSource {
  const content = config.blogContent;
  if (content.kind === "embedded") return shippedSource();
  let source = sources.get(content);
  if (!source) {
    source = createSanitySource(content);
    sources.set(content, source);
  }
  return source;
}

/** Every post's slug with its dates, newest first: for sitemap.xml. */
export function listAllPostSlugs(config: { blogContent: BlogContentConfig }): Promise<PostSlug[]> {
  return blogSource(config).listAllPostSlugs();
}

export function toCard(post: BlogPost): PostCard {
  return {
    slug: post.slug.current,
    title: post.title,
    excerpt: post.excerpt?.trim() || null,
    publishedAt: post.publishedAt,
    featured: post.featured === true,
    categories: post.categories.map((c) => ({ slug: c.slug.current, title: c.title })),
    image: post.featuredImage?.url
      ? { url: post.featuredImage.url, alt: post.featuredImage.alt ?? "" }
      : null,
    authorName: post.author?.name ?? null,
    readingMinutes: readingTimeMinutes(post.content),
  };
}

export function toPage(post: BlogPost): PostPage {
  return {
    ...toCard(post),
    updatedAt: post._updatedAt,
    content: Array.isArray(post.content) ? post.content : null,
    tags: post.tags,
    seo: {
      title: post.seo?.metaTitle?.trim() || null,
      description: post.seo?.metaDescription?.trim() || null,
      keywords: post.seo?.keywords?.length ? post.seo.keywords : post.tags,
    },
  };
}

export type BlogIndex =
  | {
      kind: "all";
      page: number;
      featured: PostCard[];
      posts: PostCard[];
      /** A full page came back: there may be older posts. */
      hasMore: boolean;
      categories: CategoryView[];
    }
  | {
      kind: "category";
      page: number;
      category: CategoryView;
      posts: PostCard[];
      hasMore: boolean;
      categories: CategoryView[];
    }
  | { kind: "unknown-category"; slug: string; categories: CategoryView[] };

/**
 * /blog/: on its first page the 4 featured posts, 12 non-featured posts and every category,
 * loaded together (spec §2); later pages, 12 older non-featured posts each. With a category,
 * its posts, 10 a page.
 */
export async function loadBlogIndex(
  source: BlogSource,
  options: { category: string | null; page: number },
): Promise<BlogIndex> {
  const page = Math.max(1, options.page);
  if (!options.category) {
    const limit = BLOG_LIMITS.regular;
    const [featured, posts, categories] = await Promise.all([
      page === 1 ? source.listFeaturedPosts(BLOG_LIMITS.featured) : Promise.resolve([]),
      source.listNonFeaturedPosts({ limit, offset: (page - 1) * limit }),
      source.listCategories(),
    ]);
    return {
      kind: "all",
      page,
      featured: featured.map(toCard),
      posts: posts.map(toCard),
      hasMore: posts.length === limit,
      categories: categories.map(toCategory),
    };
  }
  const limit = BLOG_LIMITS.list;
  const [categories, posts] = await Promise.all([
    source.listCategories(),
    source.listPostsByCategory(options.category, { limit, offset: (page - 1) * limit }),
  ]);
  const category = categories.find((c) => c.slug.current === options.category);
  if (!category)
    return { kind: "unknown-category", slug: options.category, categories: categories.map(toCategory) };
  return {
    kind: "category",
    page,
    category: toCategory(category),
    posts: posts.map(toCard),
    hasMore: posts.length === limit,
    categories: categories.map(toCategory),
  };
}

function toCategory(category: {
  title: string;
  slug: { current: string };
  description?: string;
}): CategoryView {
  return {
    slug: category.slug.current,
    title: category.title,
    description: category.description?.trim() || null,
  };
}

/** /blog/{slug}: the post and the 3 most recent other posts; null when there is no such post. */
export async function loadBlogPost(
  source: BlogSource,
  slug: string,
): Promise<{ post: PostPage; recent: PostCard[] } | null> {
  const [post, latest] = await Promise.all([
    source.getPost(slug),
    // One more than shown, in case the post itself is among the newest.
    source.listPosts({ limit: BLOG_LIMITS.recent + 1 }),
  ]);
  if (!post) return null;
  const recent = latest.filter((p) => p.slug.current !== slug).slice(0, BLOG_LIMITS.recent);
  return { post: toPage(post), recent: recent.map(toCard) };
}
