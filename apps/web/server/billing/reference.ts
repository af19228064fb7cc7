// Whose plan a payment is for (decision 040): a person pays for their own account, and an
// organization's owners for the organization's (its plan and limits are its own, counted over its
// projects). The Stripe plugin asks this for every subscription action naming a referenceId
// (authorizeReference); the billing pages ask it for `?org=`.
import type { Kysely } from "kysely";
import { memberRole } from "../orgs/storage.ts";
import { assertOrgAction } from "../platform/core/authorization.ts";
import { DomainError } from "../platform/core/errors.ts";
import type { Database } from "../platform/db/schema.ts";

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
