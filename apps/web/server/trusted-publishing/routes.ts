// /api/v1/projects/{slug}/trusted-publishers and /api/v1/trusted-publishing/token (docs/ci/):
// the CI workflows a project trusts, and the exchange of a CI's ID token for a publish token.
// Thin adapters around use-cases.ts.
import { createRoute, z } from "@hono/zod-openapi";
import {
  createTrustedPublisherInput,
  exchangeIdTokenAnswer,
  exchangeIdTokenInput,
  trustedPublisherSummary,
} from "@packyard/contract/trusted-publishing.ts";
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
import { IssuerKeys } from "./issuer-keys.ts";
import {
  addTrustedPublisher,
  exchangeIdToken,
  listProjectTrustedPublishers,
  removeTrustedPublisher,
} from "./use-cases.ts";

const base = "/projects/{slug}/trusted-publishers";
const publisherPath = projectPath.extend({ id: z.string().describe("The trusted publisher's id") });

const list = createRoute({
  method: "get",
  path: base,
  summary: "The CI workflows trusted to publish to the project",
  request: { params: projectPath },
  responses: {
    200: json("Trusted publishers", z.object({ trustedPublishers: z.array(trustedPublisherSummary) })),
    ...errors(...projectAccessErrors),
  },
});

const create = createRoute({
  method: "post",
  path: base,
  summary:
    "Trust a GitHub Actions repository or a GitLab CI project to publish with its OpenID Connect ID token",
  request: { params: projectPath, body: jsonBody(createTrustedPublisherInput) },
  responses: {
    201: json("Added", z.object({ trustedPublisher: trustedPublisherSummary })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

const remove = createRoute({
  method: "delete",
  path: `${base}/{id}`,
  summary: "Stop trusting a publisher (publish tokens it got expire within 15 minutes)",
  request: { params: publisherPath },
  responses: { 204: empty("Removed"), ...errors(...projectAccessErrors) },
});

const exchange = createRoute({
  method: "post",
  path: "/trusted-publishing/token",
  summary:
    "Trade a CI's OpenID Connect ID token (audience: this server's BASE_URL) for a publish token valid 15 minutes",
  request: { body: jsonBody(exchangeIdTokenInput) },
  responses: {
    200: json("A publish token for the matching projects (Authorization: Bearer)", exchangeIdTokenAnswer),
    ...errors(
      "VALIDATION_FAILED",
      "OIDC_TOKEN_INVALID",
      "OIDC_TOKEN_REPLAYED",
      "OIDC_NO_TRUSTED_PUBLISHER",
      "OIDC_AMBIGUOUS_OWNER",
      "OIDC_ISSUER_UNREACHABLE",
    ),
  },
});

export function trustedPublishingRoutes(services: Services) {
  const api = createApiApp(services);
  const db = services.database.db;
  const deps = {
    db,
    clock: services.clock,
    audience: services.config.baseUrl,
    keys: new IssuerKeys({ allowPrivate: services.config.webhookAllowPrivate }),
  };
  type Context = Parameters<Parameters<typeof serve>[2]>[0];
  const callerOf = async (c: Context): Promise<PersonCaller> => ({
    actor: await requireActor(services, c.req.raw.headers),
    address: clientAddress(c, services.config.trustProxy),
  });

  serve(api, list, async (c) => {
    const { slug } = c.req.valid("param");
    return c.json(
      { trustedPublishers: await listProjectTrustedPublishers(deps, await callerOf(c), slug) },
      200,
    );
  });

  serve(api, create, async (c) => {
    const { slug } = c.req.valid("param");
    const caller = await callerOf(c);
    const publisher = await readJson(c, create);
    return c.json(
      { trustedPublisher: await addTrustedPublisher(deps, caller, { project: slug, publisher }) },
      201,
    );
  });

  serve(api, remove, async (c) => {
    const { slug, id } = c.req.valid("param");
    await removeTrustedPublisher(deps, await callerOf(c), { project: slug, id });
    return c.body(null, 204);
  });

  serve(api, exchange, async (c) => {
    const input = await readJson(c, exchange);
    const answer = await exchangeIdToken(deps, clientAddress(c, services.config.trustProxy), input);
    c.header("cache-control", "no-store");
    return c.json(answer, 200);
  });
  return api;
}
