// Changes of a person's own account that Packyard keeps (passwords, sessions, emails and the
// account's deletion are better-auth's; the plan is Stripe's): a sign-in, as better-auth reports
// it, and a change of username or name on the profile page. Each in the account's own log.
import type { SignIn } from "../audit/sign-in.ts";
import type { Actor } from "../platform/core/authorization.ts";
import { type Caller, change, type Db } from "../platform/core/use-case.ts";
import { type DeletedAccountData, deleteAccountData } from "./deletion.ts";
import { type Clock, setUsername } from "./usernames.ts";

/** better-auth's session hook: the sign-in in the account's log. */
export async function recordSignIn(deps: { db: Db }, signIn: SignIn): Promise<void> {
  const caller: Caller = { actor: { kind: "session", userId: signIn.userId }, address: signIn.address };
  await change(deps.db, caller, async (_tx, record) => {
    record.audit({
      ownerId: signIn.userId,
      action: "session.signed_in",
      details: {
        method: signIn.method,
        ...(signIn.userAgent ? { userAgent: signIn.userAgent.slice(0, 200) } : {}),
      },
    });
  });
}

/**
 * The caller's username and name, from the profile page (the old name is held for them,
 * accounts/usernames.ts). A different username, a change of case too, is recorded as
 * `account.username_changed`; a change of name alone records nothing. Throws UsernameTakenError.
 */
export async function changeProfile(
  deps: { db: Db; clock?: Clock },
  caller: Caller & { actor: Actor },
  input: { username: string; name?: string },
): Promise<{ previous: string | null; username: string }> {
  const userId = caller.actor.userId;
  return change(deps.db, caller, async (tx, record) => {
    const result = await setUsername(tx, userId, input, deps.clock);
    if (result.previous !== null && result.previous !== result.username)
      record.audit({
        ownerId: userId,
        action: "account.username_changed",
        target: result.username,
        details: { from: result.previous, to: result.username },
      });
    return result;
  });
}

/**
 * better-auth's deleteUser hook, before it removes the user's row: the account's organizations,
 * held names, API keys and projects, in one transaction, announced after it (the serving cache
 * and other servers drop what they answered for its projects). No entry: the account's log goes
 * with it.
 */
export async function deleteAccount(deps: { db: Db }, userId: string): Promise<DeletedAccountData> {
  const caller: Caller = { actor: { kind: "session", userId }, address: null };
  return change(deps.db, caller, async (tx, record) => {
    const removed = await deleteAccountData(tx, userId);
    record.emit({ type: "account.deleted", userId });
    return removed;
  });
}
