// /api/v1/keys: the caller's API keys. Managing them is account-wide, so a session or an
// all-projects publish key of a person. An organization's key manages no keys, as on
// /api/v1/orgs/{slug}/keys: it would mint further never-expiring keys that outlive it.
import { createRoute, z } from "@hono/zod-openapi";
import { apiKeyInfo, createApiKeyInput, createdApiKey } from "@packyard/contract";
import { apiKeyDetails, auditAccountAction } from "../../audit/request.ts";
import {
  createUserApiKey,
  deleteUserApiKey,
  describeApiKey,
  listUserApiKeys,
  scopeProjectIds,
} from "../../domain/api-keys.ts";
import { assertAccountAccess, isPerson } from "../../domain/authorization.ts";
import { DomainError, notFound } from "../../domain/errors.ts";
import type { Services } from "../../services.ts";
import { requireActor } from "../actor.ts";
import { auditSource, createApiApp, empty, errors, json, jsonBody, readJson, serve } from "./route.ts";

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
    // The same answer as the organization's keys route gives an organization's key.
    if (!isPerson(actor)) throw notFound("An organization's key cannot manage API keys");
    assertAccountAccess(actor, "publish");
    return actor;
  };

  serve(api, listKeysRoute, async (c) => {
    const { userId } = await keyManager(c);
    const keys = await listUserApiKeys(db, userId);
    return c.json({ keys: await Promise.all(keys.map((k) => describeApiKey(db, userId, k))) }, 200);
  });

  serve(api, createKeyRoute, async (c) => {
    const actor = await keyManager(c);
    const { userId } = actor;
    const input = await readJson(c, createKeyRoute);
    const projectIds = input.projects === "*" ? "*" : await scopeProjectIds(db, userId, input.projects);
    const created = await createUserApiKey(services.auth, db, userId, {
      name: input.name,
      expiresIn: input.expiresInDays === null ? null : input.expiresInDays * 24 * 60 * 60,
      scope: { projects: projectIds, access: input.access },
    });
    const summary = (await listUserApiKeys(db, userId)).find((k) => k.id === created.id)!;
    await auditAccountAction(db, auditSource(services, c, actor), {
      action: "api_key.created",
      target: input.name,
      details: apiKeyDetails(summary),
    });
    return c.json({ key: { ...(await describeApiKey(db, userId, summary)), key: created.key } }, 201);
  });

  serve(api, deleteKeyRoute, async (c) => {
    const actor = await keyManager(c);
    const { id } = c.req.valid("param");
    const key = (await listUserApiKeys(db, actor.userId)).find((k) => k.id === id);
    if (!key || !(await deleteUserApiKey(db, actor.userId, id)))
      throw new DomainError("NOT_FOUND", "API key not found");
    await auditAccountAction(db, auditSource(services, c, actor), {
      action: "api_key.deleted",
      target: key.name,
      details: apiKeyDetails(key),
    });
    return c.body(null, 204);
  });

  return api;
}
