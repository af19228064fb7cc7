// /api/v1/projects/{slug}/retention: the project's retention rules (decision 034), and a dry run
// that shows what they would delete now without deleting anything.

import { createRoute, z } from "@hono/zod-openapi";
import {
  retentionDryRunInput,
  retentionPlan,
  retentionSettings,
  updateRetentionInput,
} from "@packyard/contract";
import { RETENTION_MANAGE_ACCESS } from "../platform/core/authorization.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  createApiApp,
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
import { previewRetention } from "./run.ts";
import { getRetentionSettings } from "./settings.ts";
import { changeRetentionSettings } from "./use-cases.ts";

const getRetentionRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/retention",
  summary: "The project's retention rules (off by default) and its last run that deleted releases",
  request: { params: projectPath },
  responses: {
    200: json("Rules", z.object({ retention: retentionSettings })),
    ...errors(...projectAccessErrors),
  },
});

const putRetentionRoute = createRoute({
  method: "put",
  path: "/projects/{slug}/retention",
  summary:
    "Change the retention rules (fields left out keep their values); with the rules on, a run is queued at once and after every publish",
  request: { params: projectPath, body: jsonBody(updateRetentionInput) },
  responses: {
    200: json("Rules after the change", z.object({ retention: retentionSettings })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

const dryRunRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/retention/dry-run",
  summary:
    "What the rules would delete now and what they keep (nothing is deleted); the body may override the saved rules",
  request: { params: projectPath, body: jsonBody(retentionDryRunInput, { required: false }) },
  responses: {
    200: json("Releases kept and removed, newest first", z.object({ plan: retentionPlan })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

export function retentionRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);

  serve(api, getRetentionRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    return c.json({ retention: await getRetentionSettings(db, project.id) }, 200);
  });

  serve(api, putRetentionRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    const { slug } = c.req.valid("param");
    // Refused before the body is read, as ever (the use case checks again).
    await requireOwnProject(db, actor, slug, RETENTION_MANAGE_ACCESS);
    const input = await readJson(c, putRetentionRoute);
    const caller = { actor, address: clientAddress(c, services.config.trustProxy) };
    const settings = await changeRetentionSettings({ db, jobs: services.jobs }, caller, {
      project: slug,
      rules: input,
    });
    return c.json({ retention: settings }, 200);
  });

  serve(api, dryRunRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    const input = await readJson(c, dryRunRoute);
    const saved = await getRetentionSettings(db, project.id);
    const plan = await previewRetention(db, project.id, { ...saved, ...input }, services.clock());
    return c.json({ plan }, 200);
  });

  return api;
}
