// /api/v1/usage: the caller's storage and downloads against their plan.
import { createRoute, z } from "@hono/zod-openapi";
import { usage } from "@packyard/contract";
import { assertAccountAccess } from "../platform/core/authorization.ts";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, errors, json, serve } from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { accountUsage, flushDownloadCounts } from "./usage.ts";

const usageRoute = createRoute({
  method: "get",
  path: "/usage",
  summary: "Storage and downloads against your plan",
  responses: { 200: json("Usage", z.object({ usage })), ...errors("UNAUTHENTICATED", "KEY_SCOPE") },
});

export function usageRoutes(services: Services) {
  const api = createApiApp(services);

  serve(api, usageRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    assertAccountAccess(actor, "read");
    await flushDownloadCounts(services.database.db);
    return c.json({ usage: await accountUsage(services.database.db, actor.userId) }, 200);
  });

  return api;
}
