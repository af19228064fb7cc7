// /api/v1/projects/{slug}/webhooks: a project's webhooks, their delivery log, redelivery and test
// deliveries (docs/webhooks.md). Managing them needs publish access (a session, or a publish key
// scoped to the project); reading them, read access. Each payload is described in the OpenAPI
// document's `webhooks` section.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  createWebhookInput,
  updateWebhookInput,
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  webhook,
  webhookDelivery,
  webhookPayloads,
  webhookWithSecret,
} from "@packyard/contract";
import { WEBHOOK_MANAGE_ACCESS, WEBHOOK_READ_ACCESS } from "../platform/core/authorization.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  createApiApp,
  empty,
  errors,
  json,
  jsonBody,
  ownProject,
  projectAccessErrors,
  projectPath,
  readJson,
  serve,
} from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import { requireOwnProject } from "../projects/storage.ts";
import type { Services } from "../services.ts";
import {
  createWebhook,
  deleteWebhook,
  type PersonCaller,
  rotateWebhookSecret,
  updateWebhook,
} from "./use-cases.ts";

const webhookPath = projectPath.extend({ id: z.string().describe("The webhook's id") });
const deliveryPath = webhookPath.extend({ deliveryId: z.string().describe("The delivery's id") });

const listRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/webhooks",
  summary: "The project's webhooks",
  request: { params: projectPath },
  responses: {
    200: json("Webhooks", z.object({ webhooks: z.array(webhook) })),
    ...errors(...projectAccessErrors),
  },
});

const createWebhookRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/webhooks",
  summary: "Add a webhook; its signing secret is in this response only",
  request: { params: projectPath, body: jsonBody(createWebhookInput) },
  responses: {
    201: json("Created", z.object({ webhook: webhookWithSecret })),
    ...errors("VALIDATION_FAILED", "WEBHOOK_URL_FORBIDDEN", ...projectAccessErrors),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/webhooks/{id}",
  summary: "A webhook",
  request: { params: webhookPath },
  responses: {
    200: json("The webhook", z.object({ webhook })),
    ...errors(...projectAccessErrors),
  },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/projects/{slug}/webhooks/{id}",
  summary: "Change a webhook's URL, events, description, or turn it on or off",
  request: { params: webhookPath, body: jsonBody(updateWebhookInput) },
  responses: {
    200: json("Updated", z.object({ webhook })),
    ...errors("VALIDATION_FAILED", "WEBHOOK_URL_FORBIDDEN", ...projectAccessErrors),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/projects/{slug}/webhooks/{id}",
  summary: "Delete a webhook and its delivery log",
  request: { params: webhookPath },
  responses: { 204: empty("Deleted"), ...errors(...projectAccessErrors) },
});

const rotateRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/webhooks/{id}/rotate-secret",
  summary: "Replace the signing secret; the new one is in this response only and signs from now on",
  request: { params: webhookPath },
  responses: {
    200: json("The webhook with its new secret", z.object({ webhook: webhookWithSecret })),
    ...errors(...projectAccessErrors),
  },
});

const testRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/webhooks/{id}/test",
  summary: "Send a `ping` delivery now; answers with how the first attempt went",
  request: { params: webhookPath },
  responses: {
    200: json("The delivery", z.object({ delivery: webhookDelivery })),
    ...errors(...projectAccessErrors),
  },
});

const deliveriesRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/webhooks/{id}/deliveries",
  summary: "The webhook's latest deliveries (up to 50, kept 30 days), newest first, with every attempt",
  request: { params: webhookPath },
  responses: {
    200: json("Deliveries", z.object({ deliveries: z.array(webhookDelivery) })),
    ...errors(...projectAccessErrors),
  },
});

const redeliverRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  summary: "Send a delivery's payload again, now, as a new delivery",
  request: { params: deliveryPath },
  responses: {
    200: json("The new delivery", z.object({ delivery: webhookDelivery })),
    ...errors(...projectAccessErrors),
  },
});

/** Every payload in the document's `webhooks` section (OpenAPI 3.1), with its headers. */
export function declareWebhookPayloads(api: OpenAPIHono) {
  const headers = z.object({
    [WEBHOOK_SIGNATURE_HEADER]: z
      .string()
      .describe('`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>`'),
    [WEBHOOK_EVENT_HEADER]: z.string().describe("The event"),
    [WEBHOOK_DELIVERY_HEADER]: z.string().describe("The delivery's id"),
  });
  for (const [event, schema] of Object.entries(webhookPayloads)) {
    api.openAPIRegistry.registerWebhook({
      method: "post",
      path: event,
      summary: event === "ping" ? "A test delivery" : `The ${event} event`,
      request: { headers, body: { content: { "application/json": { schema } } } },
      responses: {
        200: { description: "Any 2xx answer within 10 seconds counts as delivered" },
      },
    });
  }
}

export function webhookRoutes(services: Services) {
  const api = createApiApp(services);
  const { webhooks } = services;

  const deps = { db: services.database.db, clock: services.clock, webhooks };
  type Context = Parameters<Parameters<typeof serve>[2]>[0];

  /** Who is acting, and from where. */
  const callerOf = async (c: Context): Promise<PersonCaller> => ({
    actor: await requireActor(services, c.req.raw.headers),
    address: clientAddress(c, services.config.trustProxy),
  });

  /** The caller, and the project if they may manage its webhooks. */
  const managed = async (c: Context, slug: string) => {
    const caller = await callerOf(c);
    const project = await requireOwnProject(services.database.db, caller.actor, slug, WEBHOOK_MANAGE_ACCESS);
    return { caller, project };
  };

  serve(api, listRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, WEBHOOK_READ_ACCESS);
    return c.json({ webhooks: await webhooks.list(project) }, 200);
  });

  serve(api, createWebhookRoute, async (c) => {
    // Refused before the body is read, as ever (the use case checks again).
    const { caller } = await managed(c, c.req.valid("param").slug);
    const input = await readJson(c, createWebhookRoute);
    const created = await createWebhook(deps, caller, { project: c.req.valid("param").slug, webhook: input });
    return c.json({ webhook: created }, 201);
  });

  serve(api, getRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    const project = await ownProject(services, c, slug, WEBHOOK_READ_ACCESS);
    return c.json({ webhook: await webhooks.get(project, id) }, 200);
  });

  serve(api, updateRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    const { caller } = await managed(c, slug);
    const input = await readJson(c, updateRoute);
    return c.json({ webhook: await updateWebhook(deps, caller, { project: slug, id, webhook: input }) }, 200);
  });

  serve(api, deleteRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    await deleteWebhook(deps, await callerOf(c), { project: slug, id });
    return c.body(null, 204);
  });

  serve(api, rotateRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    return c.json(
      { webhook: await rotateWebhookSecret(deps, await callerOf(c), { project: slug, id }) },
      200,
    );
  });

  serve(api, testRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    const { project } = await managed(c, slug);
    return c.json({ delivery: await webhooks.test(project, id) }, 200);
  });

  serve(api, deliveriesRoute, async (c) => {
    const { slug, id } = c.req.valid("param");
    const project = await ownProject(services, c, slug, WEBHOOK_READ_ACCESS);
    return c.json({ deliveries: await webhooks.deliveries(project, id) }, 200);
  });

  serve(api, redeliverRoute, async (c) => {
    const { slug, id, deliveryId } = c.req.valid("param");
    const { project } = await managed(c, slug);
    return c.json({ delivery: await webhooks.redeliver(project, id, deliveryId) }, 200);
  });

  return api;
}
