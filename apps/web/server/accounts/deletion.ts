// What deleting an account removes besides better-auth's own rows (user, sessions, linked
// accounts, the two-factor secret): the user's projects with their releases, files, APT and YUM
// repositories and signing keys (rows cascade from the project), the user's API keys, and what
// better-auth keeps under the user's id in its verification table (trusted devices, pending
// links). Runs in better-auth's beforeDelete, so a failure here leaves the account in place. The
// bytes no other account shares — release blobs and published index files — are removed by the
// sweep after the grace period (server/maintenance.ts, decision 022). Decision 015 records the
// design.
import { type Kysely, sql } from "kysely";
import { leaveOrganizationsOfDeletedAccount } from "../orgs/storage.ts";
import type { Database } from "../platform/db/schema.ts";
import { holdNamesOfDeletedUser } from "./usernames.ts";

export interface DeletedAccountData {
  projects: number;
  /** Blobs no other account's file shares: left for the sweep to remove after the grace period. */
  blobs: number;
  apiKeys: number;
}

export async function deleteAccountData(
  db: Kysely<Database>,
  // Bytes are not removed here: the sweep does (decision 022).
  userId: string,
): Promise<DeletedAccountData> {
  // An organization is never left without an owner (decision 040): refused, or out of them all.
  await leaveOrganizationsOfDeletedAccount(db, userId);
  // The account's names stay taken for the hold (decision 014), whoever signs up next.
  await holdNamesOfDeletedUser(db, userId);
  // API keys first: from here on nothing can publish into the projects being removed.
  const apiKeys = await db.deleteFrom("apikey").where("referenceId", "=", userId).executeTakeFirst();
  const unshared = await db
    .selectFrom("release_file")
    .innerJoin("release", "release.id", "release_file.release_id")
    .innerJoin("project", "project.id", "release.project_id")
    .select((eb) => eb.fn.count<number>("release_file.sha256").distinct().as("n"))
    .where("project.owner_id", "=", userId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("release_file as other")
            .innerJoin("release as other_release", "other_release.id", "other.release_id")
            .innerJoin("project as other_project", "other_project.id", "other_release.project_id")
            .select("other.id")
            .whereRef("other.sha256", "=", "release_file.sha256")
            .where("other_project.owner_id", "!=", userId),
        ),
      ),
    )
    .executeTakeFirstOrThrow();
  const projects = await db.deleteFrom("project").where("owner_id", "=", userId).executeTakeFirst();
  // better-auth's table (not in Packyard's schema): rows whose value is the user's id.
  await sql`delete from verification where value = ${userId}`.execute(db);
  return {
    projects: Number(projects.numDeletedRows),
    blobs: Number(unshared.n),
    apiKeys: Number(apiKeys.numDeletedRows),
  };
}

/** What deleting the account would remove, counted for the settings page. */
export interface AccountDeletionSummary {
  projects: number;
  releases: number;
  files: number;
  /** Total size of the files, in bytes. */
  bytes: number;
  signingKeys: number;
  apiKeys: number;
}

export async function accountDeletionSummary(
  db: Kysely<Database>,
  userId: string,
): Promise<AccountDeletionSummary> {
  const count = (n: unknown) => Number(n ?? 0);
  const [projects, releases, files, signingKeys, apiKeys] = await Promise.all([
    db
      .selectFrom("project")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("owner_id", "=", userId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("release")
      .innerJoin("project", "project.id", "release.project_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project.owner_id", "=", userId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("release_file")
      .innerJoin("release", "release.id", "release_file.release_id")
      .innerJoin("project", "project.id", "release.project_id")
      .select((eb) => [
        eb.fn.countAll<number>().as("n"),
        eb.fn.sum<number | string | null>("release_file.size").as("bytes"),
      ])
      .where("project.owner_id", "=", userId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("signing_key")
      .innerJoin("project", "project.id", "signing_key.project_id")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project.owner_id", "=", userId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom("apikey")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("referenceId", "=", userId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    projects: count(projects.n),
    releases: count(releases.n),
    files: count(files.n),
    bytes: count(files.bytes),
    signingKeys: count(signingKeys.n),
    apiKeys: count(apiKeys.n),
  };
}
