// Table types for Kysely. better-auth owns user/session/account/verification; the columns
// Packyard reads from them are declared here too so queries stay typed.
import type { Generated } from "kysely";

export interface UserTable {
  id: string;
  email: string;
  name: string;
  image: string | null;
  emailVerified: number | boolean;
  username: string | null;
  createdAt: string | Date;
  updatedAt: string | Date;
}

/** Postgres returns bigint columns as strings; SQLite as numbers. Read them with Number(). */
type BigIntColumn = number | string | bigint;

export interface ProjectTable {
  id: string;
  owner_id: string;
  slug: string;
  name: string;
  description: string | null;
  visibility: "public" | "private";
  homepage: string | null;
  source_url: string | null;
  license: string | null;
  created_at: string;
  updated_at: string;
  /** Bumped with every change to the packages the project's repositories list. */
  index_revision: Generated<number>;
  /** The index_revision the project's repositories were last published from. */
  published_revision: Generated<number>;
  /** The Label of its APT Release files, fixed when its owner's username changed; NULL: "{username}/{slug}". */
  apt_label: Generated<string | null>;
  /** Days new signing keys are valid for; null: they never expire. */
  key_expiry_days: Generated<number | null>;
  /** APT Release files carry Valid-Until = Date + this many days; null: no Valid-Until. */
  apt_valid_until_days: Generated<number | null>;
  /** Origin of its APT Release files; null: "Packyard". */
  apt_origin: Generated<string | null>;
  /** Codename of its default APT suite; null: the suite's name. */
  apt_codename: Generated<string | null>;
  /** Fingerprints (space-separated) of the keys that signed its last publish; null: never published. */
  signed_by: Generated<string | null>;
}

/** Which release a change to the listed packages touched, per project revision. */
export interface PackageIndexChangeTable {
  project_id: string;
  revision: number;
  release_id: string;
  /** When the change was made (migration 0022); null for older rows. */
  changed_at: string | null;
}

export interface ReleaseTable {
  id: string;
  project_id: string;
  version: string;
  title: string | null;
  notes: string | null;
  yanked: Generated<number>;
  yanked_reason: string | null;
  yanked_at: string | null;
  created_at: string;
  published_at: string;
}

export interface BlobTable {
  sha256: string;
  size: BigIntColumn;
  created_at: string;
  /** When a sweep first found no file referring to it; NULL: referenced (decision 022). */
  unreferenced_since: Generated<string | null>;
}

/** An index file in the index store, touched by every build that stores or reuses it (decision 022). */
export interface IndexBlobTable {
  sha256: string;
  size: BigIntColumn;
  touched_at: string;
}

export interface ReleaseFileTable {
  id: string;
  release_id: string;
  filename: string;
  size: BigIntColumn;
  sha256: string;
  sha512: string;
  md5: string;
  sha1: string;
  kind: string;
  content_type: string;
  download_count: Generated<BigIntColumn>;
  created_at: string;
}

export interface DownloadMonthTable {
  owner_id: string;
  month: string;
  downloads: Generated<BigIntColumn>;
  bytes: Generated<BigIntColumn>;
  /** The download-allowance warning mailed for the month: 0 none, 80 or 100 (usage.ts). */
  notified_percent: Generated<number>;
}

/** Downloads of a release file per UTC day, client kind and distribution (stats/, decision 033). */
export interface DownloadStatTable {
  project_id: string;
  file_id: string;
  version: string;
  filename: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** A ClientKind of @packyard/contract/stats.ts. */
  client: string;
  /** The APT suite, the dnf client's distribution or the YUM group; '' when not known. */
  distribution: string;
  downloads: BigIntColumn;
  bytes: BigIntColumn;
}

