// GET /sitemap.xml: the public pages, blog posts and public release pages.
import { listAllPostSlugs } from "../../lib/blog/blog.server.ts";
import { blogPath } from "../../lib/blog/view.ts";
import { services } from "../../lib/session.server.ts";
import {
  PUBLIC_PAGES,
  publicReleasePages,
  renderSitemap,
  SITEMAP_MAX_URLS,
  type SitemapEntry,
} from "../../lib/sitemap.server.ts";
import type { Route } from "./+types/sitemap";

export async function loader({ context }: Route.LoaderArgs) {
  const { config, database, logger } = services(context);
  const pages: SitemapEntry[] = PUBLIC_PAGES.map((path) => ({ path }));
  let posts: SitemapEntry[] = [];
  try {
    posts = (await listAllPostSlugs(config)).map((post) => ({
      path: blogPath(post.slug),
      lastmod: post.updatedAt || post.publishedAt,
    }));
  } catch (error) {
    // The content service being down must not take the rest of the sitemap with it.
    logger.error("listing the blog posts for sitemap.xml failed", error);
  }
  const releases = await publicReleasePages(database.db, SITEMAP_MAX_URLS - pages.length - posts.length);
  return new Response(renderSitemap(config.baseUrl, [...pages, ...posts, ...releases]), {
    headers: {
      "Content-Type": "application/xml; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}
