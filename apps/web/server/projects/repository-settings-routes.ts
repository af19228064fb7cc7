// /api/v1/projects/{slug}/repository-settings: the expiry of the project's signing keys, and
// what its APT Release files say (Valid-Until, Origin, Label, Codename). Decision 027.

import { createRoute, z } from "@hono/zod-openapi";
import { repositorySettings, updateRepositorySettingsInput } from "@packyard/contract";
import { REPOSITORY_SETTINGS_ACCESS } from "../platform/core/authorization.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  callerAndProject,
  createApiApp,
  errors,
  json,
  jsonBody,
  projectAccessErrors,
  projectPath,
  readJson,
  requestCaller,
  serve,
} from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { getRepositorySettings } from "./repository-settings.ts";
import { updateProjectRepositorySettings } from "./use-cases.ts";

const getRepositorySettingsRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/repository-settings",
  summary: "The project's signing-key expiry and APT Release fields",
  request: { params: projectPath },
  responses: {
    200: json("Settings", z.object({ settings: repositorySettings })),
    ...errors(...projectAccessErrors),
  },
});

const updateRepositorySettingsRoute = createRoute({
  method: "patch",
  path: "/projects/{slug}/repository-settings",
  summary:
    "Change the signing-key expiry (for new keys) or the APT Release fields; a change to Release re-publishes the repositories",
  request: { params: projectPath, body: jsonBody(updateRepositorySettingsInput) },
  responses: {
    200: json("Settings after the change", z.object({ settings: repositorySettings })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

export function repositorySettingsRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);

  serve(api, getRepositorySettingsRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    return c.json({ settings: await getRepositorySettings(db, actor, c.req.valid("param").slug) }, 200);
  });

  serve(api, updateRepositorySettingsRoute, async (c) => {
    // The slug as given (or owner/slug): a bare slug may name several projects (decision 040).
    const ref = c.req.valid("param").slug;
    const { actor } = await callerAndProject(services, c, ref, REPOSITORY_SETTINGS_ACCESS);
    const input = await readJson(c, updateRepositorySettingsRoute);
    const settings = await updateProjectRepositorySettings({ db }, requestCaller(services, c, actor), {
      project: ref,
      settings: input,
    });
    return c.json({ settings }, 200);
  });

  return api;
}
