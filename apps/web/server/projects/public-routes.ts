// /api/p: spec §7's public project and release JSON, for anyone. Another user's private project
// is 404, as if it did not exist. The username is found whatever its case; an old one still
// held for its owner answers 301 to the same URL with the current name (usernames.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { publicProjectResponse, publicReleaseResponse } from "@packyard/contract";
import { createApiApp, errors, json, projectPath, releasePath, serve } from "../platform/http/api-route.ts";
import { describeRelease, listReleaseRows, releaseUrls, requireRelease } from "../releases/storage.ts";
import type { Services } from "../services.ts";
import { describeProjects } from "./storage.ts";
import { usernameAwareErrors, visibleProject } from "./visible.ts";

const publicProjectPath = z.object({
  username: z.string().describe("The owner's username"),
  ...projectPath.shape,
});
const publicReleasePath = publicProjectPath.extend({ version: releasePath.shape.version });

/** A held old username: the same URL with the owner's current name (decision 014). */
const moved = {
  301: {
    description: "The username is an old name of the owner: the same URL with the current name",
    headers: z.object({ Location: z.string().describe("The same URL with the owner's current name") }),
  },
} as const;

const publicProjectRoute = createRoute({
  method: "get",
  path: "/{username}/{slug}",
  summary: "A public project and its releases",
  security: [],
  request: { params: publicProjectPath },
  responses: { 200: json("Project", publicProjectResponse), ...moved, ...errors("NOT_FOUND") },
});

const publicReleaseRoute = createRoute({
  method: "get",
  path: "/{username}/{slug}/{version}",
  summary: "A public project and one release (`latest`: the newest not yanked)",
  security: [],
  request: { params: publicReleasePath },
  responses: { 200: json("Release", publicReleaseResponse), ...moved, ...errors("NOT_FOUND") },
});

export function publicRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);
  api.onError(usernameAwareErrors(services, "/api/p"));

  serve(api, publicProjectRoute, async (c) => {
    const project = await visibleProject(services, c);
    const [dto] = await describeProjects(db, [project]);
    const releases = await listReleaseRows(db, project.id);
    return c.json(
      {
        project: dto!,
        releases: releases.map((r) => ({
          version: r.version,
          yanked: Number(r.yanked) === 1,
          createdAt: r.created_at,
          title: r.title,
        })),
      },
      200,
    );
  });

  serve(api, publicReleaseRoute, async (c) => {
    const { version } = c.req.valid("param");
    const project = await visibleProject(services, c);
    const release = await requireRelease(db, project.id, version);
    const [dto] = await describeProjects(db, [project]);
    // The owner's name as written now, whatever the case of the one asked for.
    const urls = releaseUrls(services.config.baseUrl, dto!.owner, project.slug);
    return c.json({ project: dto!, release: await describeRelease(db, release, urls) }, 200);
  });

  return api;
}