export interface SigningKeyTable {
  id: string;
  project_id: string;
  generation: number;
  algorithm: string;
  fingerprint: string;
  public_key: string;
  private_key: string;
  created_at: string;
  retire_at: string | null;
  /** The key's OpenPGP expiry; null: it never expires. */
  expires_at: Generated<string | null>;
  /** When the owner was mailed that the key expires within 30 days, and within 7. */
  notice_30_at: Generated<string | null>;
  notice_7_at: Generated<string | null>;
}

export interface DebPackageTable {
  file_id: string;
  project_id: string;
  suite: string;
  component: string;
  name: string;
  version: string;
  architecture: string;
  pool_path: string;
  stanza: string;
}

export interface RepoGenerationTable {
  id: string;
  project_id: string;
  format: "apt" | "yum";
  name: string;
  number: number;
  created_at: string;
}

export interface RepoIndexFileTable {
  generation_id: string;
  path: string;
  sha256: string;
  sha512: string;
  size: BigIntColumn;
}

export interface YumPackageTable {
  file_id: string;
  project_id: string;
  repo_group: string;
  name: string;
  epoch: number;
  version: string;
  release: string;
  arch: string;
  location: string;
  primary_xml: string;
  filelists_xml: string;
  other_xml: string;
  /** The fingerprint of the key whose signature the stored file carries; null: not recorded. */
  signed_by: Generated<string | null>;
}

/** better-auth's api-key plugin table (camelCase columns); Packyard reads and deletes rows by owner. */
export interface ApiKeyTable {
  id: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  referenceId: string;
  permissions: string | null;
  /** false (0 on SQLite): the key is refused. */
  enabled: boolean | number;
  lastRequest: string | Date | null;
  expiresAt: string | Date | null;
  createdAt: string | Date;
}

/** A contact form message; mailed_at is empty until CONTACT_EMAIL accepted it. */
export interface ContactMessageTable {
  id: string;
  type: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  client_address: string;
  created_at: string;
  mailed_at: string | null;
  mail_attempts: Generated<number>;
  mail_error: string | null;
}

/** A user's former username, held for them and redirecting to them for a while (usernames.ts). */
export interface UsernameHistoryTable {
  /** The name lowercased: names are unique whatever their case. */
  name_key: string;
  username: string;
  user_id: string;
  released_at: string;
}

/** An import into a project (server/imports/store.ts): JSON columns are text on both databases. */
export interface ImportTable {
  id: string;
  project_id: string;
  started_by: string | null;
  kind: string;
  /** The source settings without secrets, JSON. */
  source: string;
  /** The secrets (token, password), JSON sealed with the server secret; null when none. */
  credentials: string | null;
  status: string;
  /** JSON: ImportProgress. */
  progress: string;
  /** JSON: ImportFailure[]. */
  errors: string;
  summary: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Times its job has started (migration 0029); bounded across restarts. */
  attempts: Generated<number>;
}

/** One audit-log entry (server/audit/record.ts); details is JSON text on both databases. */
export interface AuditEventTable {
  id: string;
  owner_id: string;
  project_id: string | null;
  project_slug: string | null;
  actor_kind: "user" | "key" | "system";
  actor_user_id: string | null;
  actor_username: string | null;
  actor_key_id: string | null;
  actor_key_name: string | null;
  actor_key_start: string | null;
  action: string;
  target: string | null;
  details: string;
  address: string | null;
  created_at: string;
}

