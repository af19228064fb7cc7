// /api/v1/me: who the session or API key belongs to, and a key's scope. An organization's key
// (decision 040) belongs to the organization: `user` is its account (its slug as username, no
// address) and `auth.organization` names it.
import { createRoute } from "@hono/zod-openapi";
import { me } from "@packyard/contract";
import { scopeSlugs } from "../api-keys/storage.ts";
import { requireActor } from "../platform/http/actor.ts";
import { createApiApp, errors, json, serve } from "../platform/http/api-route.ts";
import type { Services } from "../services.ts";
import { userProfile } from "./users.ts";

const meRoute = createRoute({
  method: "get",
  path: "/me",
  summary:
    "Who this session or API key belongs to (a user, or an organization for its keys), and the key's scope",
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
    const scope = { projects, access: actor.scope.access };
    if (actor.org)
      return c.json(
        {
          user: { ...user, email: "" },
          auth: { kind: "key" as const, scope, organization: user.username ?? "" },
        },
        200,
      );
    return c.json({ user, auth: { kind: "key" as const, scope } }, 200);
  });

  return api;
}
