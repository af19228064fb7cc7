// Loaders and actions of the signed-in project pages: what they read, and how an action answers
// a form (Conform's result, lib/forms.ts). The domain functions (server/domain) do the work and
// enforce the rules; this file only adapts them to forms and pages.
import type { Submission } from "@conform-to/react";
import {
  type ApiErrorCode,
  apiErrorStatus,
  type Project,
  type Release,
  type ReleaseSummary,
  type Usage,
} from "@packyard/contract";
import type { Kysely } from "kysely";
import { data, redirect } from "react-router";
import { z } from "zod";
import { accountUsage } from "../../server/billing/usage.ts";
import { roleFor } from "../../server/orgs/storage.ts";
import {
  type Access,
  type Actor,
  assertProjectAccess,
  type OrgRole,
} from "../../server/platform/core/authorization.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import type { PersonCaller } from "../../server/platform/core/use-case.ts";
import type { Database } from "../../server/platform/db/schema.ts";
import {
  describeProjects,
  ownerNameOf,
  type ProjectRow,
  requireOwnProject,
} from "../../server/projects/storage.ts";
import {
  describeRelease,
  type ReleaseRow,
  releaseUrls,
  requireRelease,
} from "../../server/releases/storage.ts";
import { type FormReply, parseForm } from "./forms.ts";
import { type ProjectPlace, projectPath } from "./project-path.ts";

type Db = Kysely<Database>;

export function sessionActor(user: { id: string; ssoOrganizationId?: string | null }): Actor {
  return {
    kind: "session",
    userId: user.id,
    ...(user.ssoOrganizationId ? { ssoOrganizationId: user.ssoOrganizationId } : {}),
  };
}

/** The signed-in user and the client's address (session.server.ts's clientAddress): a use case's caller. */
export function sessionCaller(user: { id: string }, address: string): PersonCaller {
  return { actor: sessionActor(user), address };
}

// ---------------------------------------------------------------------------------------------
// Answers. An action reads its form with parseForm (lib/forms.ts) and answers with the form's
// submission, so the errors reach the fields they are about.

type Replying = Pick<Submission<unknown>, "reply">;

export function succeeded(submission: Replying, message: string) {
  return data<FormReply>({ result: submission.reply(), message });
}

/** The form's schema refused it: 400, with the schema's messages by field. */
export function invalid(submission: Replying) {
  return data<FormReply>({ result: submission.reply(), code: "VALIDATION_FAILED" }, { status: 400 });
}

/** The server refused it: messages for fields, or for the whole form. */
export function refused(
  submission: Replying,
  status: number,
  refusal: { fieldErrors?: Record<string, string[]>; formError?: string; code?: ApiErrorCode },
) {
  const result = refusal.fieldErrors
    ? submission.reply({ fieldErrors: refusal.fieldErrors })
    : submission.reply({ formErrors: [refusal.formError ?? "Something went wrong"] });
  return data<FormReply>({ result, code: refusal.code }, { status });
}

export function isDomainError(error: unknown, code: ApiErrorCode): error is DomainError {
  return error instanceof DomainError && error.code === code;
}

/**
 * A domain failure as an action answer, the one place actions turn a DomainError into the
 * form's refusal, with the code and the status the API answers it with. It goes next to a field
 * when the error names one the form posted (its details, as the API's VALIDATION_FAILED does)
 * or when `fields` maps its code to one; anything else to the form's alert. NOT_FOUND becomes
 * the 404 page; other errors are rethrown.
 */
export function domainFailure(
  submission: Replying & { payload?: Record<string, unknown> },
  error: unknown,
  fields: Partial<Record<ApiErrorCode, string>> = {},
) {
  if (!(error instanceof DomainError)) throw error;
  if (error.code === "NOT_FOUND") throw data(null, { status: 404 });
  return refused(submission, apiErrorStatus[error.code], {
    code: error.code,
    ...fieldRefusal(error, fields[error.code], submission.payload ?? {}),
  });
}

