// The audit log (docs/audit.md, decision 031): what a project's or an account's log records,
// who did it (a signed-in user, an API key, or a job), and the shape the API and the dashboard
// show. Entries are kept one year.
import { z } from "zod";

export const AUDIT_ACTIONS = [
  "file.uploaded",
  "file.deleted",
  "release.created",
  "release.updated",
  "release.deleted",
  "release.yanked",
  "release.unyanked",
  "release.promoted",
  "project.created",
  "project.updated",
  "project.visibility_changed",
  "project.deleted",
  "project.transferred",
  "signing_key.rotated",
  "api_key.created",
  "api_key.deleted",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
  "webhook.disabled",
  "retention.settings_changed",
  "retention.run",
  "session.signed_in",
  "account.username_changed",
  "import.started",
  // Organizations (decision 040): in the organization's log, naming the member who acted.
  "organization.created",
  "organization.renamed",
  "organization.deleted",
  "organization.member_role_changed",
  "organization.member_removed",
  "organization.invitation_created",
  "organization.invitation_accepted",
  "organization.invitation_revoked",
  "organization.domain_added",
  "organization.domain_verified",
  "organization.domain_removed",
  // Single sign-on and SCIM (docs/sso.md): in the organization's log.
  "organization.sso_provider_added",
  "organization.sso_provider_updated",
  "organization.sso_provider_removed",
  "organization.sso_settings_changed",
  "organization.sso_signed_in",
  "organization.member_provisioned",
  "organization.member_deprovisioned",
  "organization.member_role_synced",
  "organization.scim_token_created",
  "organization.scim_token_revoked",
  // Entitlement tokens (docs/entitlements.md): in the account's log, with the project when the
  // token is one project's.
  "entitlement.created",
  "entitlement.updated",
  "entitlement.disabled",
  "entitlement.enabled",
  "entitlement.rotated",
  "entitlement.deleted",
  // Trusted publishing (docs/ci/): in the project's log; each exchange, granted or refused,
  // with the ID token's claims.
  "trusted_publishing.publisher_added",
  "trusted_publishing.publisher_removed",
  "trusted_publishing.granted",
  "trusted_publishing.refused",
  // Container images (docs/containers.md): in the project's log, target `{image}:{tag}` or
  // `{image}@sha256:…`.
  "image.pushed",
  "image.deleted",
  // npm packages (docs/npm.md): in the project's log, target `{package}@{version}` or, for a
  // dist-tag, `{package}`. Publishing and unpublishing are file.uploaded and file.deleted.
  "npm.dist_tag_set",
  "npm.dist_tag_removed",
  "npm.deprecated",
  "npm.undeprecated",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const auditAction = z.enum(AUDIT_ACTIONS);

/** Days an entry is kept; an hourly job deletes older ones. */
export const AUDIT_RETENTION_DAYS = 365;

export const AUDIT_ACTOR_KINDS = ["user", "key", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** The groups a filter may name instead of one action: "release" is every release.* action. */
export const AUDIT_ACTION_GROUPS = [
  ...new Set(AUDIT_ACTIONS.map((action) => action.slice(0, action.indexOf(".")))),
] as string[];

/** What the filters read and the pages show for each action. */
export const auditActionLabels: Record<AuditAction, string> = {
  "file.uploaded": "File uploaded",
  "file.deleted": "File deleted",
  "release.created": "Release created",
  "release.updated": "Release edited",
  "release.deleted": "Release deleted",
  "release.yanked": "Release yanked",
  "release.unyanked": "Release unyanked",
  "release.promoted": "Release promoted",
  "project.created": "Project created",
  "project.updated": "Project edited",
  "project.visibility_changed": "Visibility changed",
  "project.deleted": "Project deleted",
  "project.transferred": "Project transferred",
  "signing_key.rotated": "Signing key rotated",
  "api_key.created": "API key created",
  "api_key.deleted": "API key deleted",
  "webhook.created": "Webhook created",
  "webhook.updated": "Webhook edited",
  "webhook.deleted": "Webhook deleted",
  "webhook.secret_rotated": "Webhook secret rotated",
  "webhook.disabled": "Webhook disabled",
  "retention.settings_changed": "Retention settings changed",
  "retention.run": "Retention run",
  "session.signed_in": "Signed in",
  "account.username_changed": "Username changed",
  "import.started": "Import started",
  "organization.created": "Organization created",
  "organization.renamed": "Organization renamed",
  "organization.deleted": "Organization deleted",
  "organization.member_role_changed": "Member's role changed",
  "organization.member_removed": "Member removed",
  "organization.invitation_created": "Member invited",
  "organization.invitation_accepted": "Invitation accepted",
  "organization.invitation_revoked": "Invitation revoked",
  "organization.domain_added": "Domain added",
  "organization.domain_verified": "Domain verified",
  "organization.domain_removed": "Domain removed",
  "organization.sso_provider_added": "Identity provider added",
  "organization.sso_provider_updated": "Identity provider changed",
  "organization.sso_provider_removed": "Identity provider removed",
  "organization.sso_settings_changed": "Single sign-on settings changed",
  "organization.sso_signed_in": "Signed in through single sign-on",
  "organization.member_provisioned": "Member provisioned",
  "organization.member_deprovisioned": "Member deprovisioned",
  "organization.member_role_synced": "Member's role set by the identity provider",
  "organization.scim_token_created": "SCIM token created",
  "organization.scim_token_revoked": "SCIM token revoked",
  "entitlement.created": "Entitlement token created",
  "entitlement.updated": "Entitlement token edited",
  "entitlement.disabled": "Entitlement token disabled",
  "entitlement.enabled": "Entitlement token enabled",
  "entitlement.rotated": "Entitlement token rotated",
  "entitlement.deleted": "Entitlement token deleted",
  "trusted_publishing.publisher_added": "Trusted publisher added",
  "trusted_publishing.publisher_removed": "Trusted publisher removed",
  "trusted_publishing.granted": "Publish token granted to CI",
  "trusted_publishing.refused": "Publish token refused to CI",
  "image.pushed": "Image pushed",
  "image.deleted": "Image deleted",
  "npm.dist_tag_set": "npm dist-tag set",
  "npm.dist_tag_removed": "npm dist-tag removed",
  "npm.deprecated": "npm version deprecated",
  "npm.undeprecated": "npm deprecation removed",
};

export const auditEntry = z.object({
  id: z.string(),
  action: auditAction,
  /** When it happened (ISO 8601). */
  at: z.string(),
  /** The project acted on, with its slug when the entry was recorded; null for account actions. */
  project: z.object({ id: z.string(), slug: z.string().nullable() }).nullable(),
  actor: z.object({
    kind: z.enum(AUDIT_ACTOR_KINDS),
    /** The user acting (for a key, whose it is); null for a job. */
    userId: z.string().nullable(),
    /** Their username when it was recorded; null for a job. */
    username: z.string().nullable(),
    /** The API key used: its id, name and first characters; null unless kind is "key". */
    key: z.object({ id: z.string(), name: z.string().nullable(), start: z.string().nullable() }).nullable(),
  }),
  /** What was acted on: a version, a filename, a key's name, a fingerprint. */
  target: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  /** The client's address, when a request caused it. */
  address: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntry>;

export const auditPage = z.object({
  entries: z.array(auditEntry),
  /** Pass as `cursor` to read the next (older) page; null: this was the last. */
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof auditPage>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A day (YYYY-MM-DD, UTC) or an ISO 8601 time; "" is absent. */
const auditTime = (what: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      const time = Date.parse(DATE.test(value) ? `${value}T00:00:00Z` : value);
      if (Number.isNaN(time)) {
        ctx.addIssue({ code: "custom", message: `${what} must be a date (YYYY-MM-DD) or an ISO 8601 time` });
        return z.NEVER;
      }
      return { time, day: DATE.test(value) };
    });

const optional = (schema: z.ZodType<string, string>) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? value : undefined))
    .pipe(schema.optional());

/**
 * The filters of GET /api/v1/audit and …/projects/{slug}/audit, and of the dashboard's pages:
 * an action or a group of them, the actor (user, key, key:<id>, system), a time range (a day
 * given as `to` includes that day), a project (the account log), and the page (cursor, limit).
 */
export const auditQuery = z
  .object({
    action: optional(
      z
        .string()
        .refine(
          (value) =>
            (AUDIT_ACTIONS as readonly string[]).includes(value) || AUDIT_ACTION_GROUPS.includes(value),
          {
            message: "Unknown action: name one (release.yanked) or a group (release)",
          },
        ),
    ),
    actor: optional(
      z
        .string()
        .regex(/^(user|key|system|key:[A-Za-z0-9_-]{1,64})$/, "Actor must be user, key, key:<id> or system"),
    ),
    project: optional(z.string().max(64, "Project must be a project's slug")),
    from: auditTime("From"),
    to: auditTime("To"),
    cursor: optional(z.string().max(200, "Invalid cursor")),
    limit: z.coerce
      .number()
      .int()
      .min(1, "Limit must be 1 to 200")
      .max(200, "Limit must be 1 to 200")
      .default(50),
  })
  .transform(({ from, to, ...rest }) => ({
    ...rest,
    /** Entries at or after this time. */
    from: from ? new Date(from.time).toISOString() : undefined,
    /** Entries before this time: the day after a day given. */
    before: to ? new Date(to.time + (to.day ? 86_400_000 : 1)).toISOString() : undefined,
  }));
export type AuditQuery = z.output<typeof auditQuery>;
