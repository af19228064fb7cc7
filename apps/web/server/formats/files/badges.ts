// /dl/{username}/{projectSlug}/badge/version.svg, …/badge/downloads.svg and …/badge/installs.svg:
// shields-style badges for a README (decisions 033 and 083) — the latest version that isn't
// yanked, this month's downloads (files fetched by browsers, curl and other clients) and this
// month's installs (by apt, dnf/yum and zypper). Who may see them follows /dl's rules (a private project's only with its read
// token or the owner's session). Cached for 5 minutes, by shared caches only for a public
// project, with an ETag of the SVG. Their own bytes are not counted in the owner's downloads:
// README images are fetched by every page view through proxies, not by installers.
import { createHash } from "node:crypto";
import { formatBadgeCount } from "@packyard/contract/stats.ts";
import { Hono } from "hono";
import { type Answer, type DlDeps, type DlRequest, dlHandler, dlProject } from "../../downloads/dl-answer.ts";
import { monthCounts } from "../../downloads/stats.ts";
import { notFound } from "../../platform/core/errors.ts";
import { usernameAwareErrors } from "../../projects/visible.ts";
import { resolveLatest } from "../../releases/storage.ts";
import type { Services } from "../../services.ts";
import { BADGE_COLORS, renderBadge } from "./badge-svg.ts";

export const BADGE_MAX_AGE_SECONDS = 300;

export function createBadgeRoutes(services: Services) {
  const routes = new Hono();
  routes.onError(usernameAwareErrors(services, "/dl"));
  routes.on(["GET", "HEAD"], "/:username/:slug/badge/:name", dlHandler(services, "badge"));
  return routes;
}

export async function resolveBadge(deps: DlDeps, req: DlRequest): Promise<Answer> {
  const { services } = deps;
  const db = services.database.db;
  const name = req.params.name;
  if (name !== "version.svg" && name !== "downloads.svg" && name !== "installs.svg")
    throw notFound("No such badge");
  const project = await dlProject(deps, req);
  let svg: string;
  if (name === "version.svg") {
    const latest = await resolveLatest(db, project.id);
    svg = renderBadge(
      latest
        ? { label: "version", value: latest.version, color: BADGE_COLORS.info }
        : { label: "version", value: "none", color: BADGE_COLORS.none },
    );
  } else {
    const counts = await monthCounts(db, project.id, services.clock());
    const label = name === "installs.svg" ? "installs" : "downloads";
    svg = renderBadge({ label, value: `${formatBadgeCount(counts[label])}/month`, color: BADGE_COLORS.ok });
  }
  const etag = `"${createHash("sha256").update(svg).digest("hex").slice(0, 32)}"`;
  const headers = {
    "content-type": "image/svg+xml; charset=utf-8",
    "cache-control": `${project.visibility === "public" ? "public" : "private"}, max-age=${BADGE_MAX_AGE_SECONDS}`,
    etag,
    // Nothing in it runs: an SVG opened on its own still may not load or execute anything.
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
  };
  const route = "/dl/:username/:slug/badge/:name";
  const ifNoneMatch = req.header("if-none-match");
  if (ifNoneMatch?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag || tag.trim() === "*"))
    return { route, status: 304, headers };
  const bytes = Buffer.from(svg);
  return {
    route,
    status: 200,
    headers: { ...headers, "content-length": String(bytes.byteLength) },
    body: { kind: "bytes", bytes },
  };
}
