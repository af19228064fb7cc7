// Whose plan a payment is for (decision 040): a person pays for their own account, and an
// organization's owners for the organization's (its plan and limits are its own, counted over its
// projects). The Stripe plugin asks this for every subscription action naming a referenceId
// (authorizeReference); the billing pages ask it for `?org=`.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { assertOrgAction } from "../domain/authorization.ts";
import { DomainError } from "../domain/errors.ts";
import { memberRole } from "../domain/orgs.ts";

/** Whether the user may subscribe, change, cancel and read the billing of the account `referenceId`. */
export async function mayBillFor(
  db: Kysely<Database>,
  userId: string,
  referenceId: string,
): Promise<boolean> {
  if (referenceId === userId) return true;
  const role = await memberRole(db, referenceId, userId);
  try {
    assertOrgAction({ kind: "session", userId }, role, "own");
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}
