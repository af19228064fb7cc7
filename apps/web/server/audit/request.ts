// Recording an action a request carried out: the caller (a session or an API key, as
// authorization.ts knows it) and the client's address travel together as an AuditSource, built
// once per request by the API routes (apiAuditSource) and the dashboard actions
// (lib/dashboard.server.ts), and the entry lands in the project owner's log or the caller's own.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { KeySummary } from "../domain/api-keys.ts";
import type { Actor } from "../domain/authorization.ts";
import type { ProjectRow } from "../domain/projects.ts";
import { type AuditAction, type AuditActor, recordAudit } from "./record.ts";

export interface AuditSource {
  actor: Actor;
  /** The client's address (request-log.ts's clientAddress: TRUST_PROXY decides). */
  address: string | null;
}

export function auditActorOf(actor: Actor): AuditActor {
  return actor.kind === "key"
    ? { kind: "key", userId: actor.userId, keyId: actor.keyId }
    : { kind: "user", userId: actor.userId };
}

interface Entry {
  action: AuditAction;
  target?: string | null;
  details?: Record<string, unknown>;
}

/** An action on a project: in its owner's log and the project's. */
export function auditProjectAction(
  db: Kysely<Database>,
  source: AuditSource,
  project: Pick<ProjectRow, "id" | "owner_id"> & { slug?: string },
  entry: Entry,
): Promise<void> {
  return recordAudit(db, {
    ownerId: project.owner_id,
    projectId: project.id,
    projectSlug: project.slug,
    actor: auditActorOf(source.actor),
    address: source.address,
    ...entry,
  });
}

/** An action on the caller's own account (API keys): in their log. */
export function auditAccountAction(db: Kysely<Database>, source: AuditSource, entry: Entry): Promise<void> {
  return recordAudit(db, {
    ownerId: source.actor.userId,
    actor: auditActorOf(source.actor),
    address: source.address,
    ...entry,
  });
}

/** What an API key entry keeps of the key: enough to recognise it after it is gone. */
export function apiKeyDetails(key: Pick<KeySummary, "id" | "start" | "scope" | "expiresAt">) {
  return {
    keyId: key.id,
    start: key.start,
    access: key.scope.access,
    projects: key.scope.projects,
    expiresAt: key.expiresAt,
  };
}
