// What deleting an account removes besides better-auth's own rows (user, sessions, linked
// accounts): the user's projects with their releases, files, APT and YUM repositories and
// signing keys (rows cascade from the project), the bytes no other file shares, and the user's
// API keys. Runs in better-auth's beforeDelete, so a failure here leaves the account in place.
// Published index files of the removed projects are swept by maintenance (server/maintenance.ts).
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { BlobStore } from "../storage/blob-store.ts";
import { collectUnreferencedBlobs } from "./blobs.ts";

export interface DeletedAccountData {
  projects: number;
  blobs: number;
  apiKeys: number;
}

export async function deleteAccountData(
  db: Kysely<Database>,
  blobs: BlobStore,
  userId: string,
): Promise<DeletedAccountData> {
  const projects = await db.deleteFrom("project").where("owner_id", "=", userId).executeTakeFirst();
  const apiKeys = await db.deleteFrom("apikey").where("referenceId", "=", userId).executeTakeFirst();
  const removedBlobs = await collectUnreferencedBlobs(db, blobs);
  return {
    projects: Number(projects.numDeletedRows),
    blobs: removedBlobs,
    apiKeys: Number(apiKeys.numDeletedRows),
  };
}
