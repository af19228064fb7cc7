// The API: /api/v1 (the product REST API, one module per resource) and /api/p (public JSON),
// every route declared once (route.ts), so the OpenAPI document lists exactly what is served.
//
// A project is addressed as /api/v1/projects/{slug}/… and, for an organization's (decision 040),
// as /api/v1/projects/{owner}/{slug}/… too: such a path is routed as the same routes' with the
// slug parameter `owner/slug` (which requireOwnProject takes; projectPathRewriter). The second segment is a project's
// slug when it is not one of the names the routes use under /projects/{slug}/ (releases, audit,
// …), read from the registered routes so a new one cannot be mistaken for a slug.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { meRoutes } from "../../accounts/me-routes.ts";
import { keyRoutes } from "../../api-keys/routes.ts";
import { auditRoutes } from "../../audit/routes.ts";
import { usageRoutes } from "../../billing/usage-routes.ts";
import { statsRoutes } from "../../downloads/stats-routes.ts";
import { entitlementRoutes } from "../../entitlements/routes.ts";
import { importRoutes } from "../../imports/routes.ts";
import { orgDomainRoutes } from "../../orgs/domain-routes.ts";
import { orgRoutes } from "../../orgs/routes.ts";
import { scimTokenRoutes } from "../../orgs/scim/token-routes.ts";
import { orgSsoRoutes } from "../../orgs/sso-routes.ts";
import { publicRoutes } from "../../projects/public-routes.ts";
import { repositorySettingsRoutes } from "../../projects/repository-settings-routes.ts";
import { projectRoutes } from "../../projects/routes.ts";
import { promotionRoutes } from "../../promotion/routes.ts";
import { fileRoutes } from "../../releases/file-routes.ts";
import { releaseRoutes } from "../../releases/routes.ts";
import { retentionRoutes } from "../../retention/routes.ts";
import type { Services } from "../../services.ts";
import { signingKeyRoutes } from "../../signing-keys/routes.ts";
import { trustedPublishingRoutes } from "../../trusted-publishing/routes.ts";
import { declareWebhookPayloads, webhookRoutes } from "../../webhooks/routes.ts";
import { createApiApp } from "./api-route.ts";

const v1 = [
  projectRoutes,
  releaseRoutes,
  promotionRoutes,
  fileRoutes,
  signingKeyRoutes,
  repositorySettingsRoutes,
  retentionRoutes,
  importRoutes,
  keyRoutes,
  meRoutes,
  usageRoutes,
  webhookRoutes,
  auditRoutes,
  statsRoutes,
  orgRoutes,
  orgDomainRoutes,
  scimTokenRoutes,
  orgSsoRoutes,
  entitlementRoutes,
  trustedPublishingRoutes,
];

const PROJECTS = "/api/v1/projects/";

/** The names routes use after /api/v1/projects/{slug}/ (releases, keys, …). */
export function projectSubresources(routes: readonly { path: string }[]): Set<string> {
  const names = new Set<string>();
  for (const { path } of routes) {
    const match = /^\/api\/v1\/projects\/:slug\/([^/:]+)/.exec(path);
    if (match) names.add(match[1]!);
  }
  return names;
}

/**
 * /api/v1/projects/{owner}/{slug}/… as the path the routes serve (`{owner}%2F{slug}`), or
 * undefined when the path does not name a project by owner and slug. `pathname` as the router
 * sees it (a `%2F` still encoded).
 */
export function ownerSlugPath(pathname: string, subresources: ReadonlySet<string>): string | undefined {
  if (!pathname.startsWith(PROJECTS)) return undefined;
  const [owner, slug, ...rest] = pathname.slice(PROJECTS.length).split("/");
  if (!owner || !slug || subresources.has(slug) || owner.includes("%")) return undefined;
  return `${PROJECTS}${owner}%2F${slug}${rest.length ? `/${rest.join("/")}` : ""}`;
}

/**
 * What the server routes a request path as (app.ts's getPath): /api/v1/projects/{owner}/{slug}/…
 * as the routes' /api/v1/projects/{owner}%2F{slug}/…, any other path as it is. Before routing,
 * so the server's middleware for a path (upload byte counts, the request log's route) and the
 * routes see the one path.
 */
export function projectPathRewriter(api: OpenAPIHono): (path: string) => string {
  const subresources = projectSubresources(api.routes);
  return (path) => ownerSlugPath(path, subresources) ?? path;
}

/** Every API route, at its full path (/api/v1/…, /api/p/…). */
export function createApi(services: Services): OpenAPIHono {
  const api = createApiApp(services);
  for (const routes of v1) api.route("/api/v1", routes(services));
  api.route("/api/p", publicRoutes(services));
  // Not routes of this server: what it POSTs to webhooks (the document's `webhooks` section).
  declareWebhookPayloads(api);
  return api;
}
