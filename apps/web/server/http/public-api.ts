// /api/p: spec §7's public project and release JSON. Another user's private project is 404.
import { Hono } from "hono";
import { describeProjects, findVisibleProject } from "../domain/projects.ts";
import { describeRelease, listReleaseRows, releaseUrls, requireRelease } from "../domain/releases.ts";
import type { Services } from "../services.ts";
import { resolveActor } from "./actor.ts";
import { toApiErrorResponse } from "./api-errors.ts";

export function createPublicApi(services: Services) {
  const db = services.database.db;
  const api = new Hono();
  api.onError((error) => toApiErrorResponse(error, services.logger));

  api.get("/:username/:slug", async (c) => {
    const viewer = await resolveActor(services, c.req.raw.headers);
    const project = await findVisibleProject(db, c.req.param("username"), c.req.param("slug"), viewer);
    const [dto] = await describeProjects(db, [project]);
    const releases = await listReleaseRows(db, project.id);
    return c.json({
      project: dto,
      releases: releases.map((r) => ({
        version: r.version,
        yanked: Number(r.yanked) === 1,
        createdAt: r.created_at,
        title: r.title,
      })),
    });
  });

  api.get("/:username/:slug/:version", async (c) => {
    const viewer = await resolveActor(services, c.req.raw.headers);
    const project = await findVisibleProject(db, c.req.param("username"), c.req.param("slug"), viewer);
    const release = await requireRelease(db, project.id, c.req.param("version"));
    const [dto] = await describeProjects(db, [project]);
    return c.json({
      project: dto,
      release: await describeRelease(
        db,
        release,
        releaseUrls(services.config.baseUrl, c.req.param("username"), project.slug),
      ),
    });
  });

  return api;
}
