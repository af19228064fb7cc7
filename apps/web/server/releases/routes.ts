// /api/v1/projects/{slug}/releases: a project's releases, and yanking them.
import { createRoute, z } from "@hono/zod-openapi";
import {
  createReleaseInput,
  release,
  releaseSummary,
  updateReleaseInput,
  yankInput,
} from "@packyard/contract";
import type { Context } from "hono";
import { flushDownloadCounts } from "../billing/usage.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  callerAndProject,
  createApiApp,
  empty,
  errors,
  json,
  jsonBody,
  ownProject,
  projectAccessErrors,
  projectPath,
  readJson,
  releasePath,
  requestCaller,
  serve,
} from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { describeProjectRelease, listReleaseSummaries, requireRelease } from "./storage.ts";
import { createRelease, deleteRelease, unyankRelease, updateRelease, yankRelease } from "./use-cases.ts";

const listReleasesRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/releases",
  summary: "List releases, newest first",
  request: { params: projectPath },
  responses: {
    200: json("Releases", z.object({ releases: z.array(releaseSummary) })),
    ...errors(...projectAccessErrors),
  },
});

const createReleaseRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/releases",
  summary: "Create a release",
  request: { params: projectPath, body: jsonBody(createReleaseInput) },
  responses: {
    201: json("Created", z.object({ release })),
    ...errors("VALIDATION_FAILED", "INVALID_VERSION", ...projectAccessErrors, "VERSION_EXISTS"),
  },
});

const getReleaseRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/releases/{version}",
  summary: "Get a release with its files",
  request: { params: releasePath },
  responses: { 200: json("Release", z.object({ release })), ...errors(...projectAccessErrors) },
});

const updateReleaseRoute = createRoute({
  method: "patch",
  path: "/projects/{slug}/releases/{version}",
  summary: "Update title and notes",
  request: { params: releasePath, body: jsonBody(updateReleaseInput) },
  responses: {
    200: json("Updated", z.object({ release })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

const deleteReleaseRoute = createRoute({
  method: "delete",
  path: "/projects/{slug}/releases/{version}",
  summary: "Delete a release and its files",
  request: { params: releasePath },
  responses: { 204: empty("Deleted"), ...errors(...projectAccessErrors) },
});

const yankRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/releases/{version}/yank",
  summary: "Yank: hide from latest and repositories; files stay downloadable",
  request: { params: releasePath, body: jsonBody(yankInput) },
  responses: {
    200: json("Yanked", z.object({ release })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

const unyankRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/releases/{version}/unyank",
  summary: "Undo a yank",
  request: { params: releasePath },
  responses: { 200: json("Restored", z.object({ release })), ...errors(...projectAccessErrors) },
});

export function releaseRoutes(services: Services) {
  const { database, config } = services;
  const db = database.db;
  const api = createApiApp(services);
  /** The caller of a use case: who asks (401 when nobody), and from where. */
  const callerOf = async (c: Context) =>
    requestCaller(services, c, await requireActor(services, c.req.raw.headers));

  serve(api, listReleasesRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    return c.json({ releases: await listReleaseSummaries(db, project.id) }, 200);
  });

  // Routes with a body authorize before reading it (a refused caller hears why, whatever it
  // sent); the use case authorizes again, as it does for every caller.
  serve(api, createReleaseRoute, async (c) => {
    const { slug } = c.req.valid("param");
    const { actor } = await callerAndProject(services, c, slug, "publish");
    const input = await readJson(c, createReleaseRoute);
    const { project, release } = await createRelease({ db }, requestCaller(services, c, actor), {
      project: slug,
      release: input,
    });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, release) }, 201);
  });

  serve(api, getReleaseRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const project = await ownProject(services, c, slug, "read");
    const found = await requireRelease(db, project.id, version);
    // This server's downloads still in memory first: the numbers include them.
    await flushDownloadCounts(db);
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, found) }, 200);
  });

  serve(api, updateReleaseRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor } = await callerAndProject(services, c, slug, "publish");
    const changes = await readJson(c, updateReleaseRoute);
    const { project, release } = await updateRelease({ db }, requestCaller(services, c, actor), {
      project: slug,
      version,
      changes,
    });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, release) }, 200);
  });

  serve(api, deleteReleaseRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    await deleteRelease({ db }, await callerOf(c), { project: slug, version });
    return c.body(null, 204);
  });

  serve(api, yankRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor, project: found } = await callerAndProject(services, c, slug, "publish");
    // A missing release answers 404 before a bad body, as it always has.
    await requireRelease(db, found.id, version);
    const { reason } = await readJson(c, yankRoute);
    const { project, release } = await yankRelease({ db }, requestCaller(services, c, actor), {
      project: slug,
      version,
      reason,
    });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, release) }, 200);
  });

  serve(api, unyankRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const caller = await callerOf(c);
    const { project, release } = await unyankRelease({ db }, caller, { project: slug, version });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, release) }, 200);
  });

  return api;
}
