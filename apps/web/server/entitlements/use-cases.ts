// Entitlement tokens as use cases (docs/entitlements.md, issue 40): a project's tokens
// (/api/v1/projects/{slug}/entitlements, reading that project) and an organization's
// (/api/v1/orgs/{org}/entitlements, reading the projects it lists). Each decides who may with
// authorization.ts, then makes the change and its `entitlement.*` entry in one transaction
// (use-case.ts). The secret is in the answer of create and rotate only; the row keeps its sha256.
import type {
  CreateEntitlementInput,
  CreateOrgEntitlementInput,
  EntitlementSummary,
  RotateEntitlementInput,
  UpdateEntitlementInput,
} from "@packyard/contract/entitlements.ts";
import type { Selectable } from "kysely";
import { accountPlan, limitsEnabled } from "../billing/plan.ts";
import type { LimitsSetting } from "../billing/usage.ts";
import { requireOrganization } from "../orgs/storage.ts";
import {
  assertEntitlementTokenAllowed,
  ENTITLEMENT_MANAGE_ACCESS,
  ENTITLEMENT_READ_ACCESS,
} from "../platform/core/authorization.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import { change, type Db, type PersonCaller, type Tx } from "../platform/core/use-case.ts";
import type { EntitlementTable } from "../platform/db/schema.ts";
import { type ProjectRow, requireOwnProject } from "../projects/storage.ts";
import {
  type EntitlementRow,
  entitlementRow,
  hashEntitlementToken,
  listEntitlements,
  newEntitlementToken,
  summaryOf,
  tokenStart,
} from "./storage.ts";

export interface EntitlementDeps {
  db: Db;
  clock: () => Date;
  /** PLAN_LIMITS: whether the plan's number of tokens is enforced. */
  limits: LimitsSetting;
}

/** Whose tokens: one project's (its slug, or owner/slug), or an organization's (its slug). */
export type EntitlementScope = { project: string } | { organization: string };

interface Scope {
  ownerId: string;
  /** The project of a project's token; undefined for an organization's. */
  project?: ProjectRow;
}

/** The account and project the caller may manage (or, with `read`, oversee) tokens of. */
async function scopeOf(db: Db, caller: PersonCaller, scope: EntitlementScope, read = false): Promise<Scope> {
  if ("project" in scope) {
    const project = await requireOwnProject(
      db,
      caller.actor,
      scope.project,
      read ? ENTITLEMENT_READ_ACCESS : ENTITLEMENT_MANAGE_ACCESS,
    );
    return { ownerId: project.owner_id, project };
  }
  // An organization's tokens, seen and managed alike by its admins and owners.
  const { org } = await requireOrganization(db, caller.actor, scope.organization, "admin");
  return { ownerId: org.id };
}

/** An organization's projects by slug; NOT_FOUND naming those it does not have. */
async function orgProjectIds(db: Db | Tx, orgId: string, slugs: string[]): Promise<string[]> {
  const rows = await db
    .selectFrom("project")
    .select(["id", "slug"])
    .where("owner_id", "=", orgId)
    .where("slug", "in", slugs)
    .execute();
  const found = new Map(rows.map((row) => [row.slug, row.id]));
  const missing = slugs.filter((slug) => !found.has(slug));
  if (missing.length > 0) throw notFound(`The organization has no project named ${missing.join(", ")}`);
  return slugs.map((slug) => found.get(slug)!);
}

/** The limit columns of a request (a key left out is unchanged; null clears it). */
function limitColumns(
  input: UpdateEntitlementInput | CreateEntitlementInput,
): Partial<Selectable<EntitlementTable>> {
  const columns: Partial<Selectable<EntitlementTable>> = {};
  const json = (list: string[] | null) => (list === null ? null : JSON.stringify(list));
  if (input.validFrom !== undefined) columns.valid_from = input.validFrom;
  if (input.validUntil !== undefined) columns.valid_until = input.validUntil;
  if (input.maxDownloads !== undefined) columns.max_downloads = input.maxDownloads;
  if (input.maxBytesPerMonth !== undefined) columns.max_bytes_per_month = input.maxBytesPerMonth;
  if (input.suites !== undefined) columns.suites = json(input.suites);
  if (input.groups !== undefined) columns.groups = json(input.groups);
  if (input.versionRange !== undefined) columns.version_range = input.versionRange;
  if (input.note !== undefined) columns.note = input.note || null;
  return columns;
}