function fieldRefusal(
  error: DomainError,
  mapped: string | undefined,
  posted: Record<string, unknown>,
): { fieldErrors: Record<string, string[]> } | { formError: string } {
  if (mapped) return { fieldErrors: { [mapped]: [error.message] } };
  const named = Object.entries(error.details ?? {}).filter(([field]) => Object.hasOwn(posted, field));
  // One field: the error's own sentence says what to do about it; several: each its own.
  if (named.length === 1) return { fieldErrors: { [named[0]![0]]: [error.message] } };
  if (named.length > 1)
    return { fieldErrors: Object.fromEntries(named.map(([field, message]) => [field, [message]])) };
  return { formError: error.message };
}

// ---------------------------------------------------------------------------------------------
// Reading.

/**
 * How a project page names its project (requireOwnProject's ref): /projects/{slug} is the
 * signed-in user's own project, /orgs/{org}/projects/{slug} an organization's (decision 040).
 */
export function projectRef(
  params: { orgSlug?: string; projectSlug: string },
  user: { username: string },
): string {
  return `${params.orgSlug ?? user.username}/${params.projectSlug}`;
}

/**
 * A project the signed-in user reaches (their own, or an organization's they are a member of)
 * by `ref` (projectRef), or the 404 page. `needed` beyond read: FORBIDDEN is thrown as a
 * DomainError (actions answer it with projectForAction).
 */
export async function ownProjectOr404(
  db: Db,
  actor: Actor,
  ref: string,
  needed: Access = "read",
): Promise<ProjectRow> {
  try {
    return await requireOwnProject(db, actor, ref, needed);
  } catch (error) {
    // A slug no project could have names no page either.
    if (error instanceof DomainError && (error.code === "NOT_FOUND" || error.code === "INVALID_SLUG"))
      throw data(null, { status: 404 });
    throw error;
  }
}

/**
 * A project page's project, for its loader: projectRef's, or the 404 page. A personal URL of an
 * organization's project the user belongs to (a link in a mail, a bookmark from before a
 * transfer) redirects to its page under /orgs/{org}/projects/. `needed`: what the page shows
 * needs (the webhooks and audit log pages: oversee); a role short of it gets the 403 page.
 */
export async function projectPageOr404(
  db: Db,
  user: { id: string; username: string },
  params: { orgSlug?: string; projectSlug: string },
  url: URL,
  needed: Access = "read",
): Promise<ProjectRow> {
  const actor = sessionActor(user);
  try {
    return await requireOwnProject(db, actor, projectRef(params, user), needed);
  } catch (error) {
    // A role short of it, or an organization that requires single sign-on: the 403 page says why.
    if (error instanceof DomainError && (error.code === "FORBIDDEN" || error.code === "SSO_REQUIRED"))
      throw data(error.message, { status: 403 });
    if (!(error instanceof DomainError) || (error.code !== "NOT_FOUND" && error.code !== "INVALID_SLUG"))
      throw error;
    if (!params.orgSlug && error.code === "NOT_FOUND") {
      const elsewhere = await requireOwnProject(db, actor, params.projectSlug, "read").catch(() => undefined);
      const place = elsewhere ? await projectPlace(db, elsewhere) : undefined;
      if (place?.ownerKind === "organization") {
        const rest = url.pathname.slice(`/projects/${params.projectSlug}`.length);
        throw redirect(`${projectPath(place)}${rest}${url.search}`);
      }
    }
    throw data(null, { status: 404 });
  }
}

/**
 * In an action: the project, if the user may do `needed` with it; otherwise the refusal as the
 * form's answer (a viewer's FORBIDDEN shows in the form's alert), or the 404 page.
 */
export async function projectForAction(
  db: Db,
  actor: Actor,
  ref: string,
  needed: Access,
  formData: FormData,
): Promise<{ project: ProjectRow; refusal?: undefined } | { project?: undefined; refusal: RefusalReply }> {
  try {
    return { project: await ownProjectOr404(db, actor, ref, needed) };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { refusal: domainFailure(parseForm(formData, z.object({})), error) };
  }
}

