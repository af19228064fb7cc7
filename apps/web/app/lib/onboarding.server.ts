// Completing onboarding: the user's name and public username.
import type { Kysely } from "kysely";
import type { Database } from "../../server/db/schema.ts";

export class UsernameTakenError extends Error {
  readonly code = "USERNAME_TAKEN";
  constructor() {
    super("This username is already taken");
  }
}

export async function completeOnboarding(
  db: Kysely<Database>,
  userId: string,
  input: { name: string; username: string },
): Promise<void> {
  const taken = await db
    .selectFrom("user")
    .select("id")
    .where("username", "=", input.username)
    .where("id", "!=", userId)
    .executeTakeFirst();
  if (taken) throw new UsernameTakenError();
  try {
    await db
      .updateTable("user")
      .set({ name: input.name, username: input.username, updatedAt: new Date().toISOString() })
      .where("id", "=", userId)
      .execute();
  } catch (error) {
    // Two people racing for one name: the unique index decides.
    if (/unique|duplicate/i.test(String((error as Error).message))) throw new UsernameTakenError();
    throw error;
  }
}
