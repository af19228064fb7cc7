// Completing onboarding: the user's name and public username. Whether the name is free is
// usernames.ts's call: nobody else has it, whatever its case, and nobody holds it as an old name.
import type { Kysely } from "kysely";
import { type Clock, setUsername, UsernameTakenError } from "../../server/accounts/usernames.ts";
import type { Database } from "../../server/platform/db/schema.ts";

export { UsernameTakenError };

export async function completeOnboarding(
  db: Kysely<Database>,
  userId: string,
  input: { name: string; username: string },
  clock?: Clock,
): Promise<void> {
  await setUsername(db, userId, input, clock);
}
