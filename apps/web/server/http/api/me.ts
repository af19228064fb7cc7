// /api/v1/me: who the session or API key belongs to, and a key's scope.
import { createRoute } from "@hono/zod-openapi";
import { me } from "@packyard/contract";
import { scopeSlugs } from "../../domain/api-keys.ts";
import { userProfile } from "../../domain/users.ts";
import type { Services } from "../../services.ts";
import { requireActor } from "../actor.ts";
import { createApiApp, errors, json, serve } from "./route.ts";

const meRoute = createRoute({
  method: "get",
  path: "/me",
  summary: "Who this session or API key belongs to, and the key's scope",
  responses: { 200: json("Caller", me), ...errors("UNAUTHENTICATED") },
});

export function meRoutes(services: Services) {
  const db = services.database.db;
  const api = createApiApp(services);

  serve(api, meRoute, async (c) => {
    const actor = await requireActor(services, c.req.raw.headers);
    const user = await userProfile(db, actor.userId);
    if (actor.kind === "session") return c.json({ user, auth: { kind: "session" as const } }, 200);
    // A chosen project deleted since is left out.
    const projects = await scopeSlugs(db, actor.userId, actor.scope.projects, "omit");
    return c.json(
      { user, auth: { kind: "key" as const, scope: { projects, access: actor.scope.access } } },
      200,
    );
  });

  return api;
}
