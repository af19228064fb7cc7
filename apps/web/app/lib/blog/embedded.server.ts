// The embedded content source: posts shipped in the repository as content/blog/*.md with YAML
// front matter, categories in content/blog/categories.yaml. Vite bundles the files into the
// server build, so nothing is read from disk at run time. Each post's Markdown becomes the
// block array of spec §3 (markdown-blocks.ts), rendered like the content service's posts.
// createEmbeddedSource also serves tests any list of posts.
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { markdownToBlocks } from "./markdown-blocks.ts";
import { BLOG_LIMITS, type BlogCategory, type BlogPost, type BlogSource, type Page } from "./types.ts";

const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lowercase words joined by hyphens");
const instant = z.iso.datetime({ offset: true }).or(z.iso.date());

const frontMatterSchema = z.object({
  title: z.string().min(1),
  slug,
  excerpt: z.string().min(1),
  publishedAt: instant,
  updatedAt: instant.optional(),
  featured: z.boolean().optional(),
  categories: z.array(slug).min(1),
  tags: z.array(z.string().min(1)).default([]),
  author: z.string().min(1),
  featuredImage: z.object({ url: z.string().min(1), alt: z.string().default("") }).optional(),
  seo: z
    .object({
      metaTitle: z.string().min(1).optional(),
      metaDescription: z.string().min(1).optional(),
      keywords: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

const categoriesSchema = z.array(
  z.object({ slug, title: z.string().min(1), description: z.string().min(1).optional() }),
);

export class BlogContentError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = "BlogContentError";
  }
}

export function parseCategories(file: string, yamlText: string): BlogCategory[] {
  const parsed = categoriesSchema.safeParse(parseYaml(yamlText));
  if (!parsed.success) throw new BlogContentError(file, z.prettifyError(parsed.error));
  return parsed.data.map((c) => ({
    _id: `category.${c.slug}`,
    title: c.title,
    slug: { current: c.slug },
    ...(c.description ? { description: c.description } : {}),
  }));
}

const iso = (value: string) => new Date(value).toISOString();

/** One Markdown document with front matter → a post. Every category it names must exist. */
export function parsePostDocument(file: string, text: string, categories: BlogCategory[]): BlogPost {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new BlogContentError(file, "no front matter (a --- block at the top)");
  const [, head = "", body = ""] = match;
  const parsed = frontMatterSchema.safeParse(parseYaml(head));
  if (!parsed.success) throw new BlogContentError(file, z.prettifyError(parsed.error));
  const meta = parsed.data;
  const postCategories = meta.categories.map((name) => {
    const category = categories.find((c) => c.slug.current === name);
    if (!category) throw new BlogContentError(file, `unknown category "${name}"`);
    return { _id: category._id, title: category.title, slug: category.slug };
  });
  const publishedAt = iso(meta.publishedAt);
  return {
    _id: `post.${meta.slug}`,
    _createdAt: publishedAt,
    _updatedAt: meta.updatedAt ? iso(meta.updatedAt) : publishedAt,
    title: meta.title,
    ...(meta.featured === undefined ? {} : { featured: meta.featured }),
    slug: { current: meta.slug },
    excerpt: meta.excerpt.trim(),
    content: markdownToBlocks(body),
    ...(meta.featuredImage ? { featuredImage: meta.featuredImage } : {}),
    author: { _id: `author.${meta.author.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`, name: meta.author },
    publishedAt,
    categories: postCategories,
    tags: meta.tags,
    ...(meta.seo ? { seo: meta.seo } : {}),
  };
}

const newestFirst = (a: BlogPost, b: BlogPost) =>
  Date.parse(b.publishedAt) - Date.parse(a.publishedAt) || a.slug.current.localeCompare(b.slug.current);

const slice = (posts: BlogPost[], page: Page | undefined, defaultLimit: number) => {
  const offset = Math.max(0, page?.offset ?? 0);
  return posts.slice(offset, offset + Math.max(0, page?.limit ?? defaultLimit));
};

/** A content source over posts held in memory: the embedded default, and any test's posts. */
export function createEmbeddedSource(posts: BlogPost[], categories: BlogCategory[]): BlogSource {
  const sorted = [...posts].sort(newestFirst);
  const bySlug = new Map(sorted.map((post) => [post.slug.current, post]));
  const byTitle = [...categories].sort((a, b) => a.title.localeCompare(b.title));
  return {
    kind: "embedded",
    listPosts: async (page) => slice(sorted, page, BLOG_LIMITS.list),
    getPost: async (wanted) => bySlug.get(wanted) ?? null,
    listCategories: async () => byTitle,
    listPostsByCategory: async (categorySlug, page) =>
      slice(
        sorted.filter((post) => post.categories.some((c) => c.slug.current === categorySlug)),
        page,
        BLOG_LIMITS.list,
      ),
    listFeaturedPosts: async (limit = BLOG_LIMITS.featured) =>
      slice(
        sorted.filter((post) => post.featured === true),
        { limit },
        BLOG_LIMITS.featured,
      ),
    // Posts that never set `featured` are not featured.
    listNonFeaturedPosts: async (page) =>
      slice(
        sorted.filter((post) => post.featured !== true),
        page,
        BLOG_LIMITS.regular,
      ),
    listAllPostSlugs: async () =>
      sorted.map((post) => ({
        slug: post.slug.current,
        publishedAt: post.publishedAt,
        updatedAt: post._updatedAt,
      })),
  };
}

const postFiles = import.meta.glob<string>("../../../content/blog/*.md", {
  query: "?raw",
  import: "default",
  eager: true,
});
const categoryFiles = import.meta.glob<string>("../../../content/blog/categories.yaml", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** The posts and categories shipped in the repository, parsed once. */
export function loadShippedContent(): { posts: BlogPost[]; categories: BlogCategory[] } {
  const [categoriesFile] = Object.entries(categoryFiles);
  if (!categoriesFile) throw new BlogContentError("content/blog/categories.yaml", "missing");
  const categories = parseCategories(...categoriesFile);
  const posts = Object.entries(postFiles).map(([file, text]) => parsePostDocument(file, text, categories));
  const seen = new Set<string>();
  for (const post of posts) {
    if (seen.has(post.slug.current))
      throw new BlogContentError("content/blog", `two posts use the slug ${post.slug.current}`);
    seen.add(post.slug.current);
  }
  return { posts, categories };
}

let shipped: BlogSource | undefined;

export function shippedSource(): BlogSource {
  if (!shipped) {
    const { posts, categories } = loadShippedContent();
    shipped = createEmbeddedSource(posts, categories);
  }
  return shipped;
}
