// Request and response bodies of /api/v1 and /api/p. The server parses requests with these;
// clients parse responses with them.
import { z } from "zod";
import { filename, projectSlug, releaseVersion } from "./names.ts";
import { projectRef } from "./orgs.ts";
import { keyExpiryDays } from "./repository-settings.ts";

const optionalUrl = z
  .union([z.url({ protocol: /^https?$/, message: "Must be an http(s) URL" }).max(500), z.literal("")])
  .optional()
  .transform((v) => (v === "" ? undefined : v));

export const visibility = z.enum(["public", "private"]);

export const createProjectInput = z.object({
  slug: projectSlug,
  /** An organization's slug to create it under (its admins and owners may); else the caller's own. */
  owner: z.string().trim().optional(),
  name: z.string().trim().min(1, "Name is required").max(100, "Name must be at most 100 characters"),
  description: z.string().trim().max(2000, "Description must be at most 2000 characters").optional(),
  visibility: visibility.default("public"),
  homepage: optionalUrl,
  sourceUrl: optionalUrl,
  license: z.string().trim().max(100, "License must be at most 100 characters").optional(),
  /** The repository signing key's algorithm: RSA-3072 (default; every apt and rpm) or Ed25519. */
  keyAlgorithm: z.enum(["rsa3072", "ed25519"]).default("rsa3072"),
  /** Days its signing keys are valid for (repository settings, decision 027); none by default. */
  keyExpiryDays: keyExpiryDays.nullable().optional(),
});
export type CreateProjectInput = z.infer<typeof createProjectInput>;

export const updateProjectInput = createProjectInput
  .omit({ slug: true, keyAlgorithm: true, keyExpiryDays: true })
  .partial()
  .extend({
    visibility: visibility.optional(),
  });
export type UpdateProjectInput = z.infer<typeof updateProjectInput>;

export const fileKind = z.enum(["deb", "rpm", "archive", "binary", "signature", "checksum", "other"]);
export type FileKind = z.infer<typeof fileKind>;

export const releaseFile = z.object({
  filename: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Null for a moment after a large file is uploaded, while it is computed (decision 036). */
  sha512: z
    .string()
    .regex(/^[0-9a-f]{128}$/)
    .nullable(),
  kind: fileKind,
  contentType: z.string(),
  downloads: z.number().int().nonnegative(),
  createdAt: z.string(),
  url: z.string(),
});
export type ReleaseFile = z.infer<typeof releaseFile>;

export const release = z.object({
  id: z.string().regex(/^[A-Za-z0-9]{8}$/),
  version: z.string(),
  title: z.string().nullable(),
  notes: z.string().nullable(),
  yanked: z.boolean(),
  yankedReason: z.string().nullable(),
  yankedAt: z.string().nullable(),
  createdAt: z.string(),
  publishedAt: z.string(),
  files: z.array(releaseFile),
});
export type Release = z.infer<typeof release>;

export const releaseSummary = release.omit({ files: true, notes: true }).extend({
  fileCount: z.number().int().nonnegative(),
  downloads: z.number().int().nonnegative(),
});
export type ReleaseSummary = z.infer<typeof releaseSummary>;

export const project = z.object({
  id: z.string(),
  owner: z.string(),
  /** Whether an organization owns it (decision 040). */
  ownerKind: z.enum(["user", "organization"]),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  visibility,
  homepage: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  license: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  releaseCount: z.number().int().nonnegative(),
  downloads: z.number().int().nonnegative(),
  latestVersion: z.string().nullable(),
});
export type Project = z.infer<typeof project>;

export const createReleaseInput = z.object({
  version: releaseVersion,
  title: z.string().trim().max(200, "Title must be at most 200 characters").optional(),
  notes: z.string().max(100_000, "Notes must be at most 100000 characters").optional(),
});
export type CreateReleaseInput = z.infer<typeof createReleaseInput>;

