// An organization's identity providers and sign-in settings (issue 43, docs/sso.md, decision 088).
//
// Owners add SAML 2.0 or OpenID Connect providers for one of the organization's verified domains
// (orgs/domains.ts); admins see them. A provider is a row of better-auth's SSO plugin
// (`ssoProvider`), written here rather than through the plugin's own endpoints so that Packyard
// decides who may (owners, the Pro plan) and which domains (verified ones only), and so that each
// change is one use case with its audit entry and a mail to the owners. The plugin does the
// protocol at sign-in (auth.ts). Metadata and discovery documents are fetched through the
// webhooks' address guard (WEBHOOK_ALLOW_PRIVATE lifts it, for tests).
import { randomBytes } from "node:crypto";
import {
  type CreateSsoProviderInput,
  type OrgRole,
  type SsoGroupRoles,
  type SsoProvider,
  type SsoSettings,
  type SsoSettingsInput,
  ssoGroupRoles,
  type UpdateSsoProviderInput,
} from "@packyard/contract";
import { plans } from "@packyard/contract/plans.ts";
import { IdentityProvider } from "samlify";
import { accountPlan } from "../billing/plan.ts";
import { guardedFetch } from "../imports/http-fetch.ts";
import { type Actor, PRICING_PATH } from "../platform/core/authorization.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import type { SsoProviderTable } from "../platform/db/schema.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { ssoConfigurationMail } from "../platform/mail/templates.ts";
import { type OrganizationRow, personOf, requireOrganization } from "./storage.ts";

export interface SsoDeps {
  db: Db;
  baseUrl: string;
  mailer: Mailer;
  /** PLAN_LIMITS: single sign-on needs the Pro plan unless limits are off. */
  planLimits: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: metadata and discovery may come from private addresses. */
  allowPrivate: boolean;
  /** For tests: how documents are fetched (default: the address guard's fetch). */
  fetch?: typeof fetch;
}

/** How long a metadata or discovery fetch may take, and how large its answer may be. */
const FETCH_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 100_000;

const SAML_REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const SAML_POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";
const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";

interface SamlConfig {
  issuer: string;
  entryPoint: string;
  cert: string;
  audience: string;
  idpMetadata: { metadata: string };
  wantAssertionsSigned: true;
  authnRequestsSigned: false;
  identifierFormat: string;
  mapping: {
    id: string;
    email: string;
    name: string;
    firstName: string;
    lastName: string;
    extraFields: Record<string, string>;
  };
  /** Packyard's: where the metadata came from, when it was fetched. */
  metadataSource?: string;
}

interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  tokenEndpointAuthentication: "client_secret_basic" | "client_secret_post";
  jwksEndpoint: string;
  userInfoEndpoint?: string;
  discoveryEndpoint: string;
  pkce: true;
  scopes: string[];
  mapping: {
    id: string;
    email: string;
    emailVerified: string;
    name: string;
    extraFields: Record<string, string>;
  };
}

function invalid(message: string): DomainError {
  return new DomainError("SSO_PROVIDER_INVALID", message);
}

/** The URLs an identity provider is given for a provider of this id. */
export function providerUrls(baseUrl: string, providerId: string) {
  const auth = `${baseUrl}/api/auth`;
  return {
    acsUrl: `${auth}/sso/saml2/sp/acs/${providerId}`,
    entityId: `${auth}/sso/saml2/sp/metadata?providerId=${encodeURIComponent(providerId)}`,
    redirectUri: `${auth}/sso/callback/${providerId}`,
  };
}

function parseJson<T>(value: string | null): T | undefined {
  if (!value) return undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    return undefined;
  }
}

function describe(baseUrl: string, row: SsoProviderTable): SsoProvider {
  const urls = providerUrls(baseUrl, row.providerId);
  const saml = parseJson<SamlConfig>(row.samlConfig);
  const oidc = parseJson<OidcConfig>(row.oidcConfig);
  if (saml) {
    return {
      id: row.providerId,
      type: "saml",
      domain: row.domain,
      issuer: samlIdentityProvider(saml.idpMetadata.metadata).entityId,
      callbackUrl: urls.acsUrl,
      entityId: urls.entityId,
      metadataUrl: urls.entityId,
      clientId: null,
      groupsAttribute: saml.mapping.extraFields.groups ?? "groups",
    };
  }
  return {
    id: row.providerId,
    type: "oidc",
    domain: row.domain,
    issuer: oidc?.issuer ?? row.issuer,
    callbackUrl: urls.redirectUri,
    entityId: null,
    metadataUrl: null,
    clientId: oidc?.clientId ?? null,
    groupsAttribute: oidc?.mapping.extraFields.groups ?? "groups",
  };
}

