// /api/v1/projects/{slug}/keys: the keys that sign a project's repositories, and rotating them.

import { createRoute, z } from "@hono/zod-openapi";
import { rotateKeyInput, type SigningKeyInfo, signingKey } from "@packyard/contract";
import { SIGNING_KEY_ROTATE_ACCESS } from "../platform/core/authorization.ts";
import {
  callerAndProject,
  createApiApp,
  errors,
  json,
  jsonBody,
  ownProject,
  projectAccessErrors,
  projectPath,
  readJson,
  requestCaller,
  serve,
} from "../platform/http/api-route.ts";
import { rotateSigningKey, rpmResignQueue } from "../projects/use-cases.ts";
import type { Services } from "../services.ts";

const listSigningKeysRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/keys",
  summary: "The repository signing keys in use",
  request: { params: projectPath },
  responses: {
    200: json("Keys", z.object({ keys: z.array(signingKey) })),
    ...errors(...projectAccessErrors),
  },
});

const rotateSigningKeyRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/keys/rotate",
  summary: "Rotate the signing key: the new key signs now, the old one until the overlap ends",
  request: { params: projectPath, body: jsonBody(rotateKeyInput, { required: false }) },
  responses: {
    201: json("Keys after the rotation", z.object({ keys: z.array(signingKey) })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

function keyInfo(row: {
  fingerprint: string;
  algorithm: string;
  created_at: string;
  retire_at: string | null;
  expires_at: string | null;
}): SigningKeyInfo {
  return {
    fingerprint: row.fingerprint,
    algorithm: row.algorithm as SigningKeyInfo["algorithm"],
    createdAt: row.created_at,
    retireAt: row.retire_at,
    expiresAt: row.expires_at,
  };
}

export function signingKeyRoutes(services: Services) {
  const api = createApiApp(services);

  serve(api, listSigningKeysRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    const { rows } = await services.keys.active(project);
    return c.json({ keys: rows.map(keyInfo) }, 200);
  });

  // Rotation (projects/use-cases.ts): a new key signs from now on, the current ones through the overlap.
  serve(api, rotateSigningKeyRoute, async (c) => {
    const ref = c.req.valid("param").slug;
    const { actor } = await callerAndProject(services, c, ref, SIGNING_KEY_ROTATE_ACCESS);
    const input = await readJson(c, rotateSigningKeyRoute);
    const { project } = await rotateSigningKey(
      {
        db: services.database.db,
        keys: services.keys,
        repos: services.repos,
        resignRpms: rpmResignQueue(services.jobs),
      },
      requestCaller(services, c, actor),
      { project: ref, algorithm: input.algorithm, overlapDays: input.overlapDays },
    );
    const { rows } = await services.keys.active(project);
    return c.json({ keys: rows.map(keyInfo) }, 201);
  });

  return api;
}
