// GET /blog/feed.xml: the Atom feed of the newest posts, from the configured content source.
import { blogSource } from "../../../lib/blog/blog.server.ts";
import { FEED_LIMIT, renderAtomFeed } from "../../../lib/blog/feed.server.tsx";
import { services } from "../../../lib/session.server.ts";
import type { Route } from "./+types/feed";

export async function loader({ context }: Route.LoaderArgs) {
  const { config, logger } = services(context);
  try {
    const posts = await blogSource(config).listPosts({ limit: FEED_LIMIT });
    return new Response(renderAtomFeed(config.baseUrl, posts), {
      headers: {
        "Content-Type": "application/atom+xml; charset=utf-8",
        "Cache-Control": "public, max-age=600",
      },
    });
  } catch (error) {
    logger.error("the blog feed could not be loaded", error);
    return new Response("The blog feed is unavailable right now; try again in a few minutes.\n", {
      status: 503,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
        "Retry-After": "60",
      },
    });
  }
}
