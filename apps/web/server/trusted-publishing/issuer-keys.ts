// The keys of the CI issuers Packyard trusts (docs/ci/, decision 082): each issuer's discovery
// document (<issuer>/.well-known/openid-configuration) and the JWKS it points to, fetched with a
// 5 s limit through the webhooks' address guard (no loopback, private or link-local address
// unless WEBHOOK_ALLOW_PRIVATE), kept 10 minutes, and fetched again early only for a key id the
// kept set lacks, at most once every 30 s — so tokens signed with a key the issuer just rotated
// in verify, and a stream of made-up key ids cannot make Packyard hammer the issuer. jose
// verifies the signature and the registered claims; this module only decides when to fetch.

import { ID_TOKEN_CLOCK_SKEW_SECONDS } from "@packyard/contract/trusted-publishing.ts";
import {
  createLocalJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from "jose";
import { guardedFetch } from "../imports/http-fetch.ts";
import { DomainError } from "../platform/core/errors.ts";

/** How long an issuer's discovery document and keys are used before they are fetched again. */
export const ISSUER_KEYS_MAX_AGE_MS = 10 * 60_000;
/** An unknown key id fetches the keys again at most this often per issuer. */
export const ISSUER_KEYS_REFETCH_MS = 30_000;
/** One fetch of a discovery document or a JWKS may take this long. */
export const ISSUER_FETCH_TIMEOUT_MS = 5_000;
/** A discovery document or JWKS larger than this is refused. */
const MAX_DOCUMENT_BYTES = 256 * 1024;

/** Signatures CI issuers use; symmetric ones ("HS256") are never accepted. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

export interface IssuerKeysOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  now?: () => number;
  /** For tests: a shorter limit than the 5 s of ISSUER_FETCH_TIMEOUT_MS. */
  timeoutMs?: number;
}

interface Kept {
  keys: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
}

function unreachable(issuer: string, why: string): DomainError {
  return new DomainError(
    "OIDC_ISSUER_UNREACHABLE",
    `The ID token's issuer ${issuer} could not be read: ${why}`,
  );
}

export function invalidToken(message: string): DomainError {
  return new DomainError("OIDC_TOKEN_INVALID", message);
}

export class IssuerKeys {
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #kept = new Map<string, Kept>();
  /** Fetches under way, shared by the requests that need them. */
  readonly #pending = new Map<string, Promise<Kept>>();