/** What a SAML IdP's metadata says: its entity id, where to send users, how it signs. */
function samlIdentityProvider(metadata: string): { entityId: string; ssoUrl: string; cert: string } {
  let idp: ReturnType<typeof IdentityProvider>;
  try {
    idp = IdentityProvider({ metadata });
  } catch (error) {
    throw invalid(`The SAML metadata could not be read: ${(error as Error).message}`);
  }
  const entityId = idp.entityMeta.getEntityID();
  // samlify answers a binding's location as a string, or as { [binding]: location }.
  const location = (binding: string): unknown => {
    const found: unknown = idp.entityMeta.getSingleSignOnService(binding);
    return found && typeof found === "object" ? (found as Record<string, unknown>)[binding] : found;
  };
  const sso = location(SAML_REDIRECT) ?? location(SAML_POST);
  const certs = idp.entityMeta.getX509Certificate("signing");
  const cert = Array.isArray(certs) ? certs[0] : certs;
  if (!entityId) throw invalid("The SAML metadata has no entityID");
  if (typeof sso !== "string" || !/^https?:\/\//.test(sso))
    throw invalid("The SAML metadata has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding");
  if (typeof cert !== "string" || cert.trim() === "")
    throw invalid(
      'The SAML metadata has no signing certificate (KeyDescriptor use="signing"): Packyard requires signed assertions',
    );
  return { entityId, ssoUrl: sso, cert: cert.replace(/\s+/g, "") };
}

/** A document (metadata, discovery) fetched through the address guard, at most 100 KB in 10 s. */
async function fetchDocument(deps: SsoDeps, url: string, what: string): Promise<string> {
  const get =
    deps.fetch ??
    guardedFetch({
      allowPrivate: deps.allowPrivate,
      idleTimeoutMs: FETCH_TIMEOUT_MS,
      totalTimeoutMs: FETCH_TIMEOUT_MS,
    });
  let response: Response;
  try {
    response = await get(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const reason = (error as Error).message;
    if (/SOURCE_FORBIDDEN|refused/.test(`${(error as { code?: string }).code ?? ""} ${reason}`))
      throw invalid(`The ${what} URL is refused: ${reason}`);
    throw new DomainError(
      "SSO_PROVIDER_UNREACHABLE",
      `The ${what} at ${url} could not be fetched: ${reason}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new DomainError("SSO_PROVIDER_UNREACHABLE", `The ${what} at ${url} answered ${response.status}`);
  }
  const text = await response.text();
  if (Buffer.byteLength(text) > MAX_DOCUMENT_BYTES) throw invalid(`The ${what} is larger than 100 KB`);
  return text;
}

async function samlConfigOf(
  deps: SsoDeps,
  providerId: string,
  input: { metadataXml?: string; metadataUrl?: string; emailAttribute?: string; groupsAttribute?: string },
  current?: SamlConfig,
): Promise<SamlConfig> {
  const metadata =
    input.metadataXml ??
    (input.metadataUrl
      ? await fetchDocument(deps, input.metadataUrl, "SAML metadata")
      : current?.idpMetadata.metadata);
  if (!metadata)
    throw new DomainError("VALIDATION_FAILED", "A SAML provider needs metadataXml or metadataUrl");
  const idp = samlIdentityProvider(metadata);
  const { entityId } = providerUrls(deps.baseUrl, providerId);
  return {
    issuer: entityId,
    entryPoint: idp.ssoUrl,
    cert: idp.cert,
    audience: entityId,
    idpMetadata: { metadata },
    wantAssertionsSigned: true,
    authnRequestsSigned: false,
    identifierFormat: EMAIL_FORMAT,
    mapping: {
      id: "nameID",
      email: input.emailAttribute ?? current?.mapping.email ?? "email",
      name: "displayName",
      firstName: "givenName",
      lastName: "surname",
      extraFields: { groups: input.groupsAttribute ?? current?.mapping.extraFields.groups ?? "groups" },
    },
    ...(input.metadataUrl
      ? { metadataSource: input.metadataUrl }
      : current?.metadataSource
        ? { metadataSource: current.metadataSource }
        : {}),
  };
}

async function oidcConfigOf(
  deps: SsoDeps,
  input: { issuer?: string; clientId?: string; clientSecret?: string; groupsAttribute?: string },
  current?: OidcConfig,
): Promise<OidcConfig> {
  const issuer = (input.issuer ?? current?.issuer ?? "").replace(/\/+$/, "");
  const clientId = input.clientId ?? current?.clientId;
  const clientSecret = input.clientSecret ?? current?.clientSecret;
  if (!issuer || !clientId || !clientSecret)
    throw new DomainError(
      "VALIDATION_FAILED",
      "An OpenID Connect provider needs issuer, clientId and clientSecret",
    );
  const discoveryEndpoint = `${issuer}/.well-known/openid-configuration`;
  const text = await fetchDocument(deps, discoveryEndpoint, "discovery document");
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw invalid(`The discovery document at ${discoveryEndpoint} is not JSON`);
  }
  if (typeof doc.issuer !== "string" || doc.issuer.replace(/\/+$/, "") !== issuer)
    throw invalid(`The discovery document names the issuer ${String(doc.issuer)}, not ${issuer}`);
  const endpoint = (name: string, required: boolean): string | undefined => {
    const value = doc[name];
    if (typeof value === "string" && /^https?:\/\//.test(value)) return value;
    if (required) throw invalid(`The discovery document has no ${name}`);
    return undefined;
  };
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported)
    ? (doc.token_endpoint_auth_methods_supported as unknown[])
    : ["client_secret_basic"];
  const userInfo = endpoint("userinfo_endpoint", false);
  return {
    issuer: doc.issuer as string,
    clientId,
    clientSecret,
    authorizationEndpoint: endpoint("authorization_endpoint", true)!,
    tokenEndpoint: endpoint("token_endpoint", true)!,
    tokenEndpointAuthentication:
      methods.includes("client_secret_basic") || !methods.includes("client_secret_post")
        ? "client_secret_basic"
        : "client_secret_post",
    jwksEndpoint: endpoint("jwks_uri", true)!,
    ...(userInfo ? { userInfoEndpoint: userInfo } : {}),
    discoveryEndpoint,
    pkce: true,
    scopes: ["openid", "email", "profile"],
    mapping: {
      id: "sub",
      email: "email",
      emailVerified: "email_verified",
      name: "name",
      extraFields: { groups: input.groupsAttribute ?? current?.mapping.extraFields.groups ?? "groups" },
    },
  };
}

/** SSO and SCIM are Pro features (docs/sso.md): PLAN_LIMIT on a smaller plan, unless limits are off. */
export async function assertSsoPlan(
  deps: Pick<SsoDeps, "db" | "planLimits">,
  org: OrganizationRow,
): Promise<void> {
  if (!deps.planLimits) return;
  const { plan } = await accountPlan(deps.db, org.id);
  if (plans[plan].singleSignOn) return;
  throw new DomainError(
    "PLAN_LIMIT",
    `Single sign-on is part of the Pro plan; ${org.name} is on ${plans[plan].name}. Upgrade on ${PRICING_PATH}.`,
    { limit: "singleSignOn", pricing: PRICING_PATH },
  );
}

async function assertVerifiedDomain(db: Db, org: OrganizationRow, domain: string): Promise<void> {
  const row = await db
    .selectFrom("org_domain")
    .select("verified_at")
    .where("org_id", "=", org.id)
    .where("domain", "=", domain)
    .executeTakeFirst();
  if (!row?.verified_at)
    throw new DomainError(
      "DOMAIN_NOT_VERIFIED",
      `${domain} is not one of ${org.slug}'s verified domains: add it and publish its TXT record first`,
    );
}

async function assertDomainFree(db: Db, domain: string, exceptProviderId?: string): Promise<void> {
  const rows = await db.selectFrom("ssoProvider").select("providerId").where("domain", "=", domain).execute();
  if (rows.some((row) => row.providerId !== exceptProviderId))
    throw new DomainError("DOMAIN_TAKEN", `${domain} already signs in through another identity provider`);
}

/** Owners hear of every change to how the organization signs in. */
async function mailOwners(
  deps: SsoDeps,
  org: OrganizationRow,
  actor: Actor,
  changeText: string,
): Promise<void> {
  const owners = await deps.db
    .selectFrom("org_member")
    .innerJoin("user", "user.id", "org_member.user_id")
    .select(["user.email", "user.id"])
    .where("org_member.org_id", "=", org.id)
    .where("org_member.role", "=", "owner")
    .execute();
  const by = owners.find((owner) => owner.id === actor.userId)?.email ?? null;
  const actorRow = by
    ? undefined
    : await deps.db.selectFrom("user").select("email").where("id", "=", actor.userId).executeTakeFirst();
  for (const owner of owners) {
    await deps.mailer.send(
      ssoConfigurationMail(owner.email, {
        organization: org.slug,
        organizationName: org.name,
        change: changeText,
        by: by ?? actorRow?.email ?? null,
        url: `${deps.baseUrl}/orgs/${org.slug}/settings`,
      }),
    );
  }
}

async function providerRows(db: Db, orgId: string): Promise<SsoProviderTable[]> {
  return (await db
    .selectFrom("ssoProvider")
    .selectAll()
    .where("organizationId", "=", orgId)
    .orderBy("domain")
    .execute()) as SsoProviderTable[];
}

/** The organization's identity providers (admins and owners). */
export async function listSsoProviders(
  deps: Pick<SsoDeps, "db" | "baseUrl">,
  actor: Actor,
  organization: string,
) {
  const { org } = await requireOrganization(deps.db, actor, organization, "admin");
  return (await providerRows(deps.db, org.id)).map((row) => describe(deps.baseUrl, row));
}

async function findProvider(db: Db, org: OrganizationRow, id: string): Promise<SsoProviderTable> {
  const row = (await db
    .selectFrom("ssoProvider")
    .selectAll()
    .where("providerId", "=", id)
    .where("organizationId", "=", org.id)
    .executeTakeFirst()) as SsoProviderTable | undefined;
  if (!row) throw notFound(`No identity provider ${id} in ${org.slug}`);
  return row;
}

/** Adds an identity provider for one of the organization's verified domains (owners, Pro). */
export async function createSsoProvider(
  deps: SsoDeps,
  caller: Caller,
  input: { organization: string } & CreateSsoProviderInput,
): Promise<SsoProvider> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  await assertSsoPlan(deps, org);
  await assertVerifiedDomain(deps.db, org, input.domain);
  await assertDomainFree(deps.db, input.domain);
  const providerId = `${org.slug.toLowerCase()}-${input.type}-${randomBytes(3).toString("hex")}`;
  const saml = input.type === "saml" ? await samlConfigOf(deps, providerId, input) : undefined;
  const oidc = input.type === "oidc" ? await oidcConfigOf(deps, input) : undefined;
  const row: SsoProviderTable = {
    id: newRowId(),
    providerId,
    issuer: saml ? saml.issuer : oidc!.issuer,
    samlConfig: saml ? JSON.stringify(saml) : null,
    oidcConfig: oidc ? JSON.stringify(oidc) : null,
    userId: actor.userId,
    organizationId: org.id,
    domain: input.domain,
    // Verified by Packyard (assertVerifiedDomain above): the plugin then links a returning user
    // of this domain by email.
    domainVerified: true,
  };
  await change(deps.db, caller, async (tx, record) => {
    await assertDomainFree(tx as Db, input.domain);
    await tx.insertInto("ssoProvider").values(row).execute();
    record.audit({
      ownerId: org.id,
      action: "organization.sso_provider_added",
      target: providerId,
      details: { type: input.type, domain: input.domain, issuer: describe(deps.baseUrl, row).issuer },
    });
  });
  await mailOwners(
    deps,
    org,
    actor,
    `a ${input.type === "saml" ? "SAML" : "OpenID Connect"} identity provider was added for ${input.domain}`,
  );
  return describe(deps.baseUrl, row);
}

/** Changes a provider's settings (owners): its metadata or client again checked and fetched. */
export async function updateSsoProvider(
  deps: SsoDeps,
  caller: Caller,
  input: { organization: string; id: string } & UpdateSsoProviderInput,
): Promise<SsoProvider> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  await assertSsoPlan(deps, org);
  const current = await findProvider(deps.db, org, input.id);
  const changed = Object.entries(input)
    .filter(([key, value]) => key !== "organization" && key !== "id" && value !== undefined)
    .map(([key]) => key);
  if (changed.length === 0) return describe(deps.baseUrl, current);
  const domain = input.domain ?? current.domain;
  if (domain !== current.domain) {
    await assertVerifiedDomain(deps.db, org, domain);
    await assertDomainFree(deps.db, domain, current.providerId);
  }
  const currentSaml = parseJson<SamlConfig>(current.samlConfig);
  const currentOidc = parseJson<OidcConfig>(current.oidcConfig);
  if (currentSaml && (input.issuer || input.clientId || input.clientSecret))
    throw new DomainError(
      "VALIDATION_FAILED",
      "issuer, clientId and clientSecret are an OpenID Connect provider's",
    );
  if (currentOidc && (input.metadataXml || input.metadataUrl || input.emailAttribute))
    throw new DomainError(
      "VALIDATION_FAILED",
      "metadataXml, metadataUrl and emailAttribute are a SAML provider's",
    );
  const saml = currentSaml ? await samlConfigOf(deps, current.providerId, input, currentSaml) : undefined;
  const oidc = currentOidc ? await oidcConfigOf(deps, input, currentOidc) : undefined;
  const updated: SsoProviderTable = {
    ...current,
    domain,
    issuer: saml ? saml.issuer : oidc!.issuer,
    samlConfig: saml ? JSON.stringify(saml) : null,
    oidcConfig: oidc ? JSON.stringify(oidc) : null,
  };
  await change(deps.db, caller, async (tx, record) => {
    await tx
      .updateTable("ssoProvider")
      .set({ domain, issuer: updated.issuer, samlConfig: updated.samlConfig, oidcConfig: updated.oidcConfig })
      .where("id", "=", current.id)
      .execute();
    record.audit({
      ownerId: org.id,
      action: "organization.sso_provider_updated",
      target: current.providerId,
      details: { changed: changed.join(", "), domain },
    });
  });
  await mailOwners(
    deps,
    org,
    actor,
    `the identity provider ${current.providerId} (${domain}) was changed: ${changed.join(", ")}`,
  );
  return describe(deps.baseUrl, updated);
}

/**
 * Removes a provider (owners): its domain's sign-ins no longer go to it. The last one is kept
 * while the organization requires single sign-on (SSO_NOT_CONFIGURED): turn enforcement off first.
 */
export async function deleteSsoProvider(
  deps: SsoDeps,
  caller: Caller,
  input: { organization: string; id: string },
): Promise<void> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  const current = await findProvider(deps.db, org, input.id);
  await change(deps.db, caller, async (tx, record) => {
    const settings = await tx
      .selectFrom("organization")
      .select("sso_enforced")
      .where("id", "=", org.id)
      .executeTakeFirst();
    const others = await tx
      .selectFrom("ssoProvider")
      .select("id")
      .where("organizationId", "=", org.id)
      .where("id", "!=", current.id)
      .execute();
    if (settings?.sso_enforced && others.length === 0)
      throw new DomainError(
        "SSO_NOT_CONFIGURED",
        `${org.slug} requires single sign-on and this is its only identity provider: stop requiring it first`,
      );
    await tx.deleteFrom("ssoProvider").where("id", "=", current.id).execute();
    record.audit({
      ownerId: org.id,
      action: "organization.sso_provider_removed",
      target: current.providerId,
      details: { domain: current.domain },
    });
  });
  await mailOwners(
    deps,
    org,
    actor,
    `the identity provider ${current.providerId} (${current.domain}) was removed`,
  );
}

