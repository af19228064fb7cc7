// /api/v1/keys: the caller's API keys. Managing them is account-wide, so a session or an
// all-projects publish key of a person. An organization's key manages no keys, as on
// /api/v1/orgs/{slug}/keys: it would mint further never-expiring keys that outlive it.
import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyInfo, createApiKeyInput, createdApiKey } from "@packyard/contract";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, empty, errors, json, jsonBody, readJson, serve } from "../platform/http/api-route.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import type { Services } from "../services.ts";
import { describeApiKey, listUserApiKeys } from "./storage.ts";
import { assertKeyManager, createApiKey, deleteApiKey } from "./use-cases.ts";

const listKeysRoute = createRoute({
  method: "get",
  path: "/keys",
  summary: "Your API keys (needs a session or an all-projects publish key)",
  responses: {
    200: json("Keys", z.object({ keys: z.array(apiKeyInfo) })),
    ...errors("UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND"),
  },
});

const createKeyRoute = createRoute({
  method: "post",
  path: "/keys",
  summary: "Create an API key; its secret is in this response only",
  request: { body: jsonBody(createApiKeyInput) },
  responses: {
    201: json("Created", z.object({ key: createdApiKey })),
    ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND"),
  },
});

const deleteKeyRoute = createRoute({
  method: "delete",
  path: "/keys/{id}",
  summary: "Delete an API key",
  request: { params: z.object({ id: z.string() }) },
  responses: { 204: empty("Deleted"), ...errors("UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND") },
});

export function keyRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);
  const keyManager = async (c: { req: { raw: Request } }) => {
    const actor = await requireActor(services, c.req.raw.headers);
    assertKeyManager(actor);
    return actor;
  };
  const callerOf = async (c: Parameters<typeof clientAddress>[0]) => ({
    actor: await keyManager(c),
    address: clientAddress(c, services.config.trustProxy),
  });

  serve(api, listKeysRoute, async (c) => {
    const { userId } = await keyManager(c);
    const keys = await listUserApiKeys(db, userId);
    return c.json({ keys: await Promise.all(keys.map((k) => describeApiKey(db, userId, k))) }, 200);
  });

  serve(api, createKeyRoute, async (c) => {
    const caller = await callerOf(c);
    const input = await readJson(c, createKeyRoute);
    const { created, summary, ownerId } = await createApiKey({ db, auth: services.auth }, caller, {
      name: input.name,
      expiresIn: input.expiresInDays === null ? null : input.expiresInDays * 24 * 60 * 60,
      access: input.access,
      projects: input.projects === "*" ? "*" : { refs: input.projects },
    });
    return c.json({ key: { ...(await describeApiKey(db, ownerId, summary)), key: created.key } }, 201);
  });

  serve(api, deleteKeyRoute, async (c) => {
    const caller = await callerOf(c);
    await deleteApiKey({ db }, caller, { keyId: c.req.valid("param").id });
    return c.body(null, 204);
  });

  return api;
}
