// Page metadata: title, description, keywords and a canonical link on every page, the Open Graph
// and Twitter card tags that link previews read (with the site's 1200×630 image unless a page
// brings its own), and JSON-LD structured data (Organization on /, BlogPosting on posts).
import type { MetaDescriptor } from "react-router";

export const TAGLINE = "package management made simple";
export const DEFAULT_TITLE = `Packyard — ${TAGLINE}`;
export const DEFAULT_DESCRIPTION =
  "Packyard hosts your .deb, .rpm and release files: signed APT and YUM repositories, release pages and stable download URLs, pushed from your laptop or CI.";
const KEYWORDS =
  "apt repository, yum repository, dnf, deb hosting, rpm hosting, package hosting, release management, signed packages";

/** The link-preview image in public/ (1200×630). */
export const OG_IMAGE = {
  path: "/og-image.png",
  width: 1200,
  height: 630,
  alt: "Packyard — Package management made simple",
} as const;
/** The square logo in public/, for structured data. */
export const LOGO_PATH = "/logo.png";

export interface PageImage {
  /** Absolute, or a path on this site. */
  url: string;
  alt: string;
  width?: number;
  height?: number;
}

function absolute(baseUrl: string | undefined, url: string): string {
  return /^https?:\/\//.test(url) ? url : `${baseUrl ?? ""}${url}`;
}

export function pageMeta(options: {
  baseUrl: string | undefined;
  path: string;
  title?: string;
  description?: string;
  /** Replaces the default keywords (comma-separated). */
  keywords?: string;
  /** The link-preview image; the site's default when omitted. */
  image?: PageImage;
  /** Open Graph type: "article" for blog posts. */
  type?: "website" | "article";
  noindex?: boolean;
}): MetaDescriptor[] {
  const title = options.title ? `${options.title} · Packyard` : DEFAULT_TITLE;
  const description = options.description ?? DEFAULT_DESCRIPTION;
  const canonical = `${options.baseUrl ?? ""}${options.path}`;
  const image = options.image ?? { ...OG_IMAGE, url: OG_IMAGE.path };
  const imageUrl = absolute(options.baseUrl, image.url);
  return [
    { title },
    { name: "description", content: description },
    { name: "keywords", content: options.keywords ?? KEYWORDS },
    { tagName: "link", rel: "canonical", href: canonical },
    { property: "og:type", content: options.type ?? "website" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: canonical },
    { property: "og:site_name", content: "Packyard" },
    { property: "og:image", content: imageUrl },
    { property: "og:image:alt", content: image.alt },
    ...(image.width && image.height
      ? [
          { property: "og:image:width", content: String(image.width) },
          { property: "og:image:height", content: String(image.height) },
        ]
      : []),
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: imageUrl },
    { name: "twitter:image:alt", content: image.alt },
    ...(options.noindex ? [{ name: "robots", content: "noindex" }] : []),
  ];
}

/** A JSON-LD block for a route's meta: `[...pageMeta(…), jsonLd(blogPostingJsonLd(…))]`. */
export function jsonLd(data: Record<string, unknown>): MetaDescriptor {
  return { "script:ld+json": data };
}

/** The JSON text of a JSON-LD block, safe inside a `<script>` element. */
export function jsonLdText(data: Record<string, unknown>): string {
  return JSON.stringify(data).replace(/</g, "\\u003c");
}

/** schema.org Organization: Packyard itself (on /). */
export function organizationJsonLd(baseUrl: string): Record<string, unknown> {
  return {
    "@context": "https://schema.org",
    "@type": "Organization",
    name: "Packyard",
    url: `${baseUrl}/`,
    logo: `${baseUrl}${LOGO_PATH}`,
    slogan: "Package management made simple",
    description: DEFAULT_DESCRIPTION,
  };
}

/** schema.org BlogPosting for a blog post page. Dates are ISO 8601. */
export function blogPostingJsonLd(post: {
  baseUrl: string;
  /** The post's path, e.g. /blog/atomic-publishing. */
  path: string;
  title: string;
  description: string;
  publishedAt: string;
  updatedAt?: string;
  authorName?: string;
  /** Absolute, or a path on this site; the site's default image when omitted. */
  image?: string;
  keywords?: string[];
  categories?: string[];
}): Record<string, unknown> {
  const url = `${post.baseUrl}${post.path}`;
  return {
    "@context": "https://schema.org",
    "@type": "BlogPosting",
    headline: post.title,
    description: post.description,
    url,
    mainEntityOfPage: { "@type": "WebPage", "@id": url },
    datePublished: post.publishedAt,
    dateModified: post.updatedAt ?? post.publishedAt,
    image: absolute(post.baseUrl, post.image ?? OG_IMAGE.path),
    author: post.authorName
      ? { "@type": "Person", name: post.authorName }
      : { "@type": "Organization", name: "Packyard", url: `${post.baseUrl}/` },
    publisher: {
      "@type": "Organization",
      name: "Packyard",
      url: `${post.baseUrl}/`,
      logo: { "@type": "ImageObject", url: `${post.baseUrl}${LOGO_PATH}` },
    },
    ...(post.keywords?.length ? { keywords: post.keywords.join(", ") } : {}),
    ...(post.categories?.length ? { articleSection: post.categories } : {}),
  };
}