/** Where a token's entries go: the account's log, with the project of a project's token. */
function entryOf(scope: Scope, summary: EntitlementSummary) {
  return {
    ownerId: scope.ownerId,
    ...(scope.project ? { projectId: scope.project.id, projectSlug: scope.project.slug } : {}),
    target: summary.name,
  };
}

/** What an entry keeps of a token: enough to recognise it, never its secret. */
function detailsOf(summary: EntitlementSummary) {
  return {
    entitlementId: summary.id,
    start: summary.start,
    projects: summary.projects,
    validFrom: summary.validFrom,
    validUntil: summary.validUntil,
    maxDownloads: summary.maxDownloads,
    maxBytesPerMonth: summary.maxBytesPerMonth,
    suites: summary.suites,
    groups: summary.groups,
    versionRange: summary.versionRange,
  };
}

/** Creates a token; its secret is in this answer only. */
export async function createEntitlement(
  deps: EntitlementDeps,
  caller: PersonCaller,
  input: EntitlementScope & { entitlement: CreateEntitlementInput | CreateOrgEntitlementInput },
): Promise<{ entitlement: EntitlementSummary; token: string }> {
  const { db, clock } = deps;
  const scope = await scopeOf(db, caller, input);
  const request = input.entitlement;
  const projectIds =
    scope.project !== undefined
      ? [scope.project.id]
      : await orgProjectIds(db, scope.ownerId, "projects" in request ? request.projects : []);
  const plan = limitsEnabled(deps.limits) ? (await accountPlan(db, scope.ownerId)).plan : undefined;
  const token = newEntitlementToken();
  const now = clock().toISOString();
  return change(db, caller, async (tx, record) => {
    if (plan !== undefined) {
      const { n } = await tx
        .selectFrom("entitlement")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("owner_id", "=", scope.ownerId)
        .executeTakeFirstOrThrow();
      assertEntitlementTokenAllowed(plan, Number(n));
    }
    const row: EntitlementRow = {
      id: newRowId(),
      owner_id: scope.ownerId,
      org_wide: scope.project ? 0 : 1,
      name: request.name,
      note: null,
      enabled: 1,
      token_hash: hashEntitlementToken(token),
      token_start: tokenStart(token),
      previous_token_hash: null,
      previous_valid_until: null,
      valid_from: null,
      valid_until: null,
      max_downloads: null,
      max_bytes_per_month: null,
      suites: null,
      groups: null,
      version_range: null,
      downloads: 0,
      month: null,
      month_bytes: 0,
      last_used_at: null,
      last_used_address: null,
      last_used_client: null,
      created_at: now,
      updated_at: now,
      ...limitColumns(request),
    };
    await tx.insertInto("entitlement").values(row).execute();
    await tx
      .insertInto("entitlement_project")
      .values(projectIds.map((project_id) => ({ entitlement_id: row.id, project_id })))
      .execute();
    const summary = await summaryOf(tx, row, clock());
    record.audit({ ...entryOf(scope, summary), action: "entitlement.created", details: detailsOf(summary) });
    return { entitlement: summary, token };
  });
}

/** The tokens of a project (those reading it: its own and its organization's) or an organization. */
export async function listEntitlementTokens(
  deps: Pick<EntitlementDeps, "db" | "clock">,
  caller: PersonCaller,
  scope: EntitlementScope,
): Promise<EntitlementSummary[]> {
  const { ownerId, project } = await scopeOf(deps.db, caller, scope, true);
  return listEntitlements(deps.db, ownerId, project?.id, deps.clock());
}

/** One token of the scope, or NOT_FOUND. */
export async function getEntitlementToken(
  deps: Pick<EntitlementDeps, "db" | "clock">,
  caller: PersonCaller,
  input: EntitlementScope & { id: string },
): Promise<EntitlementSummary> {
  const { ownerId, project } = await scopeOf(deps.db, caller, input, true);
  return summaryOf(deps.db, await entitlementRow(deps.db, ownerId, input.id, project?.id), deps.clock());
}

/**
 * Changes a token: disables or enables it, renames it, sets or clears limits, and for an
 * organization's token the projects it reads.
 */
