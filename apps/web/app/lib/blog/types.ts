// The blog's data, as the content service describes it (spec §3), and the one interface both
// content sources implement: the posts shipped in the repository (embedded.server.ts) and the
// content service (sanity.server.ts). Pages and components only ever see these types.

/** Spec §9: what the index, the post page and the plain list load by default. */
export const BLOG_LIMITS = { featured: 4, regular: 12, recent: 3, list: 10 } as const;

/** A run of text inside a block, with decorators (strong, em, code) and annotation keys. */
export interface PortableTextSpan {
  _type: "span";
  _key: string;
  text: string;
  marks?: string[];
}

/** An annotation a span's mark may point to; links are the only kind rendered. */
export interface PortableTextMarkDef {
  _type: string;
  _key: string;
  href?: string;
}

/** A paragraph, heading, quote or list item (spec §3: a type marker of block and children). */
export interface PortableTextTextBlock {
  _type: "block";
  _key: string;
  style?: string;
  children: PortableTextSpan[];
  markDefs?: PortableTextMarkDef[];
  listItem?: "bullet" | "number";
  level?: number;
}

/** A code listing (the content service's code-input shape). */
export interface PortableTextCode {
  _type: "code";
  _key: string;
  code: string;
  language?: string;
  filename?: string;
}

/** An image; `url` is resolved by the source (an asset URL, or a path of this site). */
export interface PortableTextImage {
  _type: "image";
  _key: string;
  url?: string;
  alt?: string;
  caption?: string;
}

/** A table of plain-text cells, the first row its header. */
export interface PortableTextTable {
  _type: "table";
  _key: string;
  rows: { _key: string; cells: string[] }[];
}

export type PortableTextNode =
  | PortableTextTextBlock
  | PortableTextCode
  | PortableTextImage
  | PortableTextTable;

export interface Slug {
  current: string;
}

export interface BlogCategory {
  _id: string;
  title: string;
  slug: Slug;
  description?: string;
}

export interface BlogAuthor {
  _id: string;
  name: string;
  image?: string;
}

export interface BlogImage {
  url: string;
  alt?: string;
}

export interface BlogSeo {
  metaTitle?: string;
  metaDescription?: string;
  keywords?: string[];
}

export interface BlogPost {
  _id: string;
  _createdAt: string;
  _updatedAt: string;
  title: string;
  /** Absent for posts that never set it: those count as not featured. */
  featured?: boolean;
  slug: Slug;
  excerpt?: string;
  /** Spec §3: an array of blocks. Anything else is kept as it came (reading time treats it). */
  content?: PortableTextNode[] | unknown;
  featuredImage?: BlogImage;
  author?: BlogAuthor;
  publishedAt: string;
  categories: Pick<BlogCategory, "_id" | "title" | "slug">[];
  tags: string[];
  seo?: BlogSeo;
}

export interface Page {
  limit?: number;
  offset?: number;
}

/** Where the blog's posts come from. Every list is newest first by publishedAt. */
export interface BlogSource {
  readonly kind: "embedded" | "sanity";
  /** Posts, newest first (limit 10, offset 0 by default). */
  listPosts(page?: Page): Promise<BlogPost[]>;
  /** One post, or null when no post has that slug. */
  getPost(slug: string): Promise<BlogPost | null>;
  /** Every category, ordered by title. */
  listCategories(): Promise<BlogCategory[]>;
  /** Posts in the category with that slug (limit 10, offset 0 by default). */
  listPostsByCategory(categorySlug: string, page?: Page): Promise<BlogPost[]>;
  /** Featured posts (4 by default). */
  listFeaturedPosts(limit?: number): Promise<BlogPost[]>;
  /** Posts not featured, including those with no featured value (limit 12, offset 0 by default). */
  listNonFeaturedPosts(page?: Page): Promise<BlogPost[]>;
  /** Every post's slug and dates, for the sitemap and the feed. */
  listAllPostSlugs(): Promise<PostSlug[]>;
}

export interface PostSlug {
  slug: string;
  publishedAt: string;
  updatedAt: string;
}
