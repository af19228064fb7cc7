// Reading the audit log: an account's entries or a project's, newest first, filtered (auditQuery
// in the contract) and paged by a cursor — the created_at and id of the last entry shown, so a
// page never repeats or skips an entry while new ones arrive.
import type { AuditAction, AuditEntry, AuditPage, AuditQuery } from "@packyard/contract";
import type { Kysely, Selectable, SelectQueryBuilder } from "kysely";
import { DomainError } from "../platform/core/errors.ts";
import type { AuditEventTable, Database } from "../platform/db/schema.ts";

/** An account's log (optionally one project's entries in it, by the slug recorded) or a project's. */
export type AuditScope = { ownerId: string; projectSlug?: string } | { projectId: string };

function encodeCursor(row: { created_at: string; id: string }): string {
  return Buffer.from(`${row.created_at}|${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { at: string; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!at || !id || Number.isNaN(Date.parse(at)))
    throw new DomainError("VALIDATION_FAILED", "Invalid cursor");
  return { at, id };
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export function toAuditEntry(row: Selectable<AuditEventTable>): AuditEntry {
  return {
    id: row.id,
    action: row.action as AuditAction,
    at: row.created_at,
    project: row.project_id ? { id: row.project_id, slug: row.project_slug } : null,
    actor: {
      kind: row.actor_kind,
      userId: row.actor_user_id,
      username: row.actor_username,
      key: row.actor_key_id
        ? { id: row.actor_key_id, name: row.actor_key_name, start: row.actor_key_start }
        : null,
    },
    target: row.target,
    details: parseDetails(row.details),
    address: row.address,
  };
}

function inScope<O>(
  select: SelectQueryBuilder<Database, "audit_event", O>,
  scope: AuditScope,
): SelectQueryBuilder<Database, "audit_event", O> {
  if (!("ownerId" in scope)) return select.where("project_id", "=", scope.projectId);
  const owned = select.where("owner_id", "=", scope.ownerId);
  return scope.projectSlug ? owned.where("project_slug", "=", scope.projectSlug) : owned;
}

/**
 * The API keys that acted within the scope, by name: the "Who" filter's choices. They are read
 * from the log itself, so a project's lists its organization's keys and its members' own, and a
 * key deleted since keeps the name it had when it acted.
 */
export async function listAuditKeys(
  db: Kysely<Database>,
  scope: AuditScope,
): Promise<{ id: string; name: string | null }[]> {
  const rows = await inScope(
    db
      .selectFrom("audit_event")
      .select((eb) => ["actor_key_id", eb.fn.max("actor_key_name").as("name")])
      .where("actor_key_id", "is not", null)
      .groupBy("actor_key_id"),
    scope,
  ).execute();
  return rows
    .map((r) => ({ id: r.actor_key_id ?? "", name: r.name ?? null }))
    .sort((a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id));
}

export async function listAuditEntries(
  db: Kysely<Database>,
  scope: AuditScope,
  query: Omit<AuditQuery, "project">,
): Promise<AuditPage> {
  let select = inScope(db.selectFrom("audit_event").selectAll(), scope);
  const { action, actor } = query;
  if (action)
    select = action.includes(".")
      ? select.where("action", "=", action)
      : select.where("action", "like", `${action}.%`);
  if (actor === "user" || actor === "key" || actor === "system")
    select = select.where("actor_kind", "=", actor);
  else if (actor?.startsWith("key:")) select = select.where("actor_key_id", "=", actor.slice(4));
  if (query.from) select = select.where("created_at", ">=", query.from);
  if (query.before) select = select.where("created_at", "<", query.before);
  if (query.cursor) {
    const { at, id } = decodeCursor(query.cursor);
    select = select.where((eb) =>
      eb.or([eb("created_at", "<", at), eb.and([eb("created_at", "=", at), eb("id", "<", id)])]),
    );
  }
  const rows = await select
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(query.limit + 1)
    .execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    entries: page.map(toAuditEntry),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}
