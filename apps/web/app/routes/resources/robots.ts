// GET /robots.txt: what crawlers may visit, and where the sitemap is (an absolute URL).

import { services } from "../../lib/session.server.ts";
import { renderRobots } from "../../lib/sitemap.server.ts";
import type { Route } from "./+types/robots";

export function loader({ context }: Route.LoaderArgs) {
  return new Response(renderRobots(services(context).config.baseUrl), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
