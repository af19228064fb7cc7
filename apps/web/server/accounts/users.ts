// A user as the API shows it to themselves (GET /api/v1/me).
import type { Me } from "@packyard/contract";
import type { Kysely } from "kysely";
import type { Database } from "../platform/db/schema.ts";

export type UserProfile = Me["user"];

/** The user's id, username, name and email; throws when there is no such user. */
export async function userProfile(db: Kysely<Database>, userId: string): Promise<UserProfile> {
  return db
    .selectFrom("user")
    .select(["id", "username", "name", "email"])
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
}