/** A project's webhook (server/webhooks, migration 0022). */
export interface WebhookTable {
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  /** JSON array of event names. */
  events: string;
  /** The signing secret, sealed with the server secret. */
  secret: string;
  active: number;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  /** Attempts in a row that got no answer (migration 0030). */
  consecutive_timeouts: Generated<number>;
  /** Deliveries wait until then: the receiver stopped answering. */
  paused_until: string | null;
  /** The attempt in flight for this webhook, on any server. */
  attempt_claimed_at: string | null;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event: string;
  body: string;
  state: "pending" | "sending" | "delivered" | "failed";
  attempts: Generated<number>;
  next_attempt_at: string | null;
  claimed_at: string | null;
  redelivery_of: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  status: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** Retention rules of a project (decision 034); booleans as 0/1. */
export interface RetentionPolicyTable {
  project_id: string;
  enabled: number;
  keep_releases: number;
  keep_newest_per_major: number;
  min_age_days: number;
  count_yanked: number;
  /** 1: the rules may delete the release `latest` resolves to (migration 0031, decision 064). */
  delete_latest: number;
  /** Container image tags kept per image; null: no rule (migration 0038). */
  keep_image_tags: number | null;
  updated_at: string;
  last_run_at: string | null;
  /** JSON array of the versions the last run deleted. */
  last_run_removed: string | null;
}

/** An organization (decision 040): `id` is also its owner account's row in `user`. */
export interface OrganizationTable {
  id: string;
  slug: string;
  name: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** 1: its members reach its projects only through a session from its provider (docs/sso.md). */
  sso_enforced: Generated<number>;
  /** The role single sign-on and SCIM give a new member no group maps. */
  sso_default_role: Generated<"owner" | "admin" | "publisher" | "viewer">;
  /** JSON: IdP group name → role. */
  sso_group_roles: Generated<string>;
}

/** An identity provider of an organization: better-auth's SSO plugin's table (decision 088). */
export interface SsoProviderTable {
  id: string;
  issuer: string;
  oidcConfig: string | null;
  samlConfig: string | null;
  userId: string | null;
  providerId: string;
  organizationId: string | null;
  domain: string;
  domainVerified: number | boolean | null;
}

/** A SCIM bearer token (orgs/scim/): its SHA-256, never the token. */
export interface ScimTokenTable {
  id: string;
  org_id: string;
  token_hash: string;
  token_start: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** A user an organization's identity provider provisions through SCIM. */
export interface ScimUserTable {
  id: string;
  org_id: string;
  user_id: string;
  user_name: string;
  external_id: string | null;
  display_name: string | null;
  given_name: string | null;
  family_name: string | null;
  active: number;
  created_at: string;
  updated_at: string;
}

export interface ScimGroupTable {
  id: string;
  org_id: string;
  display_name: string;
  external_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A domain an organization claims (docs/sso.md), verified by a DNS TXT record. */
export interface OrgDomainTable {
  id: string;
  org_id: string;
  domain: string;
  /** The TXT record's value after its prefix: DOMAIN_VERIFICATION_PREFIX + token. */
  token: string;
  created_at: string;
  verified_at: string | null;
  /** The domain once verified, else null: unique, so one organization holds a domain. */
  verified_domain: string | null;
}

export interface OrgMemberTable {
  org_id: string;
  user_id: string;
  role: "owner" | "admin" | "publisher" | "viewer";
  created_at: string;
}

export interface OrgInvitationTable {
  id: string;
  org_id: string;
  email: string;
  role: "owner" | "admin" | "publisher" | "viewer";
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

/** A project moved to another owner: the old owner's URLs redirect (decision 040). */
export interface ProjectTransferTable {
  id: string;
  project_id: string;
  from_owner_id: string;
  slug: string;
  transferred_at: string;
}

/** A CI workflow a project trusts to publish (server/trusted-publishing, migration 0034). */
export interface TrustedPublisherTable {
  id: string;
  project_id: string;
  provider: "github" | "gitlab";
  issuer: string;
  /** GitHub's owner/name or GitLab's project path, lowercased. */
  repository: string;
  workflow: string | null;
  environment: string | null;
  ref: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** A publish token granted by trusted publishing: 15 minutes, chosen projects of one account. */
export interface PublishTokenTable {
  id: string;
  token_hash: string;
  token_start: string;
  owner_id: string;
  /** JSON list of project ids. */
  projects: string;
  /** The publisher that earned it, as the audit log names the actor. */
  publisher: string;
  /** JSON of the CI's claims (issuer, repository, workflow, ref, sha, run): a package's provenance. */
  claims: string | null;
  expires_at: string;
  created_at: string;
}

/** An entitlement token (server/entitlements, migration 0033). */
export interface EntitlementTable {
  id: string;
  owner_id: string;
  /** Made under an organization's /entitlements, reading the projects it lists. */
  org_wide: Generated<number>;
  name: string;
  note: string | null;
  enabled: Generated<number>;
  token_hash: string;
  token_start: string;
  previous_token_hash: string | null;
  previous_valid_until: string | null;
  valid_from: string | null;
  valid_until: string | null;
  max_downloads: BigIntColumn | null;
  max_bytes_per_month: BigIntColumn | null;
  /** JSON arrays; null: every one. */
  suites: string | null;
  groups: string | null;
  version_range: string | null;
  downloads: Generated<BigIntColumn>;
  /** The UTC month month_bytes counts ("2026-12"). */
  month: string | null;
  month_bytes: Generated<BigIntColumn>;
  last_used_at: string | null;
  last_used_address: string | null;
  last_used_client: string | null;
  created_at: string;
  updated_at: string;
}

export interface EntitlementUsageTable {
  entitlement_id: string;
  day: string;
  downloads: Generated<BigIntColumn>;
  installs: Generated<BigIntColumn>;
  bytes: Generated<BigIntColumn>;
  /** Distinct machines that day (counted as entitlement_machine rows are first inserted). */
  machines: Generated<BigIntColumn>;
}

/**
 * A machine (machines.ts: a hash of address and client under the day's salt) that installed or
 * downloaded one of a project's files on a UTC day; deleted once the day is over (forget.ts).
 */
export interface DownloadMachineTable {
  project_id: string;
  day: string;
  machine: string;
  /** The machine's ClientKind (its hash includes the User-Agent, so one kind). */
  client: string;
}

/** Distinct machines per project, UTC day and kind of client: what stays of the hashes. */
export interface DownloadMachineDayTable {
  project_id: string;
  day: string;
  client: string;
  machines: BigIntColumn;
}

/** An image of a project (migration 0036): "" is the default one, {owner}/{project}. */
export interface OciRepositoryTable {
  id: string;
  project_id: string;
  name: string;
  created_at: string;
}

export interface OciManifestTable {
  repository_id: string;
  sha256: string;
  media_type: string;
  artifact_type: string | null;
  size: BigIntColumn;
  /** The sha256 of the manifest this one refers to (the referrers API). */
  subject: string | null;
  /** JSON of the manifest's annotations, for the referrers API. */
  annotations: string | null;
  pushed_by: string | null;
  created_at: string;
}

export interface OciTagTable {
  repository_id: string;
  name: string;
  sha256: string;
  pushed_by: string | null;
  updated_at: string;
}

export interface OciUploadTable {
  id: string;
  repository_id: string;
  /** JSON list of the chunks received: [{ sha256, size }]. */
  chunks: string;
  size: BigIntColumn;
  created_at: string;
  updated_at: string;
}

/** An npm package's version (formats/npm): a file of the Packyard release of the same version. */
export interface NpmVersionTable {
  /** The release file holding the tarball (release_file.id). */
  file_id: string;
  project_id: string;
  /** The package's name, scope included ("@acme/sdk"). */
  name: string;
  version: string;
  /** JSON: the version's manifest as the packument serves it (package.json and what npm adds). */
  manifest: string;
  /** "sha512-…" of the tarball, as npm checks it. */
  integrity: string;
  /** The tarball's sha1, hex (npm's `shasum`). */
  shasum: string;
  deprecated: string | null;
  /** JSON: the CI claims of a trusted-publishing token (repository, workflow, ref, sha, run). */
  provenance: string | null;
  published_by: string | null;
  created_at: string;
}

/** A Python distribution file (formats/pypi): a file of the Packyard release of its version. */
export interface PypiFileTable {
  file_id: string;
  project_id: string;
  /** The distribution's name, normalised as PEP 503 says ("acme-sdk"). */
  name: string;
  /** The name as its metadata writes it ("Acme_SDK"). */
  display_name: string;
  version: string;
  filename: string;
  /** "bdist_wheel" or "sdist". */
  packagetype: string;
  requires_python: string | null;
  summary: string | null;
  /** A wheel's METADATA (PEP 658), and its sha256; null for an sdist. */
  metadata: string | null;
  metadata_sha256: string | null;
  created_at: string;
}

export interface Database {
  npm_version: NpmVersionTable;
  npm_dist_tag: { project_id: string; name: string; tag: string; version: string; updated_at: string };
  /** Versions once unpublished: never published again (npm's rule). */
  npm_unpublished: { project_id: string; name: string; version: string; unpublished_at: string };
  pypi_file: PypiFileTable;
  oci_repository: OciRepositoryTable;
  oci_blob: { repository_id: string; sha256: string; size: BigIntColumn; created_at: string };
  oci_manifest: OciManifestTable;
  oci_manifest_ref: {
    repository_id: string;
    manifest: string;
    sha256: string;
    kind: "blob" | "manifest";
    /** An index's child: its platform ("linux/arm64/v8"). */
    platform: string | null;
  };
  oci_pull_day: { repository_id: string; day: string; tag: string; platform: string; pulls: BigIntColumn };
  oci_tag: OciTagTable;
  oci_upload: OciUploadTable;
  entitlement: EntitlementTable;
  entitlement_project: { entitlement_id: string; project_id: string };
  entitlement_usage: EntitlementUsageTable;
  entitlement_machine: { entitlement_id: string; day: string; machine: string };
  trusted_publisher: TrustedPublisherTable;
  oidc_token_seen: { issuer: string; jti: string; expires_at: string };
  publish_token: PublishTokenTable;
  organization: OrganizationTable;
  org_domain: OrgDomainTable;
  ssoProvider: SsoProviderTable;
  session: {
    id: string;
    userId: string;
    token: string;
    expiresAt: string | Date;
    ssoOrganizationId: string | null;
  };
  scim_token: ScimTokenTable;
  scim_user: ScimUserTable;
  scim_group: ScimGroupTable;
  scim_group_member: { group_id: string; scim_user_id: string };
  org_member: OrgMemberTable;
  org_invitation: OrgInvitationTable;
  project_transfer: ProjectTransferTable;
  retention_policy: RetentionPolicyTable;
  audit_event: AuditEventTable;
  webhook: WebhookTable;
  webhook_delivery: WebhookDeliveryTable;
  webhook_attempt: WebhookAttemptTable;
  import: ImportTable;
  apikey: ApiKeyTable;
  yum_package: YumPackageTable;
  signing_key: SigningKeyTable;
  deb_package: DebPackageTable;
  package_index_change: PackageIndexChangeTable;
  repo_generation: RepoGenerationTable;
  repo_index_file: RepoIndexFileTable;
  index_blob: IndexBlobTable;
  user: UserTable;
  project: ProjectTable;
  release: ReleaseTable;
  blob: BlobTable;
  release_file: ReleaseFileTable;
  download_month: DownloadMonthTable;
  download_stat: DownloadStatTable;
  download_machine: DownloadMachineTable;
  download_machine_day: DownloadMachineDayTable;
  contact_message: ContactMessageTable;
  username_history: UsernameHistoryTable;
  released_username: { name_key: string; username: string; released_at: string };
  /** Scale mode: the generation of repomd.xml last served to a client address (formats/yum/entry-pins.ts). */
  yum_entry_pin: {
    client_key: string;
    repository: string;
    generation_id: string;
    number: BigIntColumn;
    /** ms since the epoch */
    pinned_at: BigIntColumn;
  };
  packyard_meta: { key: string; value: string; updated_at: Generated<string> };
}
