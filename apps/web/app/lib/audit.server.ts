// The audit-log pages' loaders: the filters from the URL (the contract's auditQuery, as the API
// reads them), a page of entries, and what the filter menus offer. A filter the schema refuses
// is shown as a message over an empty page rather than an error page.
import { type AuditPage, auditQuery } from "@packyard/contract";
import type { Kysely } from "kysely";
import { type AuditScope, listAuditEntries, listAuditKeys } from "../../server/audit/query.ts";
import { DomainError } from "../../server/platform/core/errors.ts";
import type { Database } from "../../server/platform/db/schema.ts";

export interface AuditFilterValues {
  action: string;
  actor: string;
  project: string;
  from: string;
  to: string;
}

export interface AuditView {
  page: AuditPage;
  filters: AuditFilterValues;
  /** What the filters' schema said of them; null when they were accepted. */
  error: string | null;
  /** The API keys that acted within the log (listAuditKeys), for the actor filter. */
  keys: { id: string; name: string | null }[];
}

export async function auditView(db: Kysely<Database>, scope: AuditScope, url: URL): Promise<AuditView> {
  const raw = Object.fromEntries(url.searchParams);
  const filters: AuditFilterValues = {
    action: raw.action ?? "",
    actor: raw.actor ?? "",
    project: raw.project ?? "",
    from: raw.from ?? "",
    to: raw.to ?? "",
  };
  const keys = await listAuditKeys(db, scope);
  const parsed = auditQuery.safeParse({ ...raw, limit: "50" });
  if (!parsed.success)
    return {
      page: { entries: [], nextCursor: null },
      filters,
      error: parsed.error.issues.map((issue) => issue.message).join(". "),
      keys,
    };
  const { project, ...query } = parsed.data;
  const effective = "ownerId" in scope ? { ...scope, projectSlug: project } : scope;
  try {
    return { page: await listAuditEntries(db, effective, query), filters, error: null, keys };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { page: { entries: [], nextCursor: null }, filters, error: error.message, keys };
  }
}
