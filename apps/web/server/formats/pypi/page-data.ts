// The Python distributions of a release, for its public page: each name with its files (a
// wheel, an sdist) stored in the release (docs/pypi.md), and the project's index for pip.
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";

export interface ReleasePythonPackage {
  /** The name as its metadata writes it ("Acme_SDK"); pip takes any spelling. */
  name: string;
  version: string;
  /** The project's simple index: what `pip install --index-url` takes. */
  index: string;
  /** "bdist_wheel", "sdist": what the release holds of it. */
  packagetypes: string[];
}

/** The Python distributions stored in a project's release of `version`, by name. */
export async function releasePythonPackages(
  db: Kysely<Database>,
  baseUrl: string,
  project: { id: string; slug: string; owner: string },
  version: string,
): Promise<ReleasePythonPackage[]> {
  const rows = await db
    .selectFrom("pypi_file")
    .innerJoin("release_file", "release_file.id", "pypi_file.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select(["pypi_file.name", "pypi_file.display_name", "pypi_file.version", "pypi_file.packagetype"])
    .where("pypi_file.project_id", "=", project.id)
    .where("release.version", "=", version)
    .orderBy("pypi_file.name")
    .orderBy("pypi_file.packagetype")
    .execute();
  const index = `${baseUrl}/pypi/${project.owner}/${project.slug}/simple/`;
  const byName = new Map<string, ReleasePythonPackage>();
  for (const row of rows) {
    const found = byName.get(row.name);
    if (found) found.packagetypes.push(row.packagetype);
    else
      byName.set(row.name, {
        name: row.display_name,
        version: row.version,
        index,
        packagetypes: [row.packagetype],
      });
  }
  return [...byName.values()];
}

/** A distribution of the project's index, as its Libraries tab lists it. */
export interface ProjectPythonPackage {
  /** The normalised name (PEP 503): its page in the simple index. */
  name: string;
  displayName: string;
  versions: number;
  files: number;
  /** The newest upload's version, and what it says of Python. */
  latest: string;
  requiresPython: string | null;
  summary: string | null;
  uploadedAt: string;
  /** Whether the newest upload's release is yanked. */
  yanked: boolean;
}

/** The distributions of a project's Python index, by name, with their newest upload. */
export async function projectPythonPackages(
  db: Kysely<Database>,
  projectId: string,
): Promise<ProjectPythonPackage[]> {
  const rows = await db
    .selectFrom("pypi_file")
    .innerJoin("release_file", "release_file.id", "pypi_file.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "pypi_file.name",
      "pypi_file.display_name",
      "pypi_file.version",
      "pypi_file.requires_python",
      "pypi_file.summary",
      "pypi_file.created_at",
      "release.yanked",
    ])
    .where("pypi_file.project_id", "=", projectId)
    .orderBy("pypi_file.name")
    .orderBy("pypi_file.created_at", "desc")
    .execute();
  const byName = new Map<string, (typeof rows)[number][]>();
  for (const row of rows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  return [...byName].map(([name, files]) => {
    const newest = files[0]!;
    return {
      name,
      displayName: newest.display_name,
      versions: new Set(files.map((f) => f.version)).size,
      files: files.length,
      latest: newest.version,
      requiresPython: newest.requires_python,
      summary: newest.summary,
      uploadedAt: newest.created_at,
      yanked: Number(newest.yanked) === 1,
    };
  });
}
