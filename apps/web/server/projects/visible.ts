// The project a /dl or /api/p request names (/:username/:slug/…), if the caller may see it; else
// NOT_FOUND. The caller is whoever the request authenticates as (a key, a session) or nobody.
// The username is found whatever its case; an old username still held for its owner answers
// 301 to the same URL with the owner's current name (docs/decisions/014-username-changes.md),
// except a private /dl repository the caller may see, which is served at the old name.
import type { Context } from "hono";
import { UsernameMovedError } from "../accounts/usernames.ts";
import { cachedProjectByName, NotInMemory } from "../downloads/lookups.ts";
import { notFound } from "../platform/core/errors.ts";
import { resolveActor } from "../platform/http/actor.ts";
import { toApiErrorResponse } from "../platform/http/api-errors.ts";
import type { Services } from "../services.ts";
import { findVisibleProject, type ProjectRow } from "./storage.ts";

export function visibleProject(services: Services, c: Context): Promise<ProjectRow> {
  const headers = c.req.raw.headers;
  return projectAsked(services, {
    username: c.req.param("username")!,
    slug: c.req.param("slug")!,
    anonymous: !headers.has("authorization") && !headers.has("cookie"),
    headers: () => headers,
    dl: c.req.path.startsWith("/dl/"),
    memoryOnly: false,
  });
}

/** What finding the project of a request takes (a /dl request: dl-answer.ts's DlRequest). */
export interface ProjectQuery {
  username: string;
  slug: string;
  /** Neither an Authorization nor a Cookie header. */
  anonymous: boolean;
  headers(): Headers;
  /** A /dl URL: a private repository the caller may see is served at an old name. */
  dl: boolean;
  /** From the serving cache only (lookups.ts's NotInMemory otherwise). */
  memoryOnly: boolean;
}

export async function projectAsked(services: Services, q: ProjectQuery): Promise<ProjectRow> {
  // Nobody signed in and no key (apt, dnf, curl on a public repository): the project as cached,
  // when the name is its owner's current one. Anything else takes the full path below.
  if (q.anonymous) {
    const project = await cachedProjectByName(services.database.db, q.username, q.slug, q.memoryOnly);
    if (project?.visibility === "public") return project;
    if (project) throw notFound("Project not found");
  }
  if (q.memoryOnly) throw new NotInMemory();
  const viewer = await resolveActor(services, q.headers());
  return findVisibleProject(services.database.db, q.username, q.slug, viewer, {
    // apt looks up its auth.conf.d credentials again for a redirect's target, and they name the
    // old path: a private repository the caller may see is served at the old name (decision 014).
    privateAtOldName: q.dl,
  });
}

/** How long a client may keep a redirect from an old name: the hold ends, a cached one must too. */
const MOVED_CACHE_CONTROL = "public, max-age=3600";

/**
 * The request's URL with the username (the path segment after `mount`) replaced, its query
 * kept, on the public origin: apt, dnf and curl follow it.
 */
export function renamedUrl(requestUrl: string, baseUrl: string, mount: string, username: string): string {
  const url = new URL(requestUrl);
  const segments = url.pathname.split("/");
  segments[mount.split("/").length] = encodeURIComponent(username);
  return new URL(`${segments.join("/")}${url.search}`, baseUrl).toString();
}

/**
 * The error handler of the routers under `mount` that find projects by username: a held old
 * username becomes a 301 for GET and HEAD, anything else what api-errors.ts answers.
 */
export function usernameAwareErrors(services: Pick<Services, "config" | "logger">, mount: "/dl" | "/api/p") {
  return (error: Error, c: Context): Response => {
    if (error instanceof UsernameMovedError && (c.req.method === "GET" || c.req.method === "HEAD")) {
      return new Response(null, {
        status: 301,
        headers: {
          location: renamedUrl(c.req.url, services.config.baseUrl, mount, error.username),
          "cache-control": MOVED_CACHE_CONTROL,
        },
      });
    }
    return toApiErrorResponse(error, services.logger);
  };
}
