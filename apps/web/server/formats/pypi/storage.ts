// The index's rows (migration 0039): one `pypi_file` per Python distribution file uploaded
// through the index, beside its release file (deleted with it). What the simple pages list is
// read from here, joined with the release file (size, sha256) and its release (version, yank).
import type { Kysely } from "kysely";
import type { Tx } from "../../platform/core/use-case.ts";
import type { Database, PypiFileTable } from "../../platform/db/schema.ts";

type Db = Kysely<Database>;

export async function insertPythonFile(tx: Tx, row: PypiFileTable): Promise<void> {
  await tx.insertInto("pypi_file").values(row).execute();
}

/** The project's distributions: normalised name and the name the newest file's metadata gives. */
export async function listDistributions(
  db: Db,
  projectId: string,
): Promise<{ name: string; displayName: string }[]> {
  const rows = await db
    .selectFrom("pypi_file")
    .select(["name", "display_name", "created_at"])
    .where("project_id", "=", projectId)
    .orderBy("name")
    .orderBy("created_at", "desc")
    .execute();
  const byName = new Map<string, string>();
  for (const row of rows) if (!byName.has(row.name)) byName.set(row.name, row.display_name);
  return [...byName].map(([name, displayName]) => ({ name, displayName }));
}

export interface DistributionFileRow {
  filename: string;
  version: string;
  size: number;
  sha256: string;
  createdAt: string;
  requiresPython: string | null;
  metadataSha256: string | null;
  /** The reason its release was yanked; undefined when it was not. */
  yankedReason: string | undefined;
}

/** A distribution's files (by its normalised name), oldest first. */
export async function distributionFiles(
  db: Db,
  projectId: string,
  name: string,
): Promise<DistributionFileRow[]> {
  const rows = await db
    .selectFrom("pypi_file")
    .innerJoin("release_file", "release_file.id", "pypi_file.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select([
      "pypi_file.filename",
      "release.version",
      "release_file.size",
      "release_file.sha256",
      "pypi_file.created_at",
      "pypi_file.requires_python",
      "pypi_file.metadata_sha256",
      "release.yanked",
      "release.yanked_reason",
    ])
    .where("pypi_file.project_id", "=", projectId)
    .where("pypi_file.name", "=", name)
    .orderBy("pypi_file.created_at")
    .orderBy("pypi_file.filename")
    .execute();
  return rows.map((row) => ({
    filename: row.filename,
    version: row.version,
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: row.created_at,
    requiresPython: row.requires_python,
    metadataSha256: row.metadata_sha256,
    yankedReason: Number(row.yanked) === 1 ? (row.yanked_reason ?? "") : undefined,
  }));
}

/** A wheel's METADATA (PEP 658), by its release's version and its filename; undefined: none. */
export async function wheelMetadata(
  db: Db,
  projectId: string,
  version: string,
  filename: string,
): Promise<{ metadata: string; sha256: string } | undefined> {
  const row = await db
    .selectFrom("pypi_file")
    .innerJoin("release_file", "release_file.id", "pypi_file.file_id")
    .innerJoin("release", "release.id", "release_file.release_id")
    .select(["pypi_file.metadata", "pypi_file.metadata_sha256"])
    .where("pypi_file.project_id", "=", projectId)
    .where("pypi_file.filename", "=", filename)
    .where("release.version", "=", version)
    .executeTakeFirst();
  return row?.metadata != null && row.metadata_sha256 != null
    ? { metadata: row.metadata, sha256: row.metadata_sha256 }
    : undefined;
}
