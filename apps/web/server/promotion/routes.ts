// POST /api/v1/projects/{slug}/releases/{version}/promote: a release to another APT suite or
// component, YUM group, or project of the same owner, without uploading again (decision 035).
import { createRoute, z } from "@hono/zod-openapi";
import { promoteInput, promotionResult } from "@packyard/contract";
import { requireActor } from "../platform/http/actor.ts";
import {
  createApiApp,
  errors,
  json,
  jsonBody,
  projectAccessErrors,
  readJson,
  releasePath,
  serve,
} from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { promoteRelease } from "./use-cases.ts";

const promoteRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/releases/{version}/promote",
  summary:
    "Promote a release: within the project its packages move to the named distribution, component or group; with `project` it is copied into that project (same blobs; .rpm files re-signed with its key). The repositories republish.",
  request: { params: releasePath, body: jsonBody(promoteInput) },
  responses: {
    200: json("Promoted", z.object({ promotion: promotionResult })),
    ...errors(
      "VALIDATION_FAILED",
      "INVALID_DISTRIBUTION",
      ...projectAccessErrors,
      "PROMOTION_TARGET_NOT_FOUND",
      "PLAN_LIMIT",
      "VERSION_EXISTS",
      "PROMOTION_SAME_TARGET",
      "RELEASE_YANKED",
    ),
  },
});

export function promotionRoutes(services: Services) {
  const api = createApiApp(services);

  serve(api, promoteRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const actor = await requireActor(services, c.req.raw.headers);
    const input = await readJson(c, promoteRoute);
    const promotion = await promoteRelease(
      {
        db: services.database.db,
        blobs: services.blobs,
        keys: services.keys,
        limits: services.config,
      },
      { actor, address: clientAddress(c, services.config.trustProxy) },
      { project: slug, version, promotion: input },
    );
    return c.json({ promotion }, 200);
  });

  return api;
}