type RefusalReply = ReturnType<typeof refused>;

/** What the user may do with a project, so pages hide what they would refuse (authorization.ts decides). */
export interface ProjectPermissions {
  /** The user's role in the organization owning it; null for their own project. */
  role: OrgRole | null;
  publish: boolean;
  manage: boolean;
}

export async function projectPermissions(
  db: Db,
  actor: Actor,
  row: Pick<ProjectRow, "id" | "owner_id">,
): Promise<ProjectPermissions> {
  const role = await roleFor(db, actor, row.owner_id);
  const allows = (needed: Access) => {
    try {
      assertProjectAccess(actor, row, needed, role);
      return true;
    } catch {
      return false;
    }
  };
  return { role, publish: allows("publish"), manage: allows("manage") };
}

/** A release of the project by version, or the 404 page. */
export async function releaseOr404(db: Db, projectId: string, version: string): Promise<ReleaseRow> {
  try {
    return await requireRelease(db, projectId, version);
  } catch (error) {
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw data(null, { status: 404 });
    throw error;
  }
}

/** Where the project's pages are (project-path.ts), from its row. */
export async function projectPlace(
  db: Db,
  row: Pick<ProjectRow, "owner_id" | "slug">,
): Promise<ProjectPlace> {
  const owner = await ownerNameOf(db, row.owner_id);
  return { owner: owner.name, ownerKind: owner.kind, slug: row.slug };
}

export async function projectDto(db: Db, row: ProjectRow): Promise<Project> {
  const [dto] = await describeProjects(db, [row]);
  return dto!;
}

export async function releaseDto(
  db: Db,
  baseUrl: string,
  project: Project,
  row: ReleaseRow,
): Promise<Release> {
  return describeRelease(db, row, releaseUrls(baseUrl, project.owner, project.slug));
}

export interface RecentRelease {
  version: string;
  title: string | null;
  yanked: boolean;
  createdAt: string;
  projectSlug: string;
  projectName: string;
  fileCount: number;
}

export interface DashboardOverview {
  usage: Usage;
  /** Every download of every file, all time. */
  downloads: number;
  recentReleases: RecentRelease[];
}

export async function dashboardOverview(db: Db, ownerId: string, limit = 8): Promise<DashboardOverview> {
  const usage = await accountUsage(db, ownerId);
  const totals = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.sum<number | string | null>("release_file.download_count").as("n"))
    .where("project.owner_id", "=", ownerId)
    .executeTakeFirst();
  const rows = await db
    .selectFrom("release")
    .innerJoin("project", "project.id", "release.project_id")
    .select([
      "release.id as id",
      "release.version as version",
      "release.title as title",
      "release.yanked as yanked",
      "release.created_at as createdAt",
      "project.slug as projectSlug",
      "project.name as projectName",
    ])
    .where("project.owner_id", "=", ownerId)
    .orderBy("release.created_at", "desc")
    .orderBy("release.id", "desc")
    .limit(limit)
    .execute();
  const counts = rows.length
    ? await db
        .selectFrom("release_file")
        .select(["release_id", (eb) => eb.fn.countAll<number | string>().as("n")])
        .where(
          "release_id",
          "in",
          rows.map((r) => r.id),
        )
        .groupBy("release_id")
        .execute()
    : [];
  const fileCounts = new Map(counts.map((c) => [c.release_id, Number(c.n)]));
  return {
    usage,
    downloads: Number(totals?.n ?? 0),
    recentReleases: rows.map(({ id, yanked, ...row }) => ({
      ...row,
      yanked: Number(yanked) === 1,
      fileCount: fileCounts.get(id) ?? 0,
    })),
  };
}

// The domain functions the pages call, in one place.
// A project's changes are use cases (server/projects/use-cases.ts), called by the actions.
export { listProjects } from "../../server/projects/storage.ts";
// Releases and files change through server/releases/use-cases.ts.
export { listReleaseSummaries, resolveLatest } from "../../server/releases/storage.ts";

export type { Project, Release, ReleaseSummary };