export const updateReleaseInput = createReleaseInput.omit({ version: true });
export type UpdateReleaseInput = z.infer<typeof updateReleaseInput>;

export const yankInput = z.object({
  reason: z.string().trim().min(1, "A reason is required").max(500, "Reason must be at most 500 characters"),
});
export type YankInput = z.infer<typeof yankInput>;

export const signingKey = z.object({
  fingerprint: z.string(),
  algorithm: z.enum(["rsa3072", "ed25519"]),
  createdAt: z.string(),
  /** When it stops signing (set by a rotation); null while it is the current key. */
  retireAt: z.string().nullable(),
  /** Its OpenPGP expiry (the project's key expiry setting when it was made); null: never. */
  expiresAt: z.string().nullable(),
});
export type SigningKeyInfo = z.infer<typeof signingKey>;

export const rotateKeyInput = z.object({
  algorithm: z.enum(["rsa3072", "ed25519"]).default("rsa3072"),
  /** How long the old key keeps signing next to the new one. */
  overlapDays: z.number().int().min(0).max(365).default(7),
});
export type RotateKeyInput = z.infer<typeof rotateKeyInput>;

export const keyScope = z.object({
  /** "*" for every project, or the slugs of the chosen ones. */
  projects: z.union([z.literal("*"), z.array(z.string())]),
  access: z.enum(["read", "publish"]),
});

export const apiKeyInfo = z.object({
  id: z.string(),
  name: z.string().nullable(),
  /** The first characters of the key, to recognise it. */
  start: z.string().nullable(),
  scope: keyScope,
  lastRequest: z.string().nullable(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  expired: z.boolean(),
});
export type ApiKeyInfo = z.infer<typeof apiKeyInfo>;

export const createApiKeyInput = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(32, "Name must be at most 32 characters"),
  /** null: never expires. */
  expiresInDays: z.number().int().min(1).max(3650).nullable().default(90),
  access: z.enum(["read", "publish"]),
  projects: z
    .union([
      z.literal("*"),
      // A slug, or owner/slug for an organization's project (decision 040).
      z.array(projectRef).min(1, "Choose at least one project"),
    ])
    .default("*"),
});
export type CreateApiKeyInput = z.infer<typeof createApiKeyInput>;

export const createdApiKey = apiKeyInfo.extend({
  /** The secret, shown once. */
  key: z.string(),
});

export const me = z.object({
  user: z.object({ id: z.string(), username: z.string().nullable(), name: z.string(), email: z.string() }),
  /** How this request authenticated; a key's scope when it was a key. */
  auth: z.object({
    kind: z.enum(["session", "key"]),
    scope: keyScope.optional(),
    /** An organization's key: the organization's slug (`user` is then the organization's account). */
    organization: z.string().optional(),
  }),
});
export type Me = z.infer<typeof me>;

export const usage = z.object({
  plan: z.enum(["basic", "starter", "pro"]),
  storageBytes: z.number().int().nonnegative(),
  storageLimitBytes: z.number().int().nonnegative(),
  downloadBytesThisMonth: z.number().int().nonnegative(),
  downloadLimitBytesPerMonth: z.number().int().nonnegative(),
  downloadsThisMonth: z.number().int().nonnegative(),
  projects: z.number().int().nonnegative(),
  privateProjects: z.number().int().nonnegative(),
  releases: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usage>;

/** GET /api/p/{username}/{projectSlug}: spec §7. */
export const publicProjectResponse = z.object({
  project: project,
  releases: z.array(
    z.object({
      version: z.string(),
      yanked: z.boolean(),
      createdAt: z.string(),
      title: z.string().nullable(),
    }),
  ),
});
export type PublicProjectResponse = z.infer<typeof publicProjectResponse>;

/** GET /api/p/{username}/{projectSlug}/{version}: spec §7. */
export const publicReleaseResponse = z.object({ project: project, release: release });
export type PublicReleaseResponse = z.infer<typeof publicReleaseResponse>;

export { filename, projectSlug, releaseVersion };
