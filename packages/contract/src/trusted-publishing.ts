// Trusted publishing (docs/ci/, issue 40): a project names the CI workflows it trusts — a GitHub
// Actions repository, a GitLab CI project — and a job of one of them trades its OpenID Connect ID
// token for a publish token valid 15 minutes, with no Packyard secret stored in the CI. The server
// parses requests with these schemas; the dashboard, the CLI and the claim matching share them.
import { z } from "zod";

/** Every publish token got by trusted publishing starts so: told apart from API keys (pky_). */
export const PUBLISH_TOKEN_PREFIX = "pkp_";
/** How long a publish token works. */
export const PUBLISH_TOKEN_TTL_SECONDS = 15 * 60;
/** The clock difference allowed between the issuer and Packyard for exp, nbf and iat. */
export const ID_TOKEN_CLOCK_SKEW_SECONDS = 5 * 60;

export const GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
export const GITLAB_ISSUER = "https://gitlab.com";

export const TRUSTED_PUBLISHER_PROVIDERS = ["github", "gitlab"] as const;
export type TrustedPublisherProvider = (typeof TRUSTED_PUBLISHER_PROVIDERS)[number];

export const providerLabels: Record<TrustedPublisherProvider, string> = {
  github: "GitHub Actions",
  gitlab: "GitLab CI",
};

/** A project may trust at most this many publishers. */
export const MAX_TRUSTED_PUBLISHERS = 20;

const GITHUB_REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const GITLAB_PROJECT_PATH = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+$/;
const WORKFLOW_FILE = /^[A-Za-z0-9._-]+\.ya?ml$/;

const issuer = z
  .string()
  .trim()
  .max(300, "issuer must be at most 300 characters")
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === "https:" || url.protocol === "http:") &&
        !url.search &&
        !url.hash &&
        !url.username &&
        !url.password
      );
    } catch {
      return false;
    }
  }, "issuer must be an https URL such as https://gitlab.example.com, with no query or credentials")
  .transform((value) => value.replace(/\/+$/, ""));

const ref = z
  .string()
  .trim()
  .min(1, "ref: leave it out to allow every branch and tag")
  .max(200, "ref must be at most 200 characters")
  .regex(/^[^\s]+$/, "ref may not contain spaces");
const environment = z.string().trim().min(1).max(255, "environment must be at most 255 characters");

export const createTrustedPublisherInput = z.discriminatedUnion("provider", [
  z
    .object({
      provider: z.literal("github"),
      /** GitHub Enterprise Server's issuer; github.com's by default. */
      issuer: issuer.optional(),
      repository: z
        .string()
        .trim()
        .regex(GITHUB_REPOSITORY, "repository must be the GitHub repository as owner/name"),
      workflow: z
        .string()
        .trim()
        .regex(WORKFLOW_FILE, "workflow must be the workflow's file name, such as release.yml")
        .optional(),
      environment: environment.optional(),
      ref: ref.optional(),
    })
    .strict(),
  z
    .object({
      provider: z.literal("gitlab"),
      /** A self-managed GitLab's URL; gitlab.com's by default. */
      issuer: issuer.optional(),
      projectPath: z
        .string()
        .trim()
        .max(255, "projectPath must be at most 255 characters")
        .regex(GITLAB_PROJECT_PATH, "projectPath must be the GitLab project's path, such as group/project"),
      environment: environment.optional(),
      ref: ref.optional(),
    })
    .strict(),
]);
export type CreateTrustedPublisherInput = z.infer<typeof createTrustedPublisherInput>;

export const trustedPublisherSummary = z.object({
  id: z.string(),
  provider: z.enum(TRUSTED_PUBLISHER_PROVIDERS),
  issuer: z.string(),
  /** GitHub's owner/name, or GitLab's project path. */
  repository: z.string(),
  workflow: z.string().nullable(),
  environment: z.string().nullable(),
  ref: z.string().nullable(),
  createdAt: z.string(),
  /** The last token exchange it granted. */
  lastUsedAt: z.string().nullable(),
});
export type TrustedPublisherSummary = z.infer<typeof trustedPublisherSummary>;

export const exchangeIdTokenInput = z
  .object({
    token: z.string().min(1, "token is required: the CI's OpenID Connect ID token").max(16_384),
    /**
     * Only the projects of this account (a username or an organization's slug): needed when the
     * repository is trusted by projects of several accounts.
     */
    owner: z.string().trim().min(1).max(100).optional(),
  })
  .strict();
