// Single sign-on and SCIM (docs/sso.md): what the server and the dashboard share — the shapes of
// an organization's identity providers and settings, and how an identity provider's groups give
// a member's role.
import { z } from "zod";
import { type OrgRole, orgDomainName, orgRole, orgRoles } from "./orgs.ts";

/** IdP group name → role; the highest role any of a member's groups maps to wins. */
export const ssoGroupRoles = z
  .record(z.string().trim().min(1).max(255), orgRole)
  .refine((value) => Object.keys(value).length <= 100, "At most 100 group mappings");
export type SsoGroupRoles = z.infer<typeof ssoGroupRoles>;

/**
 * The role a member whose identity provider names these groups gets: the highest role the
 * mapping gives any of them, else `defaultRole`. Group names are compared as given (IdPs send
 * them exactly).
 */
export function roleFromGroups(
  groups: readonly string[],
  mapping: SsoGroupRoles,
  defaultRole: OrgRole,
): { role: OrgRole; mapped: boolean } {
  let best: OrgRole | undefined;
  for (const group of groups) {
    const role = Object.hasOwn(mapping, group) ? mapping[group] : undefined;
    if (role && (best === undefined || orgRoles.indexOf(role) < orgRoles.indexOf(best))) best = role;
  }
  return best ? { role: best, mapped: true } : { role: defaultRole, mapped: false };
}

/** Whether an email address is at the domain or one below it (eu.acme.com is at acme.com). */
export function isAtDomain(email: string, domain: string): boolean {
  const at = email.trim().toLowerCase().split("@")[1] ?? "";
  return at === domain || at.endsWith(`.${domain}`);
}

/** An IdP's groups as a SAML attribute or an OIDC claim carries them: a list, one name, or none. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === "string");
  if (typeof value === "string" && value !== "") return [value];
  return [];
}

const httpsOrHttpUrl = z
  .url("Must be a URL")
  .refine((value) => /^https?:\/\//i.test(value), "Must be an http(s) URL");

/** Adding an identity provider: `type` and `domain`, then SAML's metadata or OIDC's client. */
export const createSsoProviderSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("saml"),
    domain: orgDomainName,
    metadataXml: z.string().trim().min(1).max(100_000, "Metadata must be at most 100 KB").optional(),
    metadataUrl: httpsOrHttpUrl.optional(),
    /** The SAML attribute carrying the email (default: `email`, else the NameID). */
    emailAttribute: z.string().trim().min(1).max(255).optional(),
    /** The SAML attribute carrying the user's groups (default: `groups`). */
    groupsAttribute: z.string().trim().min(1).max(255).optional(),
  }),
  z.object({
    type: z.literal("oidc"),
    domain: orgDomainName,
    issuer: httpsOrHttpUrl,
    clientId: z.string().trim().min(1, "Client id is required").max(255),
    clientSecret: z.string().trim().min(1, "Client secret is required").max(1024),
    /** The ID token claim carrying the user's groups (default: `groups`). */
    groupsAttribute: z.string().trim().min(1).max(255).optional(),
  }),
]);
export type CreateSsoProviderInput = z.infer<typeof createSsoProviderSchema>;

/** Changing one: any of its settings; its type stays. */
export const updateSsoProviderSchema = z.object({
  domain: orgDomainName.optional(),
  metadataXml: z.string().trim().min(1).max(100_000, "Metadata must be at most 100 KB").optional(),
  metadataUrl: httpsOrHttpUrl.optional(),
  emailAttribute: z.string().trim().min(1).max(255).optional(),
  groupsAttribute: z.string().trim().min(1).max(255).optional(),
  issuer: httpsOrHttpUrl.optional(),
  clientId: z.string().trim().min(1).max(255).optional(),
  clientSecret: z.string().trim().min(1).max(1024).optional(),
});
export type UpdateSsoProviderInput = z.infer<typeof updateSsoProviderSchema>;

/** An identity provider as the API and the dashboard show it (never its client secret). */
export const ssoProvider = z.object({
  id: z.string().describe("The provider's id, part of its ACS and callback URLs"),
  type: z.enum(["saml", "oidc"]),
  domain: z.string(),
  /** SAML: the IdP's entity id; OIDC: the issuer. */
  issuer: z.string(),
  /** SAML: where the IdP sends assertions (the ACS URL); OIDC: the redirect URI to register. */
  callbackUrl: z.string(),
  /** SAML only: Packyard's entity id (the audience) and its SP metadata's URL. */
  entityId: z.string().nullable(),
  metadataUrl: z.string().nullable(),
  /** OIDC only. */
  clientId: z.string().nullable(),
  groupsAttribute: z.string(),
});
export type SsoProvider = z.infer<typeof ssoProvider>;

/** An organization's sign-in settings, changed with PATCH /api/v1/orgs/{org}. */
export const ssoSettingsSchema = z.object({
  enforced: z.boolean().optional(),
  defaultRole: orgRole.optional(),
  groupRoles: ssoGroupRoles.optional(),
});
export type SsoSettingsInput = z.infer<typeof ssoSettingsSchema>;

export const ssoSettings = z.object({
  enforced: z.boolean(),
  defaultRole: orgRole,
  groupRoles: z.record(z.string(), orgRole),
});
export type SsoSettings = z.infer<typeof ssoSettings>;
