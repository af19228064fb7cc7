// Who did it, as the audit log records it (audit/record.ts): a session is a user, an API key is
// the key and whose it is.
import type { AuditActor } from "../audit/record.ts";
import type { Actor } from "../domain/authorization.ts";

export function auditActorOf(actor: Actor): AuditActor {
  return actor.kind === "key"
    ? { kind: "key", userId: actor.userId, keyId: actor.keyId }
    : { kind: "user", userId: actor.userId };
}