function settingsOf(row: {
  sso_enforced: number;
  sso_default_role: OrgRole;
  sso_group_roles: string;
}): SsoSettings {
  const parsed = ssoGroupRoles.safeParse(parseJson(row.sso_group_roles) ?? {});
  return {
    enforced: Boolean(row.sso_enforced),
    defaultRole: row.sso_default_role,
    groupRoles: parsed.success ? parsed.data : {},
  };
}

/** The organization's sign-in settings (members may read them: the dashboard shows the rule). */
export async function ssoSettingsOf(db: Db, orgId: string): Promise<SsoSettings> {
  const row = await db
    .selectFrom("organization")
    .select(["sso_enforced", "sso_default_role", "sso_group_roles"])
    .where("id", "=", orgId)
    .executeTakeFirstOrThrow();
  return settingsOf(row);
}

/**
 * Changes the organization's sign-in settings (owners, Pro): whether members must sign in through
 * its provider, the role new members get, and which IdP groups give which role. Requiring SSO
 * needs a provider (SSO_NOT_CONFIGURED); owners keep their break-glass sign-in (docs/sso.md), so
 * it never locks the last owner out.
 */
export async function updateSsoSettings(
  deps: SsoDeps,
  caller: Caller,
  input: { organization: string } & SsoSettingsInput,
): Promise<SsoSettings> {
  const actor = personOf(caller);
  const { org } = await requireOrganization(deps.db, actor, input.organization, "own");
  if (input.enforced) await assertSsoPlan(deps, org);
  const before = await ssoSettingsOf(deps.db, org.id);
  const after: SsoSettings = {
    enforced: input.enforced ?? before.enforced,
    defaultRole: input.defaultRole ?? before.defaultRole,
    groupRoles: input.groupRoles ?? before.groupRoles,
  };
  const changes: string[] = [];
  if (after.enforced !== before.enforced)
    changes.push(after.enforced ? "single sign-on is now required" : "single sign-on is no longer required");
  if (after.defaultRole !== before.defaultRole)
    changes.push(`new members now get the role ${after.defaultRole}`);
  if (JSON.stringify(after.groupRoles) !== JSON.stringify(before.groupRoles))
    changes.push(`groups now map to roles as ${JSON.stringify(after.groupRoles)}`);
  if (changes.length === 0) return after;
  await change(deps.db, caller, async (tx, record) => {
    if (after.enforced && !before.enforced) {
      const providers = await tx
        .selectFrom("ssoProvider")
        .select("id")
        .where("organizationId", "=", org.id)
        .execute();
      if (providers.length === 0)
        throw new DomainError(
          "SSO_NOT_CONFIGURED",
          `${org.slug} has no identity provider yet: add one (and sign in through it) before requiring single sign-on`,
        );
    }
    await tx
      .updateTable("organization")
      .set({
        sso_enforced: after.enforced ? 1 : 0,
        sso_default_role: after.defaultRole,
        sso_group_roles: JSON.stringify(after.groupRoles satisfies SsoGroupRoles),
      })
      .where("id", "=", org.id)
      .execute();
    record.audit({
      ownerId: org.id,
      action: "organization.sso_settings_changed",
      target: org.slug,
      details: {
        enforced: String(after.enforced),
        defaultRole: after.defaultRole,
        groupRoles: JSON.stringify(after.groupRoles),
      },
    });
  });
  await mailOwners(deps, org, actor, changes.join("; "));
  return after;
}

