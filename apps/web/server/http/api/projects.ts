// /api/v1/projects: the caller's projects.
import { createRoute, z } from "@hono/zod-openapi";
import { createProjectInput, project, updateProjectInput } from "@packyard/contract";
import { auditProjectAction, auditProjectUpdate } from "../../audit/request.ts";
import {
  createProject,
  deleteProject,
  describeProjects,
  listProjects,
  updateProject,
} from "../../domain/projects.ts";
import type { Services } from "../../services.ts";
import { requireActor } from "../actor.ts";
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
  serve,
} from "./route.ts";

const listProjectsRoute = createRoute({
  method: "get",
  path: "/projects",
  summary: "List your projects",
  responses: {
    200: json("Projects", z.object({ projects: z.array(project) })),
    ...errors("UNAUTHENTICATED"),
  },
});

const createProjectRoute = createRoute({
  method: "post",
  path: "/projects",
  summary: "Create a project",
  request: { body: jsonBody(createProjectInput) },
  responses: {
    201: json("Created", z.object({ project })),
    ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE", "PLAN_LIMIT", "PROJECT_EXISTS"),
  },
});

const getProjectRoute = createRoute({
  method: "get",
  path: "/projects/{slug}",
  summary: "Get a project",
  request: { params: projectPath },
  responses: { 200: json("Project", z.object({ project })), ...errors(...projectAccessErrors) },
});

const updateProjectRoute = createRoute({
  method: "patch",
  path: "/projects/{slug}",
  summary: "Update a project",
  request: { params: projectPath, body: jsonBody(updateProjectInput) },
  responses: {
    200: json("Updated", z.object({ project })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors, "PLAN_LIMIT"),
  },
});

const deleteProjectRoute = createRoute({
  method: "delete",
  path: "/projects/{slug}",
  summary: "Delete a project, its releases and files",
  request: { params: projectPath },
  responses: { 204: empty("Deleted"), ...errors(...projectAccessErrors) },
});

export function projectRoutes(services: Services) {
  const { database } = services;
  const db = database.db;
  const api = createApiApp(services);

  serve(api, listProjectsRoute, async (c) =>
    c.json({ projects: await listProjects(db, await requireActor(services, c.req.raw.headers)) }, 200),
  );

  serve(api, createProjectRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    const input = await readJson(c, createProjectRoute);
    const created = await createProject(db, actor, input, services.config);
    await auditProjectAction(
      db,
      auditSource(services, c, actor),
      { id: created.id, owner_id: actor.userId, slug: created.slug },
      { action: "project.created", target: created.slug, details: { visibility: created.visibility } },
    );
    return c.json({ project: created }, 201);
  });

  serve(api, getProjectRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    const [dto] = await describeProjects(db, [project]);
    return c.json({ project: dto! }, 200);
  });

  serve(api, updateProjectRoute, async (c) => {
    const { actor, project: before } = await callerAndProject(
      services,
      c,
      c.req.valid("param").slug,
      "publish",
    );
    const input = await readJson(c, updateProjectRoute);
    const updated = await updateProject(db, actor, before.slug, input, services.config);
    await auditProjectUpdate(db, auditSource(services, c, actor), before, updated);
    return c.json({ project: updated }, 200);
  });

  serve(api, deleteProjectRoute, async (c) => {
    const { actor, project } = await callerAndProject(services, c, c.req.valid("param").slug, "publish");
    await deleteProject(db, actor, project.slug);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "project.deleted",
      target: project.slug,
    });
    return c.body(null, 204);
  });

  return api;
}
