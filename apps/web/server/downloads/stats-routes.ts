// /api/v1/projects/{slug}/stats: a project's downloads over a period, by day, file, version,
// client kind or distribution (decision 033). The dashboard's Downloads page reads the same
// function (downloads/stats.ts).
import { createRoute, z } from "@hono/zod-openapi";
import {
  projectStats as projectStatsSchema,
  STATS_GROUPINGS,
  statsPeriod,
  statsQuery,
  utcDay,
} from "@packyard/contract";
import { DomainError } from "../platform/core/errors.ts";
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
import { projectStats } from "./stats.ts";

const statsRoute = createRoute({
  method: "get",
  path: "/projects/{slug}/stats",
  summary:
    "Downloads and bytes served over a period, grouped by day, file, version, client kind or distribution",
  description:
    "Counts every file of the project served from /dl (stable URLs, APT pool, YUM packages): a download is a file delivered to its last byte; bytes include ranges and cut-off transfers. Days are UTC. Counts reach the statistics within a few seconds.",
  request: {
    params: projectPath,
    query: z.object({
      from: z.string().optional().describe("First day, YYYY-MM-DD (default: 29 days before `to`)"),
      to: z.string().optional().describe("Last day, YYYY-MM-DD, included (default: today, UTC)"),
      by: z.enum(STATS_GROUPINGS).optional().describe("How rows are grouped (default: day)"),
      version: z.string().optional().describe("Only the files of this release"),
    }),
  },
  responses: {
    200: json("Statistics", z.object({ stats: projectStatsSchema })),
    ...errors("VALIDATION_FAILED", ...projectAccessErrors),
  },
});

export function statsRoutes(services: Services) {
  const api = createApiApp(services);

  serve(api, statsRoute, async (c) => {
    const project = await ownProject(services, c, c.req.valid("param").slug, "read");
    const query = statsQuery.parse(c.req.query());
    const period = statsPeriod(query, utcDay(services.clock()));
    if ("error" in period)
      throw new DomainError("VALIDATION_FAILED", period.error.message, {
        [period.error.field]: period.error.message,
      });
    const stats = await projectStats(services.database.db, project.id, {
      ...period,
      by: query.by,
      ...(query.version !== undefined ? { version: query.version } : {}),
    });
    return c.json({ stats }, 200);
  });

  return api;
}
