// Every error the REST API answers with: a stable code, the HTTP status it implies, and the
// JSON body `{"error":{"code","message"}}`. The server maps domain errors here in one place.
import { z } from "zod";

export const apiErrorStatus = {
  VALIDATION_FAILED: 400,
  INVALID_FILENAME: 400,
  INVALID_VERSION: 400,
  INVALID_SLUG: 400,
  INVALID_DISTRIBUTION: 400,
  // A .deb that cannot be read: the code says why.
  DEB_TRUNCATED: 400,
  DEB_NOT_AR: 400,
  DEB_BAD_ARCHIVE: 400,
  DEB_TOO_MANY_MEMBERS: 400,
  DEB_TOO_LARGE: 400,
  DEB_BAD_DEBIAN_BINARY: 400,
  DEB_MISSING_CONTROL: 400,
  DEB_MISSING_DATA: 400,
  DEB_CONTROL_TOO_LARGE: 400,
  DEB_UNSUPPORTED_COMPRESSION: 400,
  DEB_CORRUPT_MEMBER: 400,
  DEB_BAD_TAR: 400,
  DEB_BAD_CONTROL: 400,
  DEB_MISSING_FIELD: 400,
  DEB_BAD_FIELD: 400,
  INVALID_GROUP: 400,
  // A webhook URL whose host is (or resolves to) a loopback, link-local or private address.
  WEBHOOK_URL_FORBIDDEN: 400,
  // An .rpm that cannot be read or signed: the code says why.
  RPM_TRUNCATED: 400,
  RPM_BAD_MAGIC: 400,
  RPM_UNSUPPORTED: 400,
  RPM_BAD_HEADER: 400,
  RPM_INDEX_OUT_OF_BOUNDS: 400,
  RPM_TOO_LARGE: 400,
  RPM_TOO_MANY_ENTRIES: 400,
  RPM_MISSING_TAG: 400,
  RPM_DIGEST_MISMATCH: 400,
  RPM_PAYLOAD_DIGEST_MISMATCH: 400,
  // An npm package name npm would not publish, or a tarball whose package.json cannot be read
  // (docs/npm.md).
  NPM_INVALID_NAME: 400,
  NPM_INVALID_TARBALL: 400,
  // A Python upload (docs/pypi.md): a project name PEP 508 refuses, core metadata (METADATA,
  // PKG-INFO) that cannot be read or disagrees with the file, a digest of the form that does not
  // match the file.
  PYPI_INVALID_NAME: 400,
  PYPI_INVALID_METADATA: 400,
  PYPI_DIGEST_MISMATCH: 400,
  // An identity provider's metadata, discovery document or settings that cannot be used
  // (docs/sso.md): the message says what.
  SSO_PROVIDER_INVALID: 400,
  UNAUTHENTICATED: 401,
  // Trusted publishing (docs/ci/): an ID token that is not valid — its signature, issuer,
  // audience, dates or claims — or one whose id (jti) was already exchanged.
  OIDC_TOKEN_INVALID: 401,
  OIDC_TOKEN_REPLAYED: 401,
  FORBIDDEN: 403,
  // A write made with a browser session from a page that is not Packyard's.
  INVALID_ORIGIN: 403,
  KEY_SCOPE: 403,
  // An organization invitation opened by an account whose email is not the invited one.
  INVITATION_EMAIL_MISMATCH: 403,
  PLAN_LIMIT: 403,
  // An entitlement token used past one of its limits: its dates, downloads or bytes this month.
  ENTITLEMENT_LIMIT: 403,
  // A valid ID token whose repository, workflow, environment or ref no project trusts.
  OIDC_NO_TRUSTED_PUBLISHER: 403,
  // An organization that requires single sign-on, reached by one of its members through a
  // session that did not come from its identity provider, or a personal API key (docs/sso.md).
  SSO_REQUIRED: 403,
  NOT_FOUND: 404,
  // A promotion's target project does not exist (or is not the caller's).
  PROMOTION_TARGET_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PROJECT_EXISTS: 409,
  VERSION_EXISTS: 409,
  FILE_EXISTS: 409,
  // A promotion whose target is where the release already is.
  PROMOTION_SAME_TARGET: 409,
  // A yanked release is not promoted: unyank it first.
  RELEASE_YANKED: 409,
  // An organization's slug that a user or another organization has (or holds).
  NAME_TAKEN: 409,
  // A change that would leave an organization without an owner.
  ORG_LAST_OWNER: 409,
  // An organization that still owns projects is not deleted: transfer or delete them first.
  ORG_NOT_EMPTY: 409,
  // An invitation for someone who is already a member, or one already accepted.
  ALREADY_MEMBER: 409,
  // A project named by its slug alone when the caller reaches several of that name: use owner/slug.
  AMBIGUOUS_PROJECT: 409,
  // A domain another organization has verified, or one this organization has already
  // (docs/sso.md); a verification whose TXT record is not (yet) in the DNS.
  DOMAIN_TAKEN: 409,
  DOMAIN_NOT_VERIFIED: 409,
  // A domain one of the organization's identity providers signs in: remove the provider first.
  DOMAIN_IN_USE: 409,
  // An npm version published more than 72 hours ago is not unpublished: deprecate it (docs/npm.md).
  NPM_UNPUBLISH_WINDOW: 409,
  // Requiring single sign-on before the organization has an identity provider that can sign
  // anyone in.
  SSO_NOT_CONFIGURED: 409,
  // An ID token trusted by projects of several accounts: the exchange names the owner.
  OIDC_AMBIGUOUS_OWNER: 409,
  // An invitation past its 7 days, or revoked.
  INVITATION_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // The ID token's issuer did not answer with its discovery document or keys (5 s at most).
  OIDC_ISSUER_UNREACHABLE: 502,
  // An identity provider's metadata or discovery URL that did not answer usefully (10 s at most).
  SSO_PROVIDER_UNREACHABLE: 502,
  // A file whose bytes are missing from storage: answered, logged, never cached.
  BLOB_MISSING: 500,
  // The database cannot take the request now (no free connection, restarting): retry shortly.
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ApiErrorCode = keyof typeof apiErrorStatus;
export const apiErrorCodes = Object.keys(apiErrorStatus) as ApiErrorCode[];

/** True when `code` is one the API answers with (checked against the table, not assumed). */
export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(apiErrorStatus, code);
}

/**
 * `code` when the API knows it, else `fallback`: a code from elsewhere (a reader's error) that the
 * contract lacks still answers with a known code and status, never with a status of undefined.
 */
export function apiErrorCodeOr(code: string, fallback: ApiErrorCode): ApiErrorCode {
  return isApiErrorCode(code) ? code : fallback;
}

export const apiErrorBody = z.object({
  error: z.object({
    code: z.enum(apiErrorCodes as [ApiErrorCode, ...ApiErrorCode[]]),
    message: z.string(),
    details: z.record(z.string(), z.string()).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBody>;
