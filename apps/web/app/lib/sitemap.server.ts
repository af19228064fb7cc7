// sitemap.xml and robots.txt (SEO, issue 12 item 8): every public page, every blog post and
// every public release page — never a private project's, which authorization.ts decides.
import type { Kysely } from "kysely";
import { canViewProject } from "../../server/platform/core/authorization.ts";
import type { Database } from "../../server/platform/db/schema.ts";

type Db = Kysely<Database>;

/** The public site's pages, in the order they appear in the sitemap. */
export const PUBLIC_PAGES = [
  "/",
  "/features",
  "/pricing",
  "/blog/",
  "/compare/github-releases",
  "/compare/nexus-oss",
  "/compare/jfrog-artifactory",
  "/compare/gitlab",
  "/releases",
  "/contact",
  "/legal/terms",
  "/legal/privacy",
] as const;

/** The sitemap protocol's limit on URLs in one file. */
export const SITEMAP_MAX_URLS = 50_000;

export interface SitemapEntry {
  /** Path on this site, already URL-encoded. */
  path: string;
  /** ISO 8601 time of the last change, when known. */
  lastmod?: string;
}

/**
 * The release pages of public projects, newest first: every release that is not yanked (a
 * yanked release is withdrawn; its page stays reachable but is not advertised).
 */
export async function publicReleasePages(db: Db, limit: number): Promise<SitemapEntry[]> {
  const rows = await db
    .selectFrom("release")
    .innerJoin("project", "project.id", "release.project_id")
    .innerJoin("user", "user.id", "project.owner_id")
    .select([
      "project.id as projectId",
      "project.owner_id as ownerId",
      "project.visibility as visibility",
      "project.slug as slug",
      "user.username as username",
      "release.version as version",
      "release.published_at as publishedAt",
    ])
    .where("project.visibility", "=", "public")
    .where("user.username", "is not", null)
    .where("release.yanked", "=", 0)
    .orderBy("release.published_at", "desc")
    .orderBy("release.id", "desc")
    .limit(limit)
    .execute();
  return rows
    .filter((row) =>
      canViewProject({ id: row.projectId, owner_id: row.ownerId, visibility: row.visibility }, null),
    )
    .map((row) => ({
      path: `/releases/${[row.username ?? "", row.slug, row.version].map(encodeURIComponent).join("/")}`,
      lastmod: row.publishedAt,
    }));
}

const xmlEscape = (text: string) =>
  text.replace(/[<>&'"]/g, (ch) => `&${{ "<": "lt", ">": "gt", "&": "amp", "'": "apos", '"': "quot" }[ch]};`);

export function renderSitemap(baseUrl: string, entries: SitemapEntry[]): string {
  const urls = entries.slice(0, SITEMAP_MAX_URLS).map((entry) => {
    const lastmod = entry.lastmod
      ? `<lastmod>${xmlEscape(new Date(entry.lastmod).toISOString())}</lastmod>`
      : "";
    return `  <url><loc>${xmlEscape(`${baseUrl}${entry.path}`)}</loc>${lastmod}</url>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    "</urlset>",
    "",
  ].join("\n");
}

/** Paths crawlers are asked to leave alone: the signed-in area, the APIs and the downloads. */
const DISALLOWED = [
  "/api/",
  "/dl/",
  "/auth/",
  "/onboarding",
  "/dashboard",
  "/projects",
  "/api-keys",
  "/subscription",
  "/billing",
  "/profile",
  "/settings",
  "/integrations/",
  "/error",
];

export function renderRobots(baseUrl: string): string {
  return [
    "User-agent: *",
    "Allow: /",
    ...DISALLOWED.map((path) => `Disallow: ${path}`),
    "",
    `Sitemap: ${baseUrl}/sitemap.xml`,
    "",
  ].join("\n");
}
