// /api/v1/projects/{slug}/keys: the keys that sign a project's repositories, and rotating them.

import { createRoute, z } from "@hono/zod-openapi";
import { rotateKeyInput, type SigningKeyInfo, signingKey } from "@packyard/contract";
import { auditProjectAction } from "../../audit/request.ts";
import { SIGNING_KEY_ROTATE_ACCESS } from "../../domain/authorization.ts";
import { queueRpmResign } from "../../publishing/yum/resign-rpms.ts";
import type { Services } from "../../services.ts";
import {
  auditSource,
  callerAndProject,
  createApiApp,
  errors,
  json,
  jsonBody,
  ownProject,
  projectAccessErrors,
  projectPath,
  readJson,
  serve,
} from "./route.ts";

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

  // Rotation: a new key signs from now on; the current ones keep signing through the overlap,
  // so machines that trust only the old key keep working until they fetch the new keyring.
  serve(api, rotateSigningKeyRoute, async (c) => {
    const { actor, project } = await callerAndProject(
      services,
      c,
      c.req.valid("param").slug,
      SIGNING_KEY_ROTATE_ACCESS,
    );
    const input = await readJson(c, rotateSigningKeyRoute);
    const successor = await services.keys.rotate(project, {
      algorithm: input.algorithm,
      overlapMs: input.overlapDays * 24 * 60 * 60 * 1000,
    });
    await auditProjectAction(services.database.db, auditSource(services, c, actor), project, {
      action: "signing_key.rotated",
      target: successor.fingerprint,
      details: { algorithm: successor.algorithm, overlapDays: input.overlapDays },
    });
    await services.repos.publish(project.id);
    // The .rpm files are re-signed by the new key during the overlap (decision 030).
    await queueRpmResign(services.jobs, project.id);
    const { rows } = await services.keys.active(project);
    return c.json({ keys: rows.map(keyInfo) }, 201);
  });

  return api;
}
