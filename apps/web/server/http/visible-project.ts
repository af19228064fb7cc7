// The project a /dl request names (/:username/:slug/…), if the caller may see it; else NOT_FOUND.
// The caller is whoever the request authenticates as (a key, a session) or nobody.
import type { Context } from "hono";
import { findVisibleProject, type ProjectRow } from "../domain/projects.ts";
import type { Services } from "../services.ts";
import { resolveActor } from "./actor.ts";

export async function visibleProject(services: Services, c: Context): Promise<ProjectRow> {
  const viewer = await resolveActor(services, c.req.raw.headers);
  return findVisibleProject(services.database.db, c.req.param("username")!, c.req.param("slug")!, viewer);
}
