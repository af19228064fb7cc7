// The public release pages' data, read on the server: the search over public projects, and one
// project with one release (or the "latest" one). Visibility follows server/platform/core/authorization.ts:
// another user's private project is "not found", never "forbidden". Usernames are found whatever
// their case; a page asked for by another case, or by an old username still held for its owner,
// is "moved": the loaders redirect to the owner's name as written now (usernames.ts).
import type { Project, Release } from "@packyard/contract";
import { type Kysely, sql } from "kysely";
import { resolveUsername, UsernameMovedError } from "../../server/accounts/usernames.ts";
import { roleFor } from "../../server/orgs/storage.ts";
import { type Actor, mayAccessProject } from "../../server/platform/core/authorization.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import { describeProjects, findVisibleProject } from "../../server/projects/storage.ts";
import { describeRelease, findRelease, listReleaseRows, releaseUrls } from "../../server/releases/storage.ts";

type Db = Kysely<Database>;

/** The most results one search shows. */
export const SEARCH_LIMIT = 50;
/** Longest query considered; anything longer is cut. */
export const MAX_QUERY_LENGTH = 100;

export function normalizeQuery(raw: string | null | undefined): string {
  return (raw ?? "").trim().replace(/\s+/g, " ").slice(0, MAX_QUERY_LENGTH);
}

/** `%` and `_` are LIKE wildcards; `!` is our escape character. */
function likePattern(query: string): string {
  return `%${query.toLowerCase().replace(/[!%_]/g, (ch) => `!${ch}`)}%`;
}

export interface SearchResult {
  projects: Project[];
  /** True when there were more matches than SEARCH_LIMIT. */
  truncated: boolean;
}

/**
 * Public projects whose name, slug, description or owner's username contains the query
 * (case-insensitive), most recently updated first. With no query: the recently updated ones.
 */
export async function searchPublicProjects(db: Db, rawQuery: string): Promise<SearchResult> {
  const query = normalizeQuery(rawQuery);
  let select = db
    .selectFrom("project")
    .innerJoin("user", "user.id", "project.owner_id")
    .selectAll("project")
    .where("project.visibility", "=", "public")
    .where("user.username", "is not", null);
  if (query) {
    const pattern = likePattern(query);
    select = select.where((eb) =>
      eb.or(
        (["project.name", "project.slug", "project.description", "user.username"] as const).map(
          (column) => sql<boolean>`lower(${eb.ref(column)}) like ${pattern} escape '!'`,
        ),
      ),
    );
  }
  const rows = await select
    .orderBy("project.updated_at", "desc")
    .orderBy("project.id", "desc")
    .limit(SEARCH_LIMIT + 1)
    .execute();
  return {
    projects: await describeProjects(db, rows.slice(0, SEARCH_LIMIT)),
    truncated: rows.length > SEARCH_LIMIT,
  };
}

export interface VersionItem {
  version: string;
  title: string | null;
  yanked: boolean;
  createdAt: string;
}

interface PageBase {
  username: string;
  projectSlug: string;
  requested: string;
}

export type ReleasePage =
  | (PageBase & { status: "project-not-found" })
  /** The same page lives at `owner`, the owner's name as written now. */
  | (PageBase & { status: "moved"; owner: string })
  | (PageBase & {
      status: "release-not-found" | "no-release";
      project: Project;
      versions: VersionItem[];
      isOwner: boolean;
    })
  | (PageBase & {
      status: "ok";
      project: Project;
      versions: VersionItem[];
      isOwner: boolean;
      release: Release;
      /** The release's generated checksum list. */
      sumsUrl: string;
    });

/**
 * One project and one release for the public page. `requested` may be "latest": the newest
 * release that is not yanked; with none, the project is shown without a release (spec §4).
 */
export async function loadReleasePage(
  db: Db,
  baseUrl: string,
  params: { username: string; projectSlug: string; requested: string },
  viewer: Actor | null,
): Promise<ReleasePage> {
  const base: PageBase = { ...params };
  let row: Awaited<ReturnType<typeof findVisibleProject>>;
  try {
    row = await findVisibleProject(db, params.username, params.projectSlug, viewer);
  } catch (error) {
    if (error instanceof UsernameMovedError) return { ...base, status: "moved", owner: error.username };
    if (error instanceof DomainError && error.code === "NOT_FOUND")
      return { ...base, status: "project-not-found" };
    throw error;
  }
  const [project] = await describeProjects(db, [row]);
  if (project!.owner !== params.username) return { ...base, status: "moved", owner: project!.owner };
  const versions = (await listReleaseRows(db, row.id)).map((r) => ({
    version: r.version,
    title: r.title,
    yanked: Number(r.yanked) === 1,
    createdAt: r.created_at,
  }));
  // "Manage" and "Publish a release" for whoever may publish to it: its owner, or a member of
  // the organization owning it whose role allows publishing.
  // A member whose session the organization's required sign-on does not accept sees the public
  // page as anyone does (SSO_REQUIRED: no role here).
  const role = await roleFor(db, viewer, row.owner_id).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === "SSO_REQUIRED") return null;
    throw error;
  });
  const ownsIt = mayAccessProject(viewer, row, "publish", role);
  const found = await findRelease(db, row.id, params.requested);
  if (!found) {
    const status = params.requested === "latest" ? "no-release" : "release-not-found";
    return { ...base, status, project: project!, versions, isOwner: ownsIt };
  }
  const urls = releaseUrls(baseUrl, project!.owner, project!.slug);
  return {
    ...base,
    status: "ok",
    project: project!,
    versions,
    isOwner: ownsIt,
    release: await describeRelease(db, found, urls),
    sumsUrl: urls.fileUrl(found.version, "SHA256SUMS"),
  };
}

/**
 * The owner's name as written now when `username` is another case of it or an old name still
 * held for them: where a page asked for by `username` lives. Null when it is already that name,
 * or nobody's.
 */
export async function movedOwner(db: Db, username: string): Promise<string | null> {
  const owner = await resolveUsername(db, username);
  return owner && owner.username !== username ? owner.username : null;
}
