// The npm packages of a release, for its public page: each version stored as a file of the
// release (docs/npm.md), the install line for it and, when it came through trusted publishing,
// where it was built (its provenance: the CI's claims kept with the version).
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

/** Where a CI-published version was built, as the release page links it. */
export interface Provenance {
  /** "acme/sdk" (GitHub) or "group/project" (GitLab). */
  repository: string;
  /** The workflow file or pipeline that ran ("release.yml"). */
  workflow?: string;
  ref?: string;
  /** The commit, in full. */
  sha?: string;
  /** The run's page on the CI, when the claims say which run it was. */
  runUrl?: string;
  /** The commit's page. */
  commitUrl?: string;
}

export interface ReleaseNpmPackage {
  name: string;
  version: string;
  /** The project's registry: what .npmrc names. */
  registry: string;
  deprecated: string | null;
  provenance: Provenance | null;
}

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The provenance a version's stored claims describe (GitHub Actions or GitLab CI); null when none. */
export function provenanceOf(claimsJson: string | null): Provenance | null {
  if (!claimsJson) return null;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(claimsJson) as Record<string, unknown>;
  } catch {
    return null;
  }
  const iss = text(claims.iss) ?? "";
  const sha = text(claims.sha);
  const ref = text(claims.ref);
  if (iss === "https://token.actions.githubusercontent.com" || text(claims.workflow_ref)) {
    const repository = text(claims.repository);
    if (!repository) return null;
    // workflow_ref: "acme/sdk/.github/workflows/release.yml@refs/tags/v1.2.0".
    const workflow = text(claims.workflow_ref)
      ?.replace(/^.*\/\.github\/workflows\//, "")
      .replace(/@.*$/, "");
    const runId = text(claims.run_id);
    const site = "https://github.com";
    return {
      repository,
      ...(workflow ? { workflow } : {}),
      ...(ref ? { ref } : {}),
      ...(sha ? { sha, commitUrl: `${site}/${repository}/commit/${sha}` } : {}),
      ...(runId ? { runUrl: `${site}/${repository}/actions/runs/${runId}` } : {}),
    };
  }
  const repository = text(claims.project_path);
  if (!repository) return null;
  let site: string | undefined;
  try {
    site = new URL(iss).origin;
  } catch {
    site = undefined;
  }
  const pipeline =
    text(claims.pipeline_id) ??
    (typeof claims.pipeline_id === "number" ? String(claims.pipeline_id) : undefined);
  return {
    repository,
    ...(text(claims.ci_config_ref_uri)
      ? { workflow: text(claims.ci_config_ref_uri)!.replace(/@.*$/, "").replace(/^.*\//, "") }
      : {}),
    ...(ref ? { ref } : {}),
    ...(sha ? { sha, ...(site ? { commitUrl: `${site}/${repository}/-/commit/${sha}` } : {}) } : {}),
    ...(site && pipeline ? { runUrl: `${site}/${repository}/-/pipelines/${pipeline}` } : {}),
  };
}

/** The npm packages stored in a project's release of `version`, by name. */
export async function releaseNpmPackages(
  db: Kysely<Database>,
  baseUrl: string,
  project: { id: string; slug: string; owner: string },
  version: string,
): Promise<ReleaseNpmPackage[]> {
  const rows = await db
    .selectFrom("npm_version")
    .select(["name", "version", "deprecated", "provenance"])
    .where("project_id", "=", project.id)
    .where("version", "=", version)
    .orderBy("name")
    .execute();
  const registry = `${baseUrl}/npm/${project.owner}/${project.slug}/`;
  return rows.map((row) => ({
    name: row.name,
    version: row.version,
    registry,
    deprecated: row.deprecated,
    provenance: provenanceOf(row.provenance),
  }));
}

/** A package of the project's registry, as its Libraries tab lists it. */
export interface ProjectNpmPackage {
  name: string;
  versions: number;
  /** The version `latest` names (when it still exists), else the newest published. */
  latest: string;
  tags: { tag: string; version: string }[];
  publishedAt: string;
  publishedBy: string | null;
  deprecated: string | null;
  provenance: Provenance | null;
}

/** The packages of a project's npm registry, by name, each with its newest version's details. */
export async function projectNpmPackages(
  db: Kysely<Database>,
  projectId: string,
): Promise<ProjectNpmPackage[]> {
  const [rows, tags] = await Promise.all([
    db
      .selectFrom("npm_version")
      .select(["name", "version", "created_at", "published_by", "deprecated", "provenance"])
      .where("project_id", "=", projectId)
      .orderBy("name")
      .orderBy("created_at", "desc")
      .execute(),
    db
      .selectFrom("npm_dist_tag")
      .select(["name", "tag", "version"])
      .where("project_id", "=", projectId)
      .orderBy("tag")
      .execute(),
  ]);
  const byName = new Map<string, (typeof rows)[number][]>();
  for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  return [...byName].map(([name, versions]) => {
    const present = new Set(versions.map((v) => v.version));
    const named = tags.filter((t) => t.name === name && present.has(t.version));
    const latestTag = named.find((t) => t.tag === "latest")?.version;
    const latest = versions.find((v) => v.version === latestTag) ?? versions[0]!;
    return {
      name,
      versions: versions.length,
      latest: latest.version,
      tags: named.map(({ tag, version }) => ({ tag, version })),
      publishedAt: latest.created_at,
      publishedBy: latest.published_by,
      deprecated: latest.deprecated,
      provenance: provenanceOf(latest.provenance),
    };
  });
}
