// Writes one audit-log entry (decision 031). Called where an action is carried out and its actor
// and client address are known: the API routes, the dashboard actions, better-auth's session
// hook, and jobs (actor "system"). The names shown later — the project's slug, the actor's
// username, the key's name — are copied in now, so an entry still reads right after the
// project, key or username is gone.
import type { AuditAction } from "@packyard/contract";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { newRowId } from "../domain/ids.ts";

export type { AuditAction };

export type AuditActor =
  | { kind: "user"; userId: string } // a signed-in session
  | { kind: "key"; userId: string; keyId: string } // an API key (and whose)
  | { kind: "system" }; // a job (retention run, key lifecycle)

export interface AuditInput {
  /** The account whose log shows it (the project's owner, or the user acting on their own account). */
  ownerId: string;
  projectId?: string | null;
  actor: AuditActor;
  action: AuditAction;
  /** What was acted on, human-readable: a version, a filename, a key's name. */
  target?: string | null;
  details?: Record<string, unknown>;
  /** The client's address, when a request caused it. */
  address?: string | null;
}

const MAX_TARGET = 500;
const MAX_ADDRESS = 64;

export async function recordAudit(db: Kysely<Database>, input: AuditInput): Promise<void> {
  const { actor } = input;
  const userId = actor.kind === "system" ? null : actor.userId;
  const [project, user, key] = await Promise.all([
    input.projectId
      ? db.selectFrom("project").select("slug").where("id", "=", input.projectId).executeTakeFirst()
      : undefined,
    userId ? db.selectFrom("user").select("username").where("id", "=", userId).executeTakeFirst() : undefined,
    actor.kind === "key"
      ? db.selectFrom("apikey").select(["name", "start"]).where("id", "=", actor.keyId).executeTakeFirst()
      : undefined,
  ]);
  await db
    .insertInto("audit_event")
    .values({
      id: newRowId(),
      owner_id: input.ownerId,
      project_id: input.projectId ?? null,
      project_slug: project?.slug ?? null,
      actor_kind: actor.kind,
      actor_user_id: userId,
      actor_username: user?.username ?? null,
      actor_key_id: actor.kind === "key" ? actor.keyId : null,
      actor_key_name: key?.name ?? null,
      actor_key_start: key?.start ?? null,
      action: input.action,
      target: input.target == null ? null : input.target.slice(0, MAX_TARGET),
      details: JSON.stringify(input.details ?? {}),
      address: input.address ? input.address.slice(0, MAX_ADDRESS) : null,
      created_at: new Date().toISOString(),
    })
    .execute();
}
