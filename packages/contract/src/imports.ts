// Importers (docs/imports.md, decision 028): the request that starts an import into a project,
// and the import as the API and the dashboard show it. An import runs as a job; its progress is
// read back with GET …/imports/{id}. Credentials (a GitHub token, a repository's password) are
// accepted here and never answered with: the public shape says only whether some were given.
import { z } from "zod";
import { releaseVersion } from "./names.ts";

/** GitHub's owner/repo: its rules for user, organisation and repository names. */
const githubRepository = z
  .string()
  .trim()
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/,
    "Repository must be owner/repo, as in github.com/owner/repo",
  )
  .refine((value) => !/\/\.{1,2}$/.test(value), "Repository must be owner/repo, as in github.com/owner/repo");

const optionalSecret = (what: string) =>
  z
    .string()
    .max(1000, `${what} must be at most 1000 characters`)
    .optional()
    .transform((value) => (value === "" ? undefined : value));

const optionalText = (what: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${what} must be at most ${max} characters`)
    .optional()
    .transform((value) => (value === "" ? undefined : value));

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const repositoryUrl = z
  .string()
  .trim()
  .min(1, "Repository URL is required")
  .max(1000, "Repository URL must be at most 1000 characters")
  .refine(isHttpUrl, "Repository URL must be an http(s) URL");

/** One release named by the operator for every package; absent: one release per version. */
const namedRelease = z
  .union([releaseVersion, z.literal("")])
  .optional()
  .transform((value) => (value === "" ? undefined : value));

/** An APT suite or component: what Debian allows in a dists/ path segment. */
const aptName = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} is required`)
    .max(100, `${what} must be at most 100 characters`)
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._+~-]*(?:\/[A-Za-z0-9][A-Za-z0-9._+~-]*)*$/,
      `${what} is not a valid name`,
    );

export const githubReleasesSource = z
  .object({
    kind: z.literal("github-releases"),
    repository: githubRepository,
    /** A token that can read the repository: needed for private repositories and drafts. */
    token: optionalSecret("Token"),
    includePrereleases: z.boolean().default(true),
    includeDrafts: z.boolean().default(false),
  })
  .refine((source) => !source.includeDrafts || source.token !== undefined, {
    message: "Drafts are only visible with a token: give one, or leave drafts out",
    path: ["includeDrafts"],
  });

export const aptRepositorySource = z.object({
  kind: z.literal("apt-repository"),
  url: repositoryUrl,
  distribution: aptName("Distribution"),
  /** Components to read; absent: every component the Release file lists. */
  components: z.array(aptName("Component")).max(50, "At most 50 components").optional(),
  username: optionalText("Username", 200),
  password: optionalSecret("Password"),
  release: namedRelease,
});

export const yumRepositorySource = z.object({
  kind: z.literal("yum-repository"),
  url: repositoryUrl,
  username: optionalText("Username", 200),
  password: optionalSecret("Password"),
  release: namedRelease,
});

export const importSourceInput = z.discriminatedUnion(
  "kind",
  [githubReleasesSource, aptRepositorySource, yumRepositorySource],
  { error: "Choose what to import from: github-releases, apt-repository or yum-repository" },
);
export type ImportSourceInput = z.infer<typeof importSourceInput>;
export type ImportKind = ImportSourceInput["kind"];
export const importKinds = ["github-releases", "apt-repository", "yum-repository"] as const;

/** POST /api/v1/projects/{slug}/imports */
export const startImportInput = z.object({ source: importSourceInput });
export type StartImportInput = z.infer<typeof startImportInput>;

/** The stable codes of what can go wrong (server/imports/source.ts explains each). */
export const importErrorCode = z.enum([
  "SOURCE_NOT_FOUND",
  "SOURCE_AUTH_FAILED",
  "SOURCE_UNREACHABLE",
  "SOURCE_FORBIDDEN",
  "SOURCE_INVALID",
  "CHECKSUM_MISMATCH",
  "FILE_REFUSED",
  "SOURCE_TOO_LARGE",
  "TIMED_OUT",
  "INTERNAL_ERROR",
]);
export type ImportErrorCodeName = z.infer<typeof importErrorCode>;

export const importStatus = z.enum(["queued", "running", "succeeded", "failed", "partial"]);
export type ImportStatus = z.infer<typeof importStatus>;

/** What an import reads, without its secrets. */
export const importSourceSummary = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("github-releases"),
    repository: z.string(),
    includePrereleases: z.boolean(),
    includeDrafts: z.boolean(),
    /** Whether a token was given (it is never shown). */
    authenticated: z.boolean(),
  }),
  z.object({
    kind: z.literal("apt-repository"),
    url: z.string(),
    distribution: z.string(),
    components: z.array(z.string()).nullable(),
    release: z.string().nullable(),
    authenticated: z.boolean(),
  }),
  z.object({
    kind: z.literal("yum-repository"),
    url: z.string(),
    release: z.string().nullable(),
    authenticated: z.boolean(),
  }),
]);
export type ImportSourceSummary = z.infer<typeof importSourceSummary>;

export const importFailure = z.object({
  /** The release it concerns; null when the whole import failed (the source could not be read). */
  version: z.string().nullable(),
  code: importErrorCode,
  message: z.string(),
  /** What it is about: a file name, a URL. */
  subject: z.string().nullable(),
});
export type ImportFailure = z.infer<typeof importFailure>;

export const importProgress = z.object({
  /** Releases the source lists (after drafts and prereleases are left out); null until read. */
  releasesTotal: z.number().int().nonnegative().nullable(),
  releasesDone: z.number().int().nonnegative(),
  /** Already in the project with the same files. */
  releasesSkipped: z.number().int().nonnegative(),
  releasesFailed: z.number().int().nonnegative(),
  filesDone: z.number().int().nonnegative(),
  bytesDone: z.number().int().nonnegative(),
  /** The release being imported now. */
  current: z.string().nullable(),
});
export type ImportProgress = z.infer<typeof importProgress>;

export const importInfo = z.object({
  id: z.string(),
  kind: z.enum(importKinds),
  source: importSourceSummary,
  status: importStatus,
  progress: importProgress,
  errors: z.array(importFailure),
  /** One sentence once it ended: what was imported, skipped and failed. */
  summary: z.string().nullable(),
  /** The username of who started it. */
  startedBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type ImportInfo = z.infer<typeof importInfo>;

/** Whether an import has ended (the dashboard stops polling). */
export function importEnded(status: ImportStatus): boolean {
  return status === "succeeded" || status === "failed" || status === "partial";
}