/** The organization and domain of a provider (auth.ts marks its sessions, checks its addresses). */
export async function organizationOfProvider(
  db: Db,
  providerId: string,
): Promise<{ organizationId: string; domain: string } | undefined> {
  const row = await db
    .selectFrom("ssoProvider")
    .select(["organizationId", "domain"])
    .where("providerId", "=", providerId)
    .executeTakeFirst();
  return row?.organizationId ? { organizationId: row.organizationId, domain: row.domain } : undefined;
}

/** The origins of the organizations' OpenID providers' endpoints (auth.ts, WEBHOOK_ALLOW_PRIVATE). */
export async function identityProviderOrigins(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("ssoProvider")
    .select("oidcConfig")
    .where("oidcConfig", "is not", null)
    .execute();
  const origins = new Set<string>();
  for (const row of rows) {
    const config = parseJson<OidcConfig>(row.oidcConfig);
    for (const url of [
      config?.tokenEndpoint,
      config?.jwksEndpoint,
      config?.userInfoEndpoint,
      config?.discoveryEndpoint,
    ])
      if (url) origins.add(new URL(url).origin);
  }
  return [...origins];
}

/** The provider an email's domain signs in through, with the organization's name for the button. */
export async function providerForEmail(
  db: Db,
  email: string,
): Promise<{ providerId: string; organization: string; organizationName: string } | undefined> {
  const domain = email.trim().toLowerCase().split("@")[1];
  if (!domain) return undefined;
  // The address's domain or one above it (eu.acme.com signs in through acme.com's), nearest first.
  const labels = domain.split(".");
  const candidates = labels.slice(0, -1).map((_, index) => labels.slice(index).join("."));
  const rows = await db
    .selectFrom("ssoProvider")
    .innerJoin("organization", "organization.id", "ssoProvider.organizationId")
    .innerJoin("org_domain", (join) =>
      join
        .onRef("org_domain.org_id", "=", "organization.id")
        .onRef("org_domain.verified_domain", "=", "ssoProvider.domain"),
    )
    .select(["ssoProvider.providerId", "ssoProvider.domain", "organization.slug", "organization.name"])
    .where("ssoProvider.domain", "in", candidates)
    .execute();
  const row = rows.sort((a, b) => b.domain.length - a.domain.length)[0];
  return row ? { providerId: row.providerId, organization: row.slug, organizationName: row.name } : undefined;
}