export async function updateEntitlement(
  deps: EntitlementDeps,
  caller: PersonCaller,
  input: EntitlementScope & { id: string; entitlement: UpdateEntitlementInput },
): Promise<EntitlementSummary> {
  const { db, clock } = deps;
  const scope = await scopeOf(db, caller, input);
  const request = input.entitlement;
  const before = await entitlementRow(db, scope.ownerId, input.id, scope.project?.id);
  if (request.projects !== undefined && scope.project !== undefined)
    throw new DomainError(
      "VALIDATION_FAILED",
      "A project's entitlement token reads that project: projects is for an organization's tokens",
      { projects: "Only an organization's tokens name their projects" },
    );
  const projectIds =
    request.projects !== undefined ? await orgProjectIds(db, scope.ownerId, request.projects) : undefined;
  const columns = limitColumns(request);
  if (request.name !== undefined) columns.name = request.name;
  if (request.enabled !== undefined) columns.enabled = request.enabled ? 1 : 0;
  const after = { ...before, ...columns, updated_at: clock().toISOString() };
  const from = after.valid_from;
  const until = after.valid_until;
  if (from && until && from >= until)
    throw new DomainError("VALIDATION_FAILED", "validUntil must be after validFrom", {
      validUntil: "validUntil must be after validFrom",
    });
  return change(db, caller, async (tx, record) => {
    await tx
      .updateTable("entitlement")
      .set({ ...columns, updated_at: after.updated_at })
      .where("id", "=", before.id)
      .execute();
    if (projectIds) {
      await tx.deleteFrom("entitlement_project").where("entitlement_id", "=", before.id).execute();
      await tx
        .insertInto("entitlement_project")
        .values(projectIds.map((project_id) => ({ entitlement_id: before.id, project_id })))
        .execute();
    }
    const summary = await summaryOf(tx, after, clock());
    const wasEnabled = Boolean(Number(before.enabled));
    const toggled = request.enabled !== undefined && request.enabled !== wasEnabled;
    const changed = Object.keys(request).filter((key) => key !== "enabled");
    if (toggled)
      record.audit({
        ...entryOf(scope, summary),
        action: request.enabled ? "entitlement.enabled" : "entitlement.disabled",
        details: { entitlementId: summary.id, start: summary.start },
      });
    if (changed.length > 0 || !toggled)
      record.audit({
        ...entryOf(scope, summary),
        action: "entitlement.updated",
        details: { ...detailsOf(summary), changed },
      });
    return summary;
  });
}

/**
 * Gives the token a new secret, shown in this answer only. The old one keeps working for
 * `overlapHours` (0: it stops now), so customers can move to the new one.
 */
export async function rotateEntitlement(
  deps: EntitlementDeps,
  caller: PersonCaller,
  input: EntitlementScope & { id: string; rotation: RotateEntitlementInput },
): Promise<{ entitlement: EntitlementSummary; token: string }> {
  const { db, clock } = deps;
  const scope = await scopeOf(db, caller, input);
  const before = await entitlementRow(db, scope.ownerId, input.id, scope.project?.id);
  const token = newEntitlementToken();
  const now = clock();
  const overlapMs = input.rotation.overlapHours * 3_600_000;
  const columns = {
    token_hash: hashEntitlementToken(token),
    token_start: tokenStart(token),
    previous_token_hash: overlapMs > 0 ? before.token_hash : null,
    previous_valid_until: overlapMs > 0 ? new Date(now.getTime() + overlapMs).toISOString() : null,
    updated_at: now.toISOString(),
  };
  return change(db, caller, async (tx, record) => {
    await tx.updateTable("entitlement").set(columns).where("id", "=", before.id).execute();
    const summary = await summaryOf(tx, { ...before, ...columns }, now);
    record.audit({
      ...entryOf(scope, summary),
      action: "entitlement.rotated",
      details: {
        entitlementId: summary.id,
        start: summary.start,
        previousStart: before.token_start,
        overlapHours: input.rotation.overlapHours,
        previousValidUntil: columns.previous_valid_until,
      },
    });
    return { entitlement: summary, token };
  });
}

/** Deletes a token: its secrets stop working at once, its usage goes with it. */
export async function deleteEntitlement(
  deps: Pick<EntitlementDeps, "db" | "clock">,
  caller: PersonCaller,
  input: EntitlementScope & { id: string },
): Promise<void> {
  const { db } = deps;
  const scope = await scopeOf(db, caller, input);
  const row = await entitlementRow(db, scope.ownerId, input.id, scope.project?.id);
  const summary = await summaryOf(db, row, deps.clock());
  await change(db, caller, async (tx, record) => {
    await tx.deleteFrom("entitlement").where("id", "=", row.id).execute();
    record.audit({ ...entryOf(scope, summary), action: "entitlement.deleted", details: detailsOf(summary) });
  });
}
