// The audit log (docs/audit.md, decision 031): what a project's or an account's log records,
// who did it (a signed-in user, an API key, or a job), and the shape the API and the dashboard
// show. Entries are kept one year.
import { z } from "zod";

export const AUDIT_ACTIONS = [
  "file.uploaded",
  "file.deleted",
  "release.created",
  "release.updated",
  "release.deleted",
  "release.yanked",
  "release.unyanked",
  "release.promoted",
  "project.created",
  "project.updated",
  "project.visibility_changed",
  "project.deleted",
  "signing_key.rotated",
  "api_key.created",
  "api_key.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.disabled",
  "retention.settings_changed",
  "retention.run",
  "session.signed_in",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const auditAction = z.enum(AUDIT_ACTIONS);

/** Days an entry is kept; a daily job deletes older ones. */
export const AUDIT_RETENTION_DAYS = 365;

export const AUDIT_ACTOR_KINDS = ["user", "key", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** One entry as the API answers with it. */
export interface AuditEntry {
  id: string;
  action: AuditAction;
  at: string;
  project: { id: string; slug: string } | null;
  actor: {
    kind: AuditActorKind;
    /** The user acting (for a key, whose it is); null for a job. */
    userId: string | null;
    /** Their username when it was recorded; null for a job or a user without one yet. */
    username: string | null;
    /** The API key used: its id and name (and its first characters); null unless kind is "key". */
    key: { id: string; name: string | null; start: string | null } | null;
  };
  target: string | null;
  details: Record<string, unknown>;
  /** The client's address, when a request caused it. */
  address: string | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` to read the next (older) page; null: this was the last. */
  nextCursor: string | null;
}
