// /api/v1/projects/{slug}/entitlements and /api/v1/orgs/{org}/entitlements: entitlement tokens
// (docs/entitlements.md). Creating, changing, rotating and deleting one needs manage access to
// the project (its owner, an organization's admins and owners, a publish key scoped to it), or
// an organization's admin role; listing them and their usage, oversee access. Thin adapters
// around use-cases.ts.
import { createRoute, z } from "@hono/zod-openapi";
import {
  createEntitlementInput,
  createOrgEntitlementInput,
  ENTITLEMENT_USAGE_DEFAULT_DAYS,
  ENTITLEMENT_USAGE_MAX_DAYS,
  entitlementSummary,
  entitlementUsageDay,
  rotateEntitlementInput,
  updateEntitlementInput,
} from "@packyard/contract/entitlements.ts";
import { flushDownloadCounts } from "../billing/usage.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { PersonCaller } from "../platform/core/use-case.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  createApiApp,
  empty,
  errors,
  json,
  jsonBody,
  projectAccessErrors,
  projectPath,
  readJson,
  serve,
} from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { entitlementUsage } from "./storage.ts";
import {
  createEntitlement,
  deleteEntitlement,
  type EntitlementScope,
  getEntitlementToken,
  listEntitlementTokens,
  rotateEntitlement,
  updateEntitlement,
} from "./use-cases.ts";

const orgPath = z.object({ org: z.string().describe("The organization's slug") });
const idParam = { id: z.string().describe("The entitlement token's id") };
const projectTokenPath = projectPath.extend(idParam);
const orgTokenPath = orgPath.extend(idParam);
const usageQuery = z.object({
  days: z
    .string()
    .optional()
    .describe(
      `Days of usage up to today (UTC), at most ${ENTITLEMENT_USAGE_MAX_DAYS}; default ${ENTITLEMENT_USAGE_DEFAULT_DAYS}`,
    ),
});

const created = z.object({
  entitlement: entitlementSummary,
  token: z.string().describe("The secret, shown in this answer only"),
});
const usageAnswer = z.object({
  entitlement: entitlementSummary,
  days: z.array(entitlementUsageDay).describe("Per UTC day, oldest first; days without use left out"),
});

const orgErrors = ["UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NOT_FOUND"] as const;

/** The routes of one kind of owner: a project's tokens, or an organization's. */
function declare(kind: "project" | "org") {
  const base = kind === "project" ? "/projects/{slug}/entitlements" : "/orgs/{org}/entitlements";
  const params = kind === "project" ? projectPath : orgPath;
  const tokenParams = kind === "project" ? projectTokenPath : orgTokenPath;
  const access = kind === "project" ? projectAccessErrors : orgErrors;
  const whose = kind === "project" ? "the project" : "the organization";
  return {
    list: createRoute({
      method: "get",
      path: base,
      summary: `The entitlement tokens reading ${whose}`,
      request: { params },
      responses: {
        200: json("Entitlement tokens", z.object({ entitlements: z.array(entitlementSummary) })),
        ...errors(...access),
      },
    }),
    create: createRoute({
      method: "post",
      path: base,
      summary: "Create an entitlement token for a customer; its secret is in this answer only",
      request: {
        params,
        body: jsonBody(kind === "project" ? createEntitlementInput : createOrgEntitlementInput),
      },
      responses: {
        201: json("Created", created),
        ...errors("VALIDATION_FAILED", "PLAN_LIMIT", ...access),
      },
    }),
    get: createRoute({
      method: "get",
      path: `${base}/{id}`,
      summary: "An entitlement token",
      request: { params: tokenParams },
      responses: {
        200: json("The token", z.object({ entitlement: entitlementSummary })),
        ...errors(...access),
      },
    }),
    update: createRoute({
      method: "patch",
      path: `${base}/{id}`,
      summary: "Disable or enable a token, rename it, or change its limits (null clears one)",
      request: { params: tokenParams, body: jsonBody(updateEntitlementInput) },
      responses: {
        200: json("Updated", z.object({ entitlement: entitlementSummary })),
        ...errors("VALIDATION_FAILED", ...access),
      },
    }),
    remove: createRoute({
      method: "delete",
      path: `${base}/{id}`,
      summary: "Delete a token: its secrets stop working at once",
      request: { params: tokenParams },
      responses: { 204: empty("Deleted"), ...errors(...access) },
    }),
    rotate: createRoute({
      method: "post",
      path: `${base}/{id}/rotate`,
      summary:
        "Give the token a new secret (in this answer only); the old one works for overlapHours more (default 24)",
      request: { params: tokenParams, body: jsonBody(rotateEntitlementInput, { required: false }) },
      responses: { 200: json("Rotated", created), ...errors("VALIDATION_FAILED", ...access) },
    }),
    usage: createRoute({
      method: "get",
      path: `${base}/{id}/usage`,
      summary: "A token's usage per day: downloads, installs, bytes and distinct machines",
      request: { params: tokenParams, query: usageQuery },
      responses: { 200: json("Usage", usageAnswer), ...errors("VALIDATION_FAILED", ...access) },
    }),
  };
}

