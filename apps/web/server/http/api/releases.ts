// /api/v1/projects/{slug}/releases: a project's releases, and yanking them.
import { createRoute, z } from "@hono/zod-openapi";
import {
  createReleaseInput,
  release,
  releaseSummary,
  updateReleaseInput,
  yankInput,
} from "@packyard/contract";
import { auditProjectAction } from "../../audit/request.ts";
import {
  createRelease,
  deleteRelease,
  describeProjectRelease,
  listReleaseSummaries,
  requireRelease,
  setYanked,
  updateRelease,
} from "../../domain/releases.ts";
import { flushDownloadCounts } from "../../domain/usage.ts";
import type { Services } from "../../services.ts";
import {
  auditSource,
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
  serve,
} from "./route.ts";

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

  serve(api, listReleasesRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    return c.json({ releases: await listReleaseSummaries(db, project.id) }, 200);
  });

  serve(api, createReleaseRoute, async (c) => {
    const { actor, project } = await callerAndProject(services, c, c.req.valid("param").slug, "publish");
    const input = await readJson(c, createReleaseRoute);
    const created = await createRelease(db, project.id, input);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "release.created",
      target: created.version,
    });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, created) }, 201);
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
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const input = await readJson(c, updateReleaseRoute);
    const before = await requireRelease(db, project.id, version);
    const updated = await updateRelease(db, before, input);
    const changed = (["title", "notes"] as const).filter((field) => before[field] !== updated[field]);
    if (changed.length)
      await auditProjectAction(db, auditSource(services, c, actor), project, {
        action: "release.updated",
        target: updated.version,
        details: { changed },
      });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, updated) }, 200);
  });

  serve(api, deleteReleaseRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const found = await requireRelease(db, project.id, version);
    await deleteRelease(db, found);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "release.deleted",
      target: found.version,
    });
    return c.body(null, 204);
  });

  serve(api, yankRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const found = await requireRelease(db, project.id, version);
    const input = await readJson(c, yankRoute);
    const updated = await setYanked(db, found, input);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "release.yanked",
      target: found.version,
      details: { reason: input.reason },
    });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, updated) }, 200);
  });

  serve(api, unyankRoute, async (c) => {
    const { slug, version } = c.req.valid("param");
    const { actor, project } = await callerAndProject(services, c, slug, "publish");
    const found = await requireRelease(db, project.id, version);
    const updated = await setYanked(db, found, null);
    if (Number(found.yanked) === 1)
      await auditProjectAction(db, auditSource(services, c, actor), project, {
        action: "release.unyanked",
        target: found.version,
      });
    return c.json({ release: await describeProjectRelease(db, config.baseUrl, project, updated) }, 200);
  });

  return api;
}
