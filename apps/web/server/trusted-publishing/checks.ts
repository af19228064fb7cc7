// A publish token from trusted publishing as the caller it stands for (platform/http/actor.ts):
// its projects' owner, through a key scoped to those projects that reads and publishes only
// (authorization.ts's publishOnly), named in the audit log after the publisher that earned it.
// One indexed read per request: a token lives 15 minutes, so nothing is kept in memory.
import type { Kysely } from "kysely";
import type { Actor } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Database } from "../platform/db/schema.ts";
import { findPublishToken } from "./storage.ts";

export { isPublishToken } from "./storage.ts";

export async function checkPublishToken(db: Kysely<Database>, token: string, now: Date): Promise<Actor> {
  const row = await findPublishToken(db, token);
  if (!row) throw new DomainError("UNAUTHENTICATED", "Invalid publish token");
  if (row.expires_at <= now.toISOString())
    throw new DomainError(
      "UNAUTHENTICATED",
      "This publish token has expired (they last 15 minutes): exchange a new ID token at /api/v1/trusted-publishing/token",
    );
  return {
    kind: "key",
    userId: row.owner_id,
    keyId: row.id,
    scope: { projects: JSON.parse(row.projects) as string[], access: "publish" },
    ...(row.org_id ? { org: true } : {}),
    publishOnly: true,
    keyName: row.publisher,
    keyStart: row.token_start,
  };
}
