// Organizations (docs/decisions/040-organizations.md): one schema for the browser's check and the
// server's. An organization's slug shares one namespace with usernames, so it follows the
// username rules (profile.ts) and appears where a username does: /releases/{owner}/{project} and
// /dl/{owner}/{project}/….
import { z } from "zod";
import { emailSchema } from "./account.ts";
import { projectSlug } from "./names.ts";
import { profileUsername, USERNAME_MAX, USERNAME_MIN } from "./profile.ts";

/** What a member may do, most to least (server/platform/core/authorization.ts decides with these). */
export const orgRoles = ["owner", "admin", "publisher", "viewer"] as const;
export type OrgRole = (typeof orgRoles)[number];
export const orgRole = z.enum(orgRoles, "Role must be owner, admin, publisher or viewer");

/** What each role is for, as the dashboard and the docs say it. */
export const orgRoleDescriptions: Record<OrgRole, string> = {
  owner: "Billing, deleting the organization, and everything an admin may do",
  admin: "Members, invitations, API keys and every project's settings",
  publisher: "Upload, yank and edit releases",
  viewer: "Read private projects and install from their repositories",
};

/** How long an invitation link stays valid. */
export const INVITATION_VALID_DAYS = 7;

// The username rules in the slug's own words: the form's field is called Slug.
export const orgSlug = z
  .string()
  .trim()
  .min(USERNAME_MIN, `Slug must be at least ${USERNAME_MIN} characters`)
  .max(USERNAME_MAX, `Slug must be at most ${USERNAME_MAX} characters`)
  .regex(/^[A-Za-z0-9_-]+$/, "Slug can only contain letters, numbers, underscores, and hyphens")
  .describe(
    `The organization's name in URLs: ${USERNAME_MIN}–${USERNAME_MAX} letters, numbers, underscores or hyphens, unique among users and organizations`,
  );

export const orgName = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(100, "Name must be at most 100 characters");

export const createOrgSchema = z.object({ slug: orgSlug, name: orgName });
export type CreateOrgInput = z.infer<typeof createOrgSchema>;

export const updateOrgSchema = z.object({ name: orgName });
export type UpdateOrgInput = z.infer<typeof updateOrgSchema>;

export const inviteMemberSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(emailSchema),
  role: orgRole,
});
export type InviteMemberInput = z.infer<typeof inviteMemberSchema>;

export const updateMemberSchema = z.object({ role: orgRole });
export type UpdateMemberInput = z.infer<typeof updateMemberSchema>;

/** Moving a project to another owner: an organization's slug, or the caller's own username. */
export const transferProjectSchema = z.object({
  owner: profileUsername.describe("The new owner: an organization's slug or your username"),
});
export type TransferProjectInput = z.infer<typeof transferProjectSchema>;

/** `{owner}/{slug}` or a slug alone, as /api/v1/projects/… and the CLI take a project. */
export function splitProjectRef(ref: string): { owner?: string; slug: string } {
  const at = ref.indexOf("/");
  return at === -1 ? { slug: ref } : { owner: ref.slice(0, at), slug: ref.slice(at + 1) };
}
export const projectRef = z.string().refine((ref) => {
  const { owner, slug } = splitProjectRef(ref);
  return (
    projectSlug.safeParse(slug).success && (owner === undefined || profileUsername.safeParse(owner).success)
  );
}, "A project is its slug, or owner/slug");

export const organization = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  /** The caller's role in it. */
  role: orgRole,
  memberCount: z.number().int(),
  projectCount: z.number().int(),
  createdAt: z.string(),
});
export type Organization = z.infer<typeof organization>;

export const orgMember = z.object({
  userId: z.string(),
  username: z.string(),
  name: z.string(),
  role: orgRole,
  joinedAt: z.string(),
});
export type OrgMember = z.infer<typeof orgMember>;

export const orgInvitation = z.object({
  id: z.string(),
  organization: z.string().describe("The organization's slug"),
  email: z.string(),
  role: orgRole,
  invitedBy: z.string().nullable().describe("The inviting member's username"),
  createdAt: z.string(),
  expiresAt: z.string(),
  /** The link the invitee opens (in the mail). */
  url: z.string(),
});
export type OrgInvitation = z.infer<typeof orgInvitation>;

// ---------------------------------------------------------------------------------------------
// Verified domains (docs/sso.md): an organization proves a domain with a DNS TXT record before
// its sign-ins may go to the organization's identity provider; one domain, one organization.

/** The name under the domain where the TXT record is published. */
export const DOMAIN_VERIFICATION_LABEL = "_packyard-verification";
/** What the TXT record's value starts with, before the organization's token for the domain. */
export const DOMAIN_VERIFICATION_PREFIX = "packyard-verification=";

export const orgDomainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, "Domain must be at most 253 characters")
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
    "Domain must be a domain name such as example.com (no scheme, port or path)",
  )
  .describe("A domain the organization's members' email addresses are at, such as acme.com");

export const addOrgDomainSchema = z.object({ domain: orgDomainName });
export type AddOrgDomainInput = z.infer<typeof addOrgDomainSchema>;

export const orgDomain = z.object({
  domain: z.string(),
  verified: z.boolean(),
  verifiedAt: z.string().nullable().describe("When its TXT record was found (ISO 8601); null until then"),
  record: z
    .object({
      type: z.literal("TXT"),
      name: z.string().describe(`Where to publish it: ${DOMAIN_VERIFICATION_LABEL}.{domain}`),
      value: z.string().describe(`${DOMAIN_VERIFICATION_PREFIX}{token}`),
    })
    .describe("The DNS record that proves the domain: publish it, then verify"),
  createdAt: z.string(),
});
export type OrgDomain = z.infer<typeof orgDomain>;
