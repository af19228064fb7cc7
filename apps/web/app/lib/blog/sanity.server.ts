// The content service source (spec §7): a Sanity-compatible API, read through the official
// @sanity/client with the queries of queries.ts. HTTP timeout 120 s; up to 5 retries with
// exponential backoff, which the client applies to 429, 502 and 503 answers (and dropped
// connections) of its GET queries (spec §9). Answers are checked before use: a post that does
// not have the shape of spec §3 is left out of a list, and is an error when asked for alone.
import { createClient, type SanityClient } from "@sanity/client";
import { z } from "zod";
import { blogQueries } from "./queries.ts";
import {
  BLOG_LIMITS,
  type BlogCategory,
  type BlogPost,
  type BlogSource,
  type Page,
  type PostSlug,
} from "./types.ts";

export const SANITY_TIMEOUT_MS = 120_000;
export const SANITY_MAX_RETRIES = 5;

export interface SanityOptions {
  projectId: string;
  dataset: string;
  apiVersion: string;
  token?: string;
  /** Another API host (tests, self-hosted proxies): requests go to `${apiHost}/v${apiVersion}/…`. */
  apiHost?: string;
  /** Milliseconds before retry n (1-based); the client's exponential backoff by default. */
  retryDelay?: (attempt: number) => number;
}

export function createSanityClient(options: SanityOptions): SanityClient {
  return createClient({
    projectId: options.projectId,
    dataset: options.dataset,
    apiVersion: options.apiVersion,
    ...(options.token ? { token: options.token } : {}),
    // A custom host is used as it is; the CDN is only for public reads of the real service.
    ...(options.apiHost ? { apiHost: options.apiHost, useProjectHostname: false } : {}),
    useCdn: !options.token && !options.apiHost,
    timeout: SANITY_TIMEOUT_MS,
    maxRetries: SANITY_MAX_RETRIES,
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
    ignoreBrowserTokenWarning: true,
  });
}

const text = z.string().min(1);
const optional = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);
const slugSchema = z.object({ current: text });

const categorySchema = z.object({
  _id: text,
  title: text,
  slug: slugSchema,
  description: optional(z.string()),
});

const postSchema = z.object({
  _id: text,
  _createdAt: text,
  _updatedAt: text,
  title: text,
  featured: optional(z.boolean()),
  slug: slugSchema,
  excerpt: optional(z.string()),
  content: z.unknown(),
  featuredImage: optional(z.object({ url: optional(z.string()), alt: optional(z.string()) })),
  author: optional(z.object({ _id: text, name: text, image: optional(z.string()) })),
  publishedAt: optional(z.string()),
  categories: optional(z.array(categorySchema.omit({ description: true }).nullable())),
  tags: optional(z.array(z.string())),
  seo: optional(
    z.object({
      metaTitle: optional(z.string()),
      metaDescription: optional(z.string()),
      keywords: optional(z.union([z.array(z.string()), z.string()])),
    }),
  ),
});

function toPost(raw: z.infer<typeof postSchema>): BlogPost {
  const keywords = raw.seo?.keywords;
  return {
    _id: raw._id,
    _createdAt: raw._createdAt,
    _updatedAt: raw._updatedAt,
    title: raw.title,
    ...(raw.featured === undefined ? {} : { featured: raw.featured }),
    slug: { current: raw.slug.current },
    ...(raw.excerpt ? { excerpt: raw.excerpt } : {}),
    content: raw.content ?? undefined,
    ...(raw.featuredImage?.url
      ? { featuredImage: { url: raw.featuredImage.url, alt: raw.featuredImage.alt ?? "" } }
      : {}),
    ...(raw.author ? { author: raw.author } : {}),
    // A post without a publication date is dated by its creation.
    publishedAt: raw.publishedAt ?? raw._createdAt,
    categories: (raw.categories ?? []).filter((c) => c !== null),
    tags: raw.tags ?? [],
    ...(raw.seo
      ? {
          seo: {
            metaTitle: raw.seo.metaTitle,
            metaDescription: raw.seo.metaDescription,
            keywords:
              typeof keywords === "string"
                ? keywords
                    .split(",")
                    .map((k) => k.trim())
                    .filter(Boolean)
                : keywords,
          },
        }
      : {}),
  };
}

const postList = z.array(z.unknown()).transform((items) =>
  items.flatMap((item) => {
    const parsed = postSchema.safeParse(item);
    return parsed.success ? [toPost(parsed.data)] : [];
  }),
);

const range = (page: Page | undefined, defaultLimit: number) => {
  const offset = Math.max(0, Math.trunc(page?.offset ?? 0));
  return { offset, end: offset + Math.max(0, Math.trunc(page?.limit ?? defaultLimit)) };
};

export function createSanitySource(options: SanityOptions): BlogSource {
  const client = createSanityClient(options);
  const query = async <T>(groq: string, params: Record<string, string | number>, schema: z.ZodType<T>) =>
    schema.parse(await client.fetch(groq, params));
  return {
    kind: "sanity",
    listPosts: (page) => query(blogQueries.posts, range(page, BLOG_LIMITS.list), postList),
    getPost: async (slug) => {
      const raw = await query(blogQueries.postBySlug, { slug }, z.unknown());
      return raw === null || raw === undefined ? null : toPost(postSchema.parse(raw));
    },
    listCategories: (): Promise<BlogCategory[]> => query(blogQueries.categories, {}, z.array(categorySchema)),
    listPostsByCategory: (category, page) =>
      query(blogQueries.postsByCategory, { category, ...range(page, BLOG_LIMITS.list) }, postList),
    listFeaturedPosts: (limit = BLOG_LIMITS.featured) =>
      query(blogQueries.featuredPosts, { limit }, postList),
    listNonFeaturedPosts: (page) =>
      query(blogQueries.nonFeaturedPosts, range(page, BLOG_LIMITS.regular), postList),
    listAllPostSlugs: () =>
      query(
        blogQueries.postSlugs,
        {},
        z.array(
          z.object({ slug: text, publishedAt: optional(z.string()), updatedAt: text }).transform(
            (s): PostSlug => ({
              slug: s.slug,
              publishedAt: s.publishedAt ?? s.updatedAt,
              updatedAt: s.updatedAt,
            }),
          ),
        ),
      ),
  };
}
