// Single sign-on and SCIM (docs/sso.md): what the server and the dashboard share — the shapes of
// an organization's identity providers and settings, and how an identity provider's groups give
// a member's role.
import { z } from "zod";
import { type OrgRole, orgRole, orgRoles } from "./orgs.ts";

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

/** An IdP's groups as a SAML attribute or an OIDC claim carries them: a list, one name, or none. */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === "string");
  if (typeof value === "string" && value !== "") return [value];
  return [];
}
