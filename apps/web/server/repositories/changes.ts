// The log of changes to the packages a project's repositories list. Each change — a package
// uploaded, a file or release deleted, a release yanked or unyanked — is recorded inside the
// transaction that makes it: the project's index_revision goes up by one and the new revision
// names the release touched. Publishers keep the package list in memory as of a revision and
// re-read only the releases named since (repositories/package-sets.ts).
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../platform/db/schema.ts";

/** Changes kept per project; a publisher further behind than this reloads everything. */
export const PACKAGE_INDEX_CHANGES_KEPT = 1024;

/**
 * Records that `releaseId`'s packages changed; call inside the transaction making the change.
 * `updatedAt`: the project's updated_at is set in the same statement (an upload's).
 */
export async function recordPackageIndexChange(
  tx: Transaction<Database>,
  projectId: string,
  releaseId: string,
  updatedAt?: string,
): Promise<number> {
  // The row lock this update takes orders concurrent changes: revisions follow commit order.
  const { index_revision: revision } = await tx
    .updateTable("project")
    .set((eb) => ({
      index_revision: eb("index_revision", "+", 1),
      ...(updatedAt ? { updated_at: updatedAt } : {}),
    }))
    .where("id", "=", projectId)
    .returning("index_revision")
    .executeTakeFirstOrThrow();
  await tx
    .insertInto("package_index_change")
    .values({ project_id: projectId, revision, release_id: releaseId, changed_at: new Date().toISOString() })
    .execute();
  if (revision % 64 === 0) {
    await tx
      .deleteFrom("package_index_change")
      .where("project_id", "=", projectId)
      .where("revision", "<=", revision - PACKAGE_INDEX_CHANGES_KEPT)
      .execute();
  }
  return revision;
}

export type PackageIndexDelta =
  | { revision: number; kind: "unchanged" }
  | { revision: number; kind: "releases"; releaseIds: string[] }
  /** Too far behind (or the project is gone): read everything again. */
  | { revision: number; kind: "reload" };

/**
 * What changed in the project's listed packages since revision `since` (undefined: nothing is
 * known yet), as of the revision returned. Rows read after this call may already include later
 * changes; those releases are named again next time, and reading a release twice is harmless.
 */
export async function packageIndexChangesSince(
  db: Kysely<Database>,
  projectId: string,
  since: number | undefined,
): Promise<PackageIndexDelta> {
  const project = await db
    .selectFrom("project")
    .select("index_revision")
    .where("id", "=", projectId)
    .executeTakeFirst();
  if (!project) return { revision: 0, kind: "reload" };
  const revision = Number(project.index_revision);
  if (since === undefined) return { revision, kind: "reload" };
  if (revision === since) return { revision, kind: "unchanged" };
  if (revision < since || revision - since >= PACKAGE_INDEX_CHANGES_KEPT) return { revision, kind: "reload" };
  const rows = await db
    .selectFrom("package_index_change")
    .select("release_id")
    .where("project_id", "=", projectId)
    .where("revision", ">", since)
    .where("revision", "<=", revision)
    .execute();
  // Pruning keeps the last PACKAGE_INDEX_CHANGES_KEPT; anything missing means reload.
  if (rows.length !== revision - since) return { revision, kind: "reload" };
  return { revision, kind: "releases", releaseIds: [...new Set(rows.map((r) => r.release_id))] };
}
