// /api/v1/projects: the caller's projects, and those of the organizations the caller belongs to
// (decision 040): created under an organization with `owner`, moved to another owner with
// /transfer, and addressed as {slug} or {owner}/{slug} (index.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { createProjectInput, project, transferProjectSchema, updateProjectInput } from "@packyard/contract";
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
  requestCaller,
  serve,
} from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { describeProjects, listProjects } from "./storage.ts";
import { createProject, deleteProject, transferProject, updateProject } from "./use-cases.ts";

const listProjectsRoute = createRoute({
  method: "get",
  path: "/projects",
  summary: "List your projects and your organizations' (a key: those in its scope)",
  responses: {
    200: json("Projects", z.object({ projects: z.array(project) })),
    ...errors("UNAUTHENTICATED"),
  },
});

const createProjectRoute = createRoute({
  method: "post",
  path: "/projects",
  summary: "Create a project",
  description: "Yours, or with `owner` an organization's (its admins and owners may).",
  request: { body: jsonBody(createProjectInput) },
  responses: {
    201: json("Created", z.object({ project })),
    ...errors(
      "VALIDATION_FAILED",
      "UNAUTHENTICATED",
      "KEY_SCOPE",
      "FORBIDDEN",
      "PLAN_LIMIT",
      "NOT_FOUND",
      "PROJECT_EXISTS",
    ),
  },
});

const getProjectRoute = createRoute({
  method: "get",
  path: "/projects/{slug}",
  summary: "Get a project",
  request: { params: projectPath },
  responses: {
    200: json("Project", z.object({ project })),
    ...errors(...projectAccessErrors),
  },
});

const updateProjectRoute = createRoute({
  method: "patch",
  path: "/projects/{slug}",
  summary: "Update a project (in an organization: its admins and owners)",
  request: { params: projectPath, body: jsonBody(updateProjectInput) },
  responses: {
    200: json("Updated", z.object({ project })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors, "PLAN_LIMIT"),
  },
});

const deleteProjectRoute = createRoute({
  method: "delete",
  path: "/projects/{slug}",
  summary: "Delete a project, its releases and files (in an organization: its admins and owners)",
  request: { params: projectPath },
  responses: {
    204: empty("Deleted"),
    ...errors(...projectAccessErrors),
  },
});

const transferProjectRoute = createRoute({
  method: "post",
  path: "/projects/{slug}/transfer",
  summary:
    "Move a project to an organization you administer, or back to yourself; its old /dl and /releases URLs redirect",
  request: { params: projectPath, body: jsonBody(transferProjectSchema) },
  responses: {
    200: json("Transferred", z.object({ project })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors, "PLAN_LIMIT", "PROJECT_EXISTS"),
  },
});

export function projectRoutes(services: Services) {
  const { database } = services;
  const db = database.db;
  const deps = { db, limits: services.config };
  const api = createApiApp(services);

  serve(api, listProjectsRoute, async (c) =>
    c.json({ projects: await listProjects(db, await requireActor(services, c.req.raw.headers)) }, 200),
  );

  serve(api, createProjectRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    const input = await readJson(c, createProjectRoute);
    const created = await createProject(deps, requestCaller(services, c, actor), input);
    return c.json({ project: created }, 201);
  });

  serve(api, getProjectRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    const [dto] = await describeProjects(db, [project]);
    return c.json({ project: dto! }, 200);
  });

  serve(api, updateProjectRoute, async (c) => {
    const project = c.req.valid("param").slug;
    // Who may not manage the project learns that before anything about the body.
    const { actor } = await callerAndProject(services, c, project, "manage");
    const changes = await readJson(c, updateProjectRoute);
    const updated = await updateProject(deps, requestCaller(services, c, actor), { project, changes });
    return c.json({ project: updated }, 200);
  });

  serve(api, deleteProjectRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    await deleteProject(deps, requestCaller(services, c, actor), { project: c.req.valid("param").slug });
    return c.body(null, 204);
  });

  serve(api, transferProjectRoute, async (c) => {
    const project = c.req.valid("param").slug;
    const { actor } = await callerAndProject(services, c, project, "manage");
    const { owner } = await readJson(c, transferProjectRoute);
    const moved = await transferProject(deps, requestCaller(services, c, actor), { project, owner });
    return c.json({ project: moved }, 200);
  });

  return api;
}
