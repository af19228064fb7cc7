// GET /sitemap.xml: the public pages, blog posts and public release pages.
import { PUBLIC_PAGES, publicReleasePages, renderSitemap, SITEMAP_MAX_URLS } from "../../lib/sitemap.server.ts";
import { services } from "../../lib/session.server.ts";
import type { Route } from "./+types/sitemap";

export async function loader({ context }: Route.LoaderArgs) {
  const { config, database } = services(context);
  const pages = PUBLIC_PAGES.map((path) => ({ path }));
  const releases = await publicReleasePages(database.db, SITEMAP_MAX_URLS - pages.length);
  return new Response(renderSitemap(config.baseUrl, [...pages, ...releases]), {
    headers: {
      "Content-Type": "application/xml; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}
