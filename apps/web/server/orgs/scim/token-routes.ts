// /api/v1/orgs/{slug}/scim-tokens: the bearer tokens an organization's identity provider
// provisions its members with (issue 43, docs/sso.md). Owners only; the use cases decide and
// record (tokens.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { requireActor } from "../../platform/http/actor.ts";
import { createApiApp, empty, errors, json, requestCaller, serve } from "../../platform/http/api-route.ts";
import type { Services } from "../../services.ts";
import { createScimToken, listScimTokens, revokeScimToken } from "./tokens.ts";

const orgPath = z.object({ slug: z.string().describe("The organization's slug") });
const tokenPath = orgPath.extend({ id: z.string().describe("The token's id") });
const orgErrors = ["UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NOT_FOUND"] as const;

const scimTokenSummary = z.object({
  id: z.string(),
  /** The token's first characters (`pks_` and four more), to tell tokens apart. */
  start: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

const createTokenRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/scim-tokens",
  summary:
    "Create a SCIM token (owners): the secret, shown only in this answer, and the SCIM base URL to give the identity provider",
  request: { params: orgPath },
  responses: {
    201: json(
      "Created",
      z.object({
        token: z.string().describe("The bearer token (pks_…): shown once"),
        baseUrl: z.string().describe("The SCIM 2.0 base URL, …/scim/v2"),
      }),
    ),
    ...errors(...orgErrors, "PLAN_LIMIT"),
  },
});

const listTokensRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/scim-tokens",
  summary: "The organization's SCIM tokens, newest first, without their secrets (owners)",
  request: { params: orgPath },
  responses: {
    200: json("Its tokens", z.object({ tokens: z.array(scimTokenSummary) })),
    ...errors(...orgErrors),
  },
});

const revokeTokenRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/scim-tokens/{id}",
  summary: "Revoke a SCIM token (owners): the identity provider can no longer provision with it",
  request: { params: tokenPath },
  responses: { 204: empty("Revoked"), ...errors(...orgErrors) },
});

export function scimTokenRoutes(services: Services) {
  const db = services.database.db;
  const deps = { db, planLimits: services.config.planLimits, clock: services.clock };
  const api = createApiApp(services);
  const callerOf = async (c: Parameters<typeof requestCaller>[1]) =>
    requestCaller(services, c, await requireActor(services, c.req.raw.headers));

  serve(api, createTokenRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug } = c.req.valid("param");
    const { token } = await createScimToken(deps, caller, { organization: slug });
    return c.json({ token, baseUrl: `${services.config.baseUrl}/scim/v2` }, 201);
  });

  serve(api, listTokensRoute, async (c) => {
    const { actor } = await callerOf(c);
    const { slug } = c.req.valid("param");
    return c.json({ tokens: await listScimTokens(db, actor, slug) }, 200);
  });

  serve(api, revokeTokenRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug, id } = c.req.valid("param");
    await revokeScimToken(deps, caller, { organization: slug, id });
    return c.body(null, 204);
  });

  return api;
}
