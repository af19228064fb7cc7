// /api/v1/audit and /api/v1/projects/{slug}/audit: the audit log (decision 031) of the caller's
// account (a session or an all-projects key) and of one of their projects (a key scoped to it
// will do), newest first, filtered and paged by cursor.
import { createRoute, z } from "@hono/zod-openapi";
import { AUDIT_ACTION_GROUPS, AUDIT_ACTIONS, auditPage, auditQuery } from "@packyard/contract";
import { assertAccountAccess, PROJECT_AUDIT_ACCESS } from "../platform/core/authorization.ts";
import { requireActor } from "../platform/http/actor.ts";
import {
  createApiApp,
  errors,
  json,
  ownProject,
  projectAccessErrors,
  projectPath,
  serve,
} from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { listAuditEntries } from "./query.ts";

const filters = z.object({
  action: z
    .string()
    .optional()
    .describe(
      `One action (${AUDIT_ACTIONS.join(", ")}) or a group of them (${AUDIT_ACTION_GROUPS.join(", ")})`,
    ),
  actor: z
    .string()
    .optional()
    .describe("`user` (a signed-in session), `key` (any API key), `key:<id>` (that key) or `system` (a job)"),
  from: z.string().optional().describe("Entries at or after this day (YYYY-MM-DD, UTC) or ISO 8601 time"),
  to: z.string().optional().describe("Entries up to this day (included) or ISO 8601 time"),
  cursor: z.string().optional().describe("The `nextCursor` of the previous page"),
  limit: z.string().optional().describe("Entries per page, 1 to 200 (default 50)"),
});

const accountAuditRoute = createRoute({
  method: "get",
  path: "/audit",
  summary: "Your account's audit log (needs a session or an all-projects key), newest first",
  request: {
    query: filters.extend({
      project: z
        .string()
        .optional()
        .describe("Only this project's entries (its slug when they were recorded)"),
    }),
  },
  responses: {
    200: json("A page of entries", auditPage),
    ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE"),
  },
});

const projectAuditRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/audit",
  summary: "A project's audit log, newest first",
  request: { params: projectPath, query: filters },
  responses: {
    200: json("A page of entries", auditPage),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

export function auditRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);

  serve(api, accountAuditRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    assertAccountAccess(actor, "read");
    const { project, ...query } = auditQuery.parse(c.req.query());
    return c.json(await listAuditEntries(db, { ownerId: actor.userId, projectSlug: project }, query), 200);
  });

  serve(api, projectAuditRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, PROJECT_AUDIT_ACCESS);
    const { project: _ignored, ...query } = auditQuery.parse(c.req.query());
    return c.json(await listAuditEntries(db, { projectId: project.id }, query), 200);
  });

  return api;
}
