// The registry's bearer tokens, as Docker clients expect them (the "token authentication"
// handshake of the distribution project): a request without one is answered 401 with
// `WWW-Authenticate: Bearer realm="{BASE_URL}/v2/token",service="…",scope="…"`; the client asks
// the realm for a token with its credentials as HTTP Basic (an API key, an entitlement token or
// a trusted-publishing token as the password; none for an anonymous pull) and the scopes it
// needs, and the answer grants exactly the scopes the caller has. The token is a JWT signed with
// a key derived from SECRET (every server of one installation shares it), valid five minutes.
import { createHash } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import type { Actor } from "../../platform/core/authorization.ts";

/** How long a registry token is valid. A key revoked meanwhile keeps its token until then. */
export const REGISTRY_TOKEN_SECONDS = 300;

export type RegistryAction = "pull" | "push" | "delete";

/** What a token grants on one repository (`{owner}/{project}[/{image}]`). */
export interface RepositoryAccess {
  name: string;
  actions: RegistryAction[];
}

/** Who a token was given to: the actor its uploads are audited as, or an entitlement token. */
export type RegistrySubject =
  | { kind: "anonymous" }
  | { kind: "actor"; actor: Actor }
  | { kind: "entitlement"; entitlementId: string; ownerId: string };

export interface RegistryGrant {
  subject: RegistrySubject;
  access: RepositoryAccess[];
}

/** A requested scope: `repository:{name}:{actions}` (others, like `registry:catalog:*`, ignored). */
export function parseScopes(scopes: readonly string[]): RepositoryAccess[] {
  const wanted = new Map<string, Set<RegistryAction>>();
  for (const scope of scopes) {
    for (const one of scope.split(" ")) {
      const match = /^repository:([^:]+):([a-z*,]+)$/.exec(one);
      if (!match) continue;
      const [, name, actions] = match;
      const set = wanted.get(name!) ?? new Set<RegistryAction>();
      for (const action of actions!.split(",")) {
        if (action === "*") for (const a of ["pull", "push", "delete"] as const) set.add(a);
        else if (action === "pull" || action === "push" || action === "delete") set.add(action);
      }
      wanted.set(name!, set);
    }
  }
  return [...wanted].map(([name, actions]) => ({ name, actions: [...actions] }));
}

export class RegistryTokens {
  readonly #key: Uint8Array;
  readonly #issuer: string;
  readonly #now: () => Date;

  constructor(options: { secret: string; baseUrl: string; now?: () => Date }) {
    // A key of its own, derived: a registry token can never be mistaken for another of SECRET's uses.
    this.#key = createHash("sha256").update(`packyard registry token\u0000${options.secret}`).digest();
    this.#issuer = options.baseUrl;
    this.#now = options.now ?? (() => new Date());
  }

  /** The service name clients are told in the challenge and send back: the registry's host. */
  get service(): string {
    return new URL(this.#issuer).host;
  }

  async issue(grant: RegistryGrant): Promise<{ token: string; expiresIn: number; issuedAt: string }> {
    const now = this.#now();
    const seconds = Math.floor(now.getTime() / 1000);
    const token = await new SignJWT({ access: grant.access, who: grant.subject })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(this.#issuer)
      .setAudience(this.service)
      .setIssuedAt(seconds)
      .setNotBefore(seconds - 5)
      .setExpirationTime(seconds + REGISTRY_TOKEN_SECONDS)
      .sign(this.#key);
    return { token, expiresIn: REGISTRY_TOKEN_SECONDS, issuedAt: now.toISOString() };
  }

  /** The grant a token carries, or undefined when it is not one of ours or has expired. */
  async verify(token: string): Promise<RegistryGrant | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: this.#issuer,
        audience: this.service,
        algorithms: ["HS256"],
        currentDate: this.#now(),
      });
      const access = payload.access as RepositoryAccess[] | undefined;
      const subject = payload.who as RegistrySubject | undefined;
      if (!Array.isArray(access) || !subject) return undefined;
      return { subject, access };
    } catch {
      return undefined;
    }
  }
}

/** Whether a grant allows `action` on repository `name`. */
export function allows(grant: RegistryGrant | undefined, name: string, action: RegistryAction): boolean {
  return grant?.access.some((a) => a.name === name && a.actions.includes(action)) ?? false;
}
