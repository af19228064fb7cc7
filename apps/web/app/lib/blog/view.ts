// What the blog's pages receive from their loaders: posts as cards and as a full page, with the
// reading time worked out on the server. Plain data, safe to send to the browser.
import type { BlogImage, PortableTextNode } from "./types.ts";

export interface CategoryLink {
  slug: string;
  title: string;
}

export interface CategoryView extends CategoryLink {
  description: string | null;
}

export interface PostCard {
  slug: string;
  title: string;
  excerpt: string | null;
  publishedAt: string;
  featured: boolean;
  categories: CategoryLink[];
  image: BlogImage | null;
  authorName: string | null;
  readingMinutes: number;
}

export interface PostPage extends PostCard {
  updatedAt: string;
  /** The block array of spec §3; null when the source had none (or not an array). */
  content: PortableTextNode[] | null;
  tags: string[];
  seo: { title: string | null; description: string | null; keywords: string[] };
}

export const blogPath = (slug: string) => `/blog/${encodeURIComponent(slug)}`;
export const categoryPath = (slug: string) => `/blog/?category=${encodeURIComponent(slug)}`;
export const BLOG_INDEX_PATH = "/blog/";
export const BLOG_FEED_PATH = "/blog/feed.xml";
