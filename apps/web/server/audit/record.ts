// Writes one audit-log entry (decision 031). Called where an action is carried out and its actor
// and client address are known: the API routes, the dashboard actions, better-auth's session
// hook, and jobs (actor "system"). The names shown later — the project's slug, the actor's
// username, the key's name — are copied in now, so an entry still reads right after the
// project, key or username is gone.
import type { AuditAction } from "@packyard/contract";
import type { Kysely } from "kysely";
import { randomId } from "../platform/core/ids.ts";
import type { Database } from "../platform/db/schema.ts";

export type { AuditAction };

export type AuditActor =
  | { kind: "user"; userId: string } // a signed-in session
  // An API key (and whose); keyName/keyStart for a credential that is not an API key (a trusted
  // publishing token, named after its publisher).
  | { kind: "key"; userId: string; keyId: string; keyName?: string; keyStart?: string | null }
  | { kind: "system" }; // a job (retention run, key lifecycle)

export interface AuditInput {
  /** The account whose log shows it (the project's owner, or the user acting on their own account). */
  ownerId: string;
  projectId?: string | null;
  /** The project's slug when the caller has it (a deleted project's row is gone); else read. */
  projectSlug?: string | null;
  actor: AuditActor;
  action: AuditAction;
  /** What was acted on, human-readable: a version, a filename, a key's name. */
  target?: string | null;
  details?: Record<string, unknown>;
  /** The client's address, when a request caused it. */
  address?: string | null;
}

// One counter per process.
const ids = { lastMs: 0, sequence: 0 };

/**
 * An id that sorts after the ids this process made before it: the time and a counter within the
 * millisecond (base 36, fixed width, so text order is time order), then random letters. Entries
 * recorded by one request in the same millisecond (a release created by an upload, then the
 * file) list in the order they happened.
 */
export function auditEventId(now: number): string {
  if (now > ids.lastMs) {
    ids.lastMs = now;
    ids.sequence = 0;
  } else ids.sequence++;
  return `${ids.lastMs.toString(36).padStart(9, "0")}${ids.sequence.toString(36).padStart(4, "0")}${randomId(11)}`;
}

const MAX_TARGET = 500;
const MAX_ADDRESS = 64;

/**
 * Writes audit entries, in order, in one statement: the names copied in (the project's slug, the
 * actor's username, the key's name and start) are read by sub-selects of that statement, not by
 * queries of their own (a round trip each on PostgreSQL, on a change's path: issue 44).
 */
export async function recordAudit(db: Kysely<Database>, ...inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const now = new Date();
  const rows = inputs.map((input) => {
    const { actor } = input;
    const userId = actor.kind === "system" ? null : actor.userId;
    const key = actor.kind === "key" ? actor : undefined;
    // A credential that is not an API key is named by the caller (AuditActor).
    const keyRow = key && key.keyName === undefined ? key.keyId : undefined;
    const projectId = input.projectId ?? null;
    return {
      id: auditEventId(now.getTime()),
      owner_id: input.ownerId,
      project_id: projectId,
      project_slug:
        input.projectSlug ??
        (projectId ? db.selectFrom("project").select("slug").where("id", "=", projectId) : null),
      actor_kind: actor.kind,
      actor_user_id: userId,
      actor_username: userId ? db.selectFrom("user").select("username").where("id", "=", userId) : null,
      actor_key_id: key ? key.keyId : null,
      actor_key_name: keyRow
        ? db.selectFrom("apikey").select("name").where("id", "=", keyRow)
        : (key?.keyName ?? null),
      actor_key_start: keyRow
        ? db.selectFrom("apikey").select("start").where("id", "=", keyRow)
        : (key?.keyStart ?? null),
      action: input.action,
      target: input.target == null ? null : input.target.slice(0, MAX_TARGET),
      details: JSON.stringify(input.details ?? {}),
      address: input.address ? input.address.slice(0, MAX_ADDRESS) : null,
      created_at: now.toISOString(),
    };
  });
  await db.insertInto("audit_event").values(rows).execute();
}
