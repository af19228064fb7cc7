// /api/v1/orgs/{slug}/domains: an organization's verified domains (issue 43, docs/sso.md) — the
// TXT record a claimed domain is proven by, verifying it, giving it up. The use cases decide
// who may (owners change them; admins see them) and record each change (orgs/domains.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { addOrgDomainSchema, orgDomain } from "@packyard/contract";
import type { Actor } from "../platform/core/authorization.ts";
import type { Caller } from "../platform/core/use-case.ts";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, empty, errors, json, jsonBody, readJson, serve } from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { addDomain, dnsTxtLookup, listDomains, removeDomain, verifyDomain } from "./domains.ts";

const orgPath = z.object({ slug: z.string().describe("The organization's slug") });
const domainPath = orgPath.extend({ domain: z.string().describe("The domain, such as acme.com") });
const orgErrors = ["UNAUTHENTICATED", "KEY_SCOPE", "FORBIDDEN", "NOT_FOUND"] as const;

const listDomainsRoute = createRoute({
  method: "get",
  path: "/orgs/{slug}/domains",
  summary:
    "The organization's domains, verified or not, with the TXT record each is proven by (admins and owners)",
  request: { params: orgPath },
  responses: { 200: json("Its domains", z.object({ domains: z.array(orgDomain) })), ...errors(...orgErrors) },
});

const addDomainRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/domains",
  summary: "Claim a domain (owners): answered with the TXT record to publish before verifying it",
  request: { params: orgPath, body: jsonBody(addOrgDomainSchema) },
  responses: {
    201: json("Claimed, not yet verified", z.object({ domain: orgDomain })),
    ...errors("VALIDATION_FAILED", "DOMAIN_TAKEN", ...orgErrors),
  },
});

const verifyDomainRoute = createRoute({
  method: "post",
  path: "/orgs/{slug}/domains/{domain}/verify",
  summary: "Look for the domain's TXT record and, when it is there, mark the domain verified (owners)",
  request: { params: domainPath },
  responses: {
    200: json("Verified", z.object({ domain: orgDomain })),
    ...errors("VALIDATION_FAILED", "DOMAIN_NOT_VERIFIED", "DOMAIN_TAKEN", ...orgErrors),
  },
});

const removeDomainRoute = createRoute({
  method: "delete",
  path: "/orgs/{slug}/domains/{domain}",
  summary: "Give a domain up (owners); not while an identity provider signs it in",
  request: { params: domainPath },
  responses: { 204: empty("Removed"), ...errors("VALIDATION_FAILED", "DOMAIN_IN_USE", ...orgErrors) },
});

export function orgDomainRoutes(services: Services) {
  const db = services.database.db;
  const deps = { db, dns: dnsTxtLookup(services.config.dnsResolver), clock: services.clock };
  const api = createApiApp(services);
  /** The caller of a use case: the member who acts, and from where. */
  const callerOf = async (c: Parameters<typeof clientAddress>[0]): Promise<Caller & { actor: Actor }> => ({
    actor: await requireActor(services, c.req.raw.headers),
    address: clientAddress(c, services.config.trustProxy),
  });

  serve(api, listDomainsRoute, async (c) => {
    const { actor } = await callerOf(c);
    const { slug } = c.req.valid("param");
    return c.json({ domains: await listDomains(db, actor, slug) }, 200);
  });

  serve(api, addDomainRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug } = c.req.valid("param");
    const input = await readJson(c, addDomainRoute);
    return c.json({ domain: await addDomain(deps, caller, { organization: slug, ...input }) }, 201);
  });

  serve(api, verifyDomainRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug, domain } = c.req.valid("param");
    return c.json({ domain: await verifyDomain(deps, caller, { organization: slug, domain }) }, 200);
  });

  serve(api, removeDomainRoute, async (c) => {
    const caller = await callerOf(c);
    const { slug, domain } = c.req.valid("param");
    await removeDomain(deps, caller, { organization: slug, domain });
    return c.body(null, 204);
  });

  return api;
}
