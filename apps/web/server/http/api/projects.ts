// /api/v1/projects: the caller's projects, and those of the organizations the caller belongs to
// (decision 040): created under an organization with `owner`, moved to another owner with
// /transfer, and addressed as {slug} or {owner}/{slug} (index.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { createProjectInput, project, transferProjectSchema, updateProjectInput } from "@packyard/contract";
import { recordAudit } from "../../audit/record.ts";
import { auditActorOf, auditProjectAction, auditProjectUpdate } from "../../audit/request.ts";
import {
  createProject,
  deleteProject,
  describeProjects,
  listProjects,
  ownerNameOf,
  transferProject,
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
  const api = createApiApp(services);

  serve(api, listProjectsRoute, async (c) =>
    c.json({ projects: await listProjects(db, await requireActor(services, c.req.raw.headers)) }, 200),
  );

  serve(api, createProjectRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    const input = await readJson(c, createProjectRoute);
    const created = await createProject(db, actor, input, services.config);
    const owner = await db
      .selectFrom("project")
      .select("owner_id")
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    await auditProjectAction(
      db,
      auditSource(services, c, actor),
      { id: created.id, owner_id: owner.owner_id, slug: created.slug },
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
    const ref = c.req.valid("param").slug;
    const { actor, project: before } = await callerAndProject(services, c, ref, "manage");
    const input = await readJson(c, updateProjectRoute);
    const updated = await updateProject(db, actor, ref, input, services.config);
    await auditProjectUpdate(db, auditSource(services, c, actor), before, updated);
    return c.json({ project: updated }, 200);
  });

  serve(api, deleteProjectRoute, async (c) => {
    const ref = c.req.valid("param").slug;
    const { actor, project } = await callerAndProject(services, c, ref, "manage");
    await deleteProject(db, actor, ref);
    await auditProjectAction(db, auditSource(services, c, actor), project, {
      action: "project.deleted",
      target: project.slug,
    });
    return c.body(null, 204);
  });

  serve(api, transferProjectRoute, async (c) => {
    const ref = c.req.valid("param").slug;
    const { actor, project: before } = await callerAndProject(services, c, ref, "manage");
    const input = await readJson(c, transferProjectRoute);
    const from = await ownerNameOf(db, before.owner_id);
    const moved = await transferProject(db, actor, ref, input.owner, services.config);
    const entry = {
      action: "project.transferred" as const,
      target: before.slug,
      details: { from: from.name, to: moved.owner },
    };
    const source = auditSource(services, c, actor);
    // The new owner's log and the project's; the old owner's log keeps where it went.
    const after = await db
      .selectFrom("project")
      .select("owner_id")
      .where("id", "=", moved.id)
      .executeTakeFirstOrThrow();
    await auditProjectAction(db, source, { ...before, owner_id: after.owner_id }, entry);
    await recordAudit(db, {
      ownerId: before.owner_id,
      projectSlug: before.slug,
      actor: auditActorOf(actor),
      address: source.address,
      ...entry,
    });
    return c.json({ project: moved }, 200);
  });

  return api;
}
