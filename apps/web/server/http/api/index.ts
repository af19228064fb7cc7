// The API: /api/v1 (the product REST API, one module per resource) and /api/p (public JSON),
// every route declared once (route.ts), so the OpenAPI document lists exactly what is served.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Services } from "../../services.ts";
import { auditRoutes } from "./audit.ts";
import { fileRoutes } from "./files.ts";
import { importRoutes } from "./imports.ts";
import { keyRoutes } from "./keys.ts";
import { meRoutes } from "./me.ts";
import { projectRoutes } from "./projects.ts";
import { promotionRoutes } from "./promotion.ts";
import { publicRoutes } from "./public.ts";
import { releaseRoutes } from "./releases.ts";
import { repositorySettingsRoutes } from "./repository-settings.ts";
import { retentionRoutes } from "./retention.ts";
import { createApiApp } from "./route.ts";
import { signingKeyRoutes } from "./signing-keys.ts";
import { statsRoutes } from "./stats.ts";
import { usageRoutes } from "./usage.ts";
import { declareWebhookPayloads, webhookRoutes } from "./webhooks.ts";

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
];

/** Every API route, at its full path (/api/v1/…, /api/p/…). */
export function createApi(services: Services): OpenAPIHono {
  const api = createApiApp(services);
  for (const routes of v1) api.route("/api/v1", routes(services));
  api.route("/api/p", publicRoutes(services));
  // Not routes of this server: what it POSTs to webhooks (the document's `webhooks` section).
  declareWebhookPayloads(api);
  return api;
}
