// Entitlement tokens' rows (migration 0033): the secret kept as its sha256 only, the projects a
// token reads, and the answers the API and the dashboard show (EntitlementSummary).
import { createHash } from "node:crypto";
import {
  ENTITLEMENT_TOKEN_PREFIX,
  type EntitlementSummary,
  type EntitlementUsageDay,
} from "@packyard/contract/entitlements.ts";
import type { Selectable } from "kysely";
import { currentMonth } from "../downloads/counts.ts";
import { notFound } from "../platform/core/errors.ts";
import { randomId } from "../platform/core/ids.ts";
import type { Db, Tx } from "../platform/core/use-case.ts";
import type { EntitlementTable } from "../platform/db/schema.ts";

export type EntitlementRow = Selectable<EntitlementTable>;

/** A new secret: the prefix and 40 letters and digits (about 238 bits). */
export function newEntitlementToken(): string {
  return `${ENTITLEMENT_TOKEN_PREFIX}${randomId(40)}`;
}

/** How a secret is kept and found: its sha256, hex. */
export function hashEntitlementToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** What is shown of a secret to recognise it: the prefix and four characters. */
export function tokenStart(token: string): string {
  return token.slice(0, ENTITLEMENT_TOKEN_PREFIX.length + 4);
}

const list = (json: string | null): string[] | null =>
  json === null ? null : (JSON.parse(json) as string[]);
const count = (value: unknown): number => Number(value ?? 0);

/** The projects of each token, as owner/slug. */
async function projectNames(db: Db | Tx, ids: string[]): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return names;
  const rows = await db
    .selectFrom("entitlement_project")
    .innerJoin("project", "project.id", "entitlement_project.project_id")
    .innerJoin("user", "user.id", "project.owner_id")
    .select(["entitlement_project.entitlement_id as id", "project.slug", "user.username"])
    .where("entitlement_project.entitlement_id", "in", ids)
    .orderBy("project.slug")
    .execute();
  for (const row of rows) names.get(row.id)?.push(`${row.username ?? ""}/${row.slug}`);
  return names;
}

export function toSummary(row: EntitlementRow, projects: string[], now: Date): EntitlementSummary {
  const overlap =
    row.previous_token_hash && row.previous_valid_until && row.previous_valid_until > now.toISOString()
      ? row.previous_valid_until
      : null;
  return {
    id: row.id,
    name: row.name,
    note: row.note,
    enabled: Boolean(Number(row.enabled)),
    start: row.token_start,
    projects,
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    maxDownloads: row.max_downloads === null ? null : count(row.max_downloads),
    maxBytesPerMonth: row.max_bytes_per_month === null ? null : count(row.max_bytes_per_month),
    suites: list(row.suites),
    groups: list(row.groups),
    versionRange: row.version_range,
    previousValidUntil: overlap,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsed: row.last_used_at
      ? { at: row.last_used_at, address: row.last_used_address, client: row.last_used_client }
      : null,
    downloads: count(row.downloads),
    bytesThisMonth: row.month === currentMonth(now) ? count(row.month_bytes) : 0,
  };
}

/** The account's tokens, newest first; those reading `projectId` only when given. */
export async function listEntitlements(
  db: Db | Tx,
  ownerId: string,
  projectId: string | undefined,
  now: Date,
): Promise<EntitlementSummary[]> {
  let query = db
    .selectFrom("entitlement")
    .selectAll("entitlement")
    .where("entitlement.owner_id", "=", ownerId);
  if (projectId !== undefined)
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom("entitlement_project")
          .select("entitlement_project.project_id")
          .whereRef("entitlement_project.entitlement_id", "=", "entitlement.id")
          .where("entitlement_project.project_id", "=", projectId),
      ),
    );
  const rows = await query.orderBy("entitlement.created_at", "desc").orderBy("entitlement.id").execute();
  const names = await projectNames(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toSummary(row, names.get(row.id) ?? [], now));
}

/** One of the account's tokens (reading `projectId` when given), or NOT_FOUND. */
export async function entitlementRow(
  db: Db | Tx,
  ownerId: string,
  id: string,
  projectId?: string,
): Promise<EntitlementRow> {
  let query = db
    .selectFrom("entitlement")
    .selectAll("entitlement")
    .where("entitlement.id", "=", id)
    .where("entitlement.owner_id", "=", ownerId);
  if (projectId !== undefined)
    query = query
      .innerJoin("entitlement_project", "entitlement_project.entitlement_id", "entitlement.id")
      .where("entitlement_project.project_id", "=", projectId);
  const row = await query.executeTakeFirst();
  if (!row) throw notFound("Entitlement token not found");
  return row;
}

export async function summaryOf(db: Db | Tx, row: EntitlementRow, now: Date): Promise<EntitlementSummary> {
  return toSummary(row, (await projectNames(db, [row.id])).get(row.id) ?? [], now);
}

/**
 * Usage per UTC day from `since` (YYYY-MM-DD) on, oldest first, days without use left out. The
 * machines are the day's count (the hashes behind it go once the day is over: forget.ts).
 */
export async function entitlementUsage(db: Db, id: string, since: string): Promise<EntitlementUsageDay[]> {
  const days = await db
    .selectFrom("entitlement_usage")
    .select(["day", "downloads", "installs", "bytes", "machines"])
    .where("entitlement_id", "=", id)
    .where("day", ">=", since)
    .orderBy("day")
    .execute();
  return days.map((row) => ({
    day: row.day,
    downloads: count(row.downloads),
    installs: count(row.installs),
    bytes: count(row.bytes),
    machines: count(row.machines),
  }));
}
