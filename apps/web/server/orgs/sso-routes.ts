// /api/v1/orgs/{slug}/sso: an organization's identity providers (issue 43, docs/sso.md) — SAML 2.0
// from its metadata, OpenID Connect from its issuer and client. Thin adapters: orgs/sso.ts
// decides who may (owners change them; admins see them), checks and records each change.
import { createRoute, z } from "@hono/zod-openapi";
import { createSsoProviderSchema, ssoProvider, updateSsoProviderSchema } from "@packyard/contract";
import type { Actor } from "../platform/core/authorization.ts";
import type { Caller } from "../platform/core/use-case.ts";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, empty, errors, json, jsonBody, readJson, serve } from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import {
  createSsoProvider,
  deleteSsoProvider,
  listSsoProviders,
  type SsoDeps,
  updateSsoProvider,
} from "./sso.ts";

const orgPath = z.object({ slug: z.string().describe("The organization's slug") });
const providerPath = orgPath.extend({ id: z.string().describe("The provider's id") });
const orgErrors = ["UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NOT_FOUND"] as const;
const checkErrors = [
  "VALIDATION_FAILED",
  "PLAN_LIMIT",
  "DOMAIN_NOT_VERIFIED",
  "DOMAIN_TAKEN",
  "SSO_PROVIDER_INVALID",
  "SSO_PROVIDER_UNREACHABLE",
] as const;

/** What the SSO use cases need of the server. */
export function ssoDepsOf(services: Services): SsoDeps {
  return {
    db: services.database.db,
    baseUrl: services.config.baseUrl,
    mailer: services.mailer,
    planLimits: services.config.planLimits,
    allowPrivate: services.config.webhookAllowPrivate,
  };
}

const listRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/sso",
  summary: "The organization's identity providers, with the URLs each is given (admins and owners)",
  request: { params: orgPath },
  responses: {
    200: json("Its providers", z.object({ providers: z.array(ssoProvider) })),
    ...errors(...orgErrors),
  },
});

const createProviderRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/sso",
  summary:
    "Add a SAML 2.0 (metadataXml or metadataUrl) or OpenID Connect (issuer, clientId, clientSecret) identity provider for a verified domain (owners, Pro plan)",
  request: { params: orgPath, body: jsonBody(createSsoProviderSchema) },
  responses: {
    201: json("Added", z.object({ provider: ssoProvider })),
    ...errors(...checkErrors, ...orgErrors),
  },
});

const updateProviderRoute = createRoute({
  method: "patch",
  path: "/orgs/{slug}/sso/{id}",
  summary: "Change an identity provider's domain, metadata or client (owners, Pro plan)",
  request: { params: providerPath, body: jsonBody(updateSsoProviderSchema) },
  responses: {
    200: json("Changed", z.object({ provider: ssoProvider })),
    ...errors(...checkErrors, ...orgErrors),
  },
});

const deleteProviderRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/sso/{id}",
  summary: "Remove an identity provider (owners); not the last one while single sign-on is required",
  request: { params: providerPath },
  responses: { 204: empty("Removed"), ...errors(...orgErrors, "SSO_NOT_CONFIGURED") },
});

export function orgSsoRoutes(services: Services) {
  const deps = ssoDepsOf(services);
  const api = createApiApp(services);
  const callerOf = async (c: Parameters<typeof clientAddress>[0]): Promise<Caller & { actor: Actor }> => ({
    actor: await requireActor(services, c.req.raw.headers),
    address: clientAddress(c, services.config.trustProxy),
  });

  serve(api, listRoute, async (c) => {
    const { actor } = await callerOf(c);
    return c.json({ providers: await listSsoProviders(deps, actor, c.req.valid("param").slug) }, 200);
  });

  serve(api, createProviderRoute, async (c) => {
    const caller = await callerOf(c);
    const input = await readJson(c, createProviderRoute);
    const provider = await createSsoProvider(deps, caller, {
      organization: c.req.valid("param").slug,
      ...input,
    });
    return c.json({ provider }, 201);
  });

  serve(api, updateProviderRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug, id } = c.req.valid("param");
    const input = await readJson(c, updateProviderRoute);
    return c.json(
      { provider: await updateSsoProvider(deps, caller, { organization: slug, id, ...input }) },
      200,
    );
  });

  serve(api, deleteProviderRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug, id } = c.req.valid("param");
    await deleteSsoProvider(deps, caller, { organization: slug, id });
    return c.body(null, 204);
  });

  return api;
}
