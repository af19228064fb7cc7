// Who is calling: an API key (`Authorization: Bearer pky_…`, or HTTP Basic with the key as the
// password, which apt and dnf send), else the session cookie, else nobody.
import { sql } from "kysely";
import { type Actor, scopeFromPermissions } from "../domain/authorization.ts";
import { DomainError } from "../domain/errors.ts";
import { isOrganization } from "../domain/orgs.ts";
import type { Services } from "../services.ts";

function keyFromHeaders(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (!authorization) return undefined;
  const [scheme, value = ""] = authorization.split(/\s+/, 2);
  if (/^bearer$/i.test(scheme ?? "")) return value.trim();
  if (/^basic$/i.test(scheme ?? "")) {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const password = decoded.slice(decoded.indexOf(":") + 1);
    return password || undefined;
  }
  return undefined;
}

/** The caller, or null when anonymous. A key that is present but invalid is an error. */
export async function resolveActor(services: Services, headers: Headers): Promise<Actor | null> {
  const key = keyFromHeaders(headers);
  if (key !== undefined) {
    const result = await services.auth.api.verifyApiKey({ body: { key } });
    if (!result.valid || !result.key) {
      const code = result.error?.code;
      if (code === "RATE_LIMITED")
        throw new DomainError("RATE_LIMITED", "Too many requests for this API key");
      // The key library answers "invalid" for any failure, a database error included: a key
      // is only called invalid when the database answers.
      await sql`select 1`.execute(services.database.db);
      throw new DomainError(
        "UNAUTHENTICATED",
        code === "KEY_EXPIRED" ? "This API key has expired" : "Invalid API key",
      );
    }
    const org = await isOrganization(services.database.db, result.key.referenceId);
    return {
      kind: "key",
      userId: result.key.referenceId,
      keyId: result.key.id,
      scope: scopeFromPermissions(result.key.permissions as Record<string, string[]> | null),
      ...(org ? { org: true } : {}),
    };
  }
  const session = await services.auth.api.getSession({ headers });
  return session ? { kind: "session", userId: session.user.id } : null;
}

export async function requireActor(services: Services, headers: Headers): Promise<Actor> {
  const actor = await resolveActor(services, headers);
  if (!actor)
    throw new DomainError("UNAUTHENTICATED", "Sign in or send an API key: Authorization: Bearer <key>");
  return actor;
}
