// Who is calling: an API key (`Authorization: Bearer pky_…`, or HTTP Basic with the key as the
// password, which apt and dnf send, or as the user name with an empty password, as `curl -u KEY:`
// sends it), else the session cookie, else nobody. An entitlement token (pke_…) is a credential
// too, but only /dl reads it (projects/visible.ts): here it is refused. A publish token (pkp_…)
// from trusted publishing stands for its projects' owner, reading and publishing only.
import { KeyChecks } from "../../auth/key-checks.ts";
import { isEntitlementToken } from "../../entitlements/checks.ts";
import type { Services } from "../../services.ts";
import { checkPublishToken, isPublishToken } from "../../trusted-publishing/checks.ts";
import type { Actor } from "../core/authorization.ts";
import { DomainError } from "../core/errors.ts";

const keyChecks = new WeakMap<Services, KeyChecks>();

/** The server's API key checks (auth/key-checks.ts), made at their first use. */
export function keyChecksOf(services: Services): KeyChecks {
  let checks = keyChecks.get(services);
  if (!checks) {
    const { db, kind } = services.database;
    checks = new KeyChecks({ auth: services.auth, db, postgres: kind === "postgres" });
    keyChecks.set(services, checks);
  }
  return checks;
}

/** Forgets the keys checked and stops listening for key changes (the server stops). */
export async function closeKeyChecks(services: Services): Promise<void> {
  await keyChecks.get(services)?.close();
}

/** The secret a request's Authorization header carries (a key or an entitlement token). */
export function credentialFromHeaders(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (!authorization) return undefined;
  const [scheme, value = ""] = authorization.split(/\s+/, 2);
  if (/^bearer$/i.test(scheme ?? "")) return value.trim();
  if (/^basic$/i.test(scheme ?? "")) {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const password = colon === -1 ? "" : decoded.slice(colon + 1);
    const user = colon === -1 ? decoded : decoded.slice(0, colon);
    return password || user || undefined;
  }
  return undefined;
}

/** The caller, or null when anonymous. A key that is present but invalid is an error. */
export async function resolveActor(services: Services, headers: Headers): Promise<Actor | null> {
  const key = credentialFromHeaders(headers);
  if (key !== undefined && isEntitlementToken(key))
    throw new DomainError(
      "UNAUTHENTICATED",
      "An entitlement token reads packages and files under /dl only; the API needs an API key",
    );
  if (key !== undefined && isPublishToken(key))
    return checkPublishToken(services.database.db, key, services.clock());
  if (key !== undefined) return keyChecksOf(services).check(key);
  const session = await services.auth.api.getSession({ headers });
  if (!session) return null;
  const { ssoOrganizationId } = session.session as { ssoOrganizationId?: string | null };
  return { kind: "session", userId: session.user.id, ...(ssoOrganizationId ? { ssoOrganizationId } : {}) };
}

export async function requireActor(services: Services, headers: Headers): Promise<Actor> {
  const actor = await resolveActor(services, headers);
  if (!actor)
    throw new DomainError("UNAUTHENTICATED", "Sign in or send an API key: Authorization: Bearer <key>");
  return actor;
}