/** The first day of `days` days up to today (UTC), YYYY-MM-DD. */
function sinceOf(days: string | undefined, now: Date): string {
  const n = days === undefined ? ENTITLEMENT_USAGE_DEFAULT_DAYS : Number(days);
  if (!Number.isInteger(n) || n < 1 || n > ENTITLEMENT_USAGE_MAX_DAYS)
    throw new DomainError(
      "VALIDATION_FAILED",
      `days must be a whole number from 1 to ${ENTITLEMENT_USAGE_MAX_DAYS}`,
      {
        days: `from 1 to ${ENTITLEMENT_USAGE_MAX_DAYS}`,
      },
    );
  return new Date(now.getTime() - (n - 1) * 86_400_000).toISOString().slice(0, 10);
}

export function entitlementRoutes(services: Services) {
  const api = createApiApp(services);
  const db = services.database.db;
  const deps = { db, clock: services.clock, limits: services.config };
  type Context = Parameters<Parameters<typeof serve>[2]>[0];

  const callerOf = async (c: Context): Promise<PersonCaller> => ({
    actor: await requireActor(services, c.req.raw.headers),
    address: clientAddress(c, services.config.trustProxy),
  });

  for (const kind of ["project", "org"] as const) {
    const routes = declare(kind);
    const scopeOf = (params: { slug?: string; org?: string }): EntitlementScope =>
      kind === "project" ? { project: params.slug! } : { organization: params.org! };

    serve(api, routes.list, async (c) => {
      const scope = scopeOf(c.req.valid("param"));
      return c.json({ entitlements: await listEntitlementTokens(deps, await callerOf(c), scope) }, 200);
    });

    serve(api, routes.create, async (c) => {
      const scope = scopeOf(c.req.valid("param"));
      const caller = await callerOf(c);
      const input = await readJson(c, routes.create);
      return c.json(await createEntitlement(deps, caller, { ...scope, entitlement: input }), 201);
    });

    serve(api, routes.get, async (c) => {
      const params = c.req.valid("param");
      const entitlement = await getEntitlementToken(deps, await callerOf(c), {
        ...scopeOf(params),
        id: params.id,
      });
      return c.json({ entitlement }, 200);
    });

    serve(api, routes.update, async (c) => {
      const params = c.req.valid("param");
      const caller = await callerOf(c);
      const input = await readJson(c, routes.update);
      const entitlement = await updateEntitlement(deps, caller, {
        ...scopeOf(params),
        id: params.id,
        entitlement: input,
      });
      return c.json({ entitlement }, 200);
    });

    serve(api, routes.remove, async (c) => {
      const params = c.req.valid("param");
      await deleteEntitlement(deps, await callerOf(c), { ...scopeOf(params), id: params.id });
      return c.body(null, 204);
    });

    serve(api, routes.rotate, async (c) => {
      const params = c.req.valid("param");
      const caller = await callerOf(c);
      const rotation = await readJson(c, routes.rotate);
      return c.json(
        await rotateEntitlement(deps, caller, { ...scopeOf(params), id: params.id, rotation }),
        200,
      );
    });

    serve(api, routes.usage, async (c) => {
      const params = c.req.valid("param");
      const since = sinceOf(c.req.query("days"), services.clock());
      const entitlement = await getEntitlementToken(deps, await callerOf(c), {
        ...scopeOf(params),
        id: params.id,
      });
      // This server's latest answers are in the numbers (usage.ts writes them in batches).
      await flushDownloadCounts(db);
      return c.json({ entitlement, days: await entitlementUsage(db, entitlement.id, since) }, 200);
    });
  }
  return api;
}