  constructor(options: IssuerKeysOptions) {
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? ISSUER_FETCH_TIMEOUT_MS;
    this.#fetch = guardedFetch({
      allowPrivate: options.allowPrivate,
      idleTimeoutMs: this.#timeoutMs,
      totalTimeoutMs: this.#timeoutMs,
    });
  }

  /**
   * Verifies the token's signature with the issuer's keys and its iss, aud, exp, nbf and iat
   * (5 minutes of skew); answers its claims. OIDC_TOKEN_INVALID says what is wrong;
   * OIDC_ISSUER_UNREACHABLE when the keys could not be read.
   */
  async verify(token: string, issuer: string, audience: string): Promise<JWTPayload> {
    let kept = await this.#current(issuer);
    try {
      return await this.#verifyWith(kept, token, issuer, audience);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw describe(error, audience);
      // A key id the kept set lacks: the issuer may have rotated its keys.
      if (this.#now() - kept.fetchedAt < ISSUER_KEYS_REFETCH_MS) throw describe(error, audience);
      kept = await this.#load(issuer);
      try {
        return await this.#verifyWith(kept, token, issuer, audience);
      } catch (again) {
        throw describe(again, audience);
      }
    }
  }

  async #verifyWith(kept: Kept, token: string, issuer: string, audience: string): Promise<JWTPayload> {
    const now = this.#now();
    const { payload } = await jwtVerify(token, kept.keys, {
      issuer,
      audience,
      algorithms: ALGORITHMS,
      clockTolerance: ID_TOKEN_CLOCK_SKEW_SECONDS,
      currentDate: new Date(now),
      requiredClaims: ["exp", "iat", "jti"],
    });
    // jose reads iat only for a maximum age: a token issued in the future is refused here.
    if (typeof payload.iat === "number" && payload.iat > now / 1000 + ID_TOKEN_CLOCK_SKEW_SECONDS)
      throw invalidToken("The ID token was issued in the future (iat): check the issuer's clock");
    return payload;
  }

  async #current(issuer: string): Promise<Kept> {
    const kept = this.#kept.get(issuer);
    if (kept && this.#now() - kept.fetchedAt < ISSUER_KEYS_MAX_AGE_MS) return kept;
    return this.#load(issuer);
  }

  #load(issuer: string): Promise<Kept> {
    let pending = this.#pending.get(issuer);
    if (!pending) {
      pending = this.#fetchKeys(issuer).finally(() => this.#pending.delete(issuer));
      this.#pending.set(issuer, pending);
    }
    return pending;
  }

  async #fetchKeys(issuer: string): Promise<Kept> {
    const discovery = await this.#json(issuer, `${issuer}/.well-known/openid-configuration`);
    if (discovery.issuer !== issuer)
      throw unreachable(issuer, `its discovery document names another issuer (${String(discovery.issuer)})`);
    const jwksUri = typeof discovery.jwks_uri === "string" ? discovery.jwks_uri : "";
    let jwksUrl: URL;
    try {
      jwksUrl = new URL(jwksUri);
    } catch {
      throw unreachable(issuer, "its discovery document has no jwks_uri");
    }
    // The keys come from the issuer's own origin: a discovery document cannot send Packyard elsewhere.
    if (jwksUrl.origin !== new URL(issuer).origin)
      throw unreachable(issuer, `its jwks_uri (${jwksUrl.href}) is not on the issuer's own host`);
    const jwks = await this.#json(issuer, jwksUrl.href);
    if (!Array.isArray(jwks.keys)) throw unreachable(issuer, "its JWKS has no keys");
    let keys: Kept["keys"];
    try {
      keys = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
    } catch {
      throw unreachable(issuer, "its JWKS is not a valid key set");
    }
    const kept = { keys, fetchedAt: this.#now() };
    this.#kept.set(issuer, kept);
    return kept;
  }

  async #json(issuer: string, url: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.#fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw unreachable(issuer, `${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw unreachable(issuer, `${url} answered ${response.status}`);
    }
    const text = await response.text();
    if (text.length > MAX_DOCUMENT_BYTES) throw unreachable(issuer, `${url} is too large`);
    try {
      const value = JSON.parse(text) as unknown;
      if (value && typeof value === "object" && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw unreachable(issuer, `${url} is not a JSON object`);
  }
}

/** jose's failure as the sentence the CI's log shows, under OIDC_TOKEN_INVALID. */
function describe(error: unknown, audience: string): unknown {
  if (error instanceof DomainError) return error;
  if (error instanceof joseErrors.JWTExpired) return invalidToken("The ID token has expired (exp)");
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === "aud")
      return invalidToken(
        `The ID token is for another audience (aud): request it with the audience ${audience}`,
      );
    if (error.claim === "nbf") return invalidToken("The ID token is not valid yet (nbf)");
    if (error.claim === "iss")
      return invalidToken("The ID token's issuer (iss) is not the one it was checked against");
    return invalidToken(`The ID token's ${error.claim} claim is missing or not valid`);
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return invalidToken("The ID token is signed with a key its issuer does not publish (kid)");
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
    return invalidToken("The ID token names no key id (kid) and its issuer publishes several keys");
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return invalidToken("The ID token's signature does not verify with its issuer's keys");
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return invalidToken("The ID token is signed with an algorithm Packyard does not accept");
  if (error instanceof joseErrors.JOSEError)
    return invalidToken(`The ID token is not valid: ${error.message}`);
  return error;
}