export type ExchangeIdTokenInput = z.infer<typeof exchangeIdTokenInput>;

export const exchangeIdTokenAnswer = z.object({
  token: z.string(),
  expiresAt: z.string(),
  /** The projects the token publishes to, as owner/slug. */
  projects: z.array(z.string()),
});
export type ExchangeIdTokenAnswer = z.infer<typeof exchangeIdTokenAnswer>;

/** The issuer a publisher's tokens come from: its own, or its provider's public one. */
export function issuerOf(input: { provider: TrustedPublisherProvider; issuer?: string | null }): string {
  return input.issuer || (input.provider === "github" ? GITHUB_ISSUER : GITLAB_ISSUER);
}

/** "GitHub Actions octo/app (release.yml, environment release, ref refs/tags/v*)". */
export function describeTrustedPublisher(
  p: Pick<TrustedPublisherSummary, "provider" | "repository" | "workflow" | "environment" | "ref">,
): string {
  const conditions = [
    p.workflow,
    p.environment ? `environment ${p.environment}` : null,
    p.ref ? `ref ${p.ref}` : null,
  ].filter((c): c is string => Boolean(c));
  return `${providerLabels[p.provider]} ${p.repository}${conditions.length ? ` (${conditions.join(", ")})` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Matching a verified ID token's claims against a publisher.

/** The claims Packyard reads, as GitHub and GitLab name them. */
export interface CiClaims {
  iss: string;
  /** GitHub: owner/name. */
  repository?: string;
  /** GitHub: "owner/name/.github/workflows/release.yml@refs/tags/v1.0". */
  workflow_ref?: string;
  /** GitHub: refs/heads/main, refs/tags/v1; GitLab: main, v1 (with ref_type). */
  ref?: string;
  /** GitLab: "branch" or "tag". */
  ref_type?: string;
  /** GitLab: group/project. */
  project_path?: string;
  environment?: string;
}

/** The full ref a claim set names: refs/heads/… or refs/tags/…, whichever provider. */
export function fullRef(claims: CiClaims): string | null {
  const value = claims.ref;
  if (!value) return null;
  if (value.startsWith("refs/")) return value;
  if (claims.ref_type === "tag") return `refs/tags/${value}`;
  if (claims.ref_type === "branch") return `refs/heads/${value}`;
  return null;
}

/**
 * Whether a ref pattern allows the ref: `*` stands for any characters, `/` included. A pattern
 * starting with refs/ is matched against the full ref (refs/tags/v1.2.0); any other against the
 * branch's or tag's own name (v1.2.0, main).
 */
export function refMatches(pattern: string, claims: CiClaims): boolean {
  const full = fullRef(claims);
  if (!full) return false;
  const subject = pattern.startsWith("refs/") ? full : full.replace(/^refs\/(?:heads|tags)\//, "");
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(subject);
}

/** The workflow file a GitHub token's workflow_ref names ("release.yml"), or null. */
export function workflowFile(claims: CiClaims): string | null {
  const match = /\/\.github\/workflows\/([^@/]+)@/.exec(claims.workflow_ref ?? "");
  return match ? match[1]! : null;
}

type PublisherFields = Pick<
  TrustedPublisherSummary,
  "provider" | "repository" | "workflow" | "environment" | "ref"
> & {
  issuer: string;
};

/** The repository the claims come from, as a publisher names it (GitHub's or GitLab's). */
export function claimedRepository(provider: TrustedPublisherProvider, claims: CiClaims): string | undefined {
  return provider === "github" ? claims.repository : claims.project_path;
}

/**
 * Why the claims do not match the publisher, or null when they do. Repositories and paths are
 * and environments compared without regard to case (GitHub and GitLab treat them so); the
 * workflow's file name and the ref exactly.
 */
export function mismatch(publisher: PublisherFields, claims: CiClaims): string | null {
  if (claims.iss.replace(/\/+$/, "") !== publisher.issuer) return "issuer";
  const repository = claimedRepository(publisher.provider, claims);
  if (!repository || repository.toLowerCase() !== publisher.repository.toLowerCase())
    return publisher.provider === "github" ? "repository" : "projectPath";
  if (publisher.workflow && workflowFile(claims) !== publisher.workflow) return "workflow";
  if (publisher.environment && claims.environment?.toLowerCase() !== publisher.environment.toLowerCase())
    return "environment";
  if (publisher.ref && !refMatches(publisher.ref, claims)) return "ref";
  return null;
}
