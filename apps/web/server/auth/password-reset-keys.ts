// API keys outlive a password: a reset leaves them working (scripts and CI keep publishing), so
// whoever resets because the account may be in other hands can revoke them all in the same step.
// POST /api/auth/reset-password takes `revokeApiKeys: true` (the reset page's checkbox, checked
// by default); the keys go once the new password is set, through the API-key use case, one
// `api_key.deleted` entry each in the account's audit log, as when they are deleted one by one
// (api-keys/use-cases.ts).

import { defineRequestState } from "@better-auth/core/context";
import type { createAuthMiddleware } from "better-auth/api";
import type { Kysely } from "kysely";
import { deleteApiKeys } from "../api-keys/use-cases.ts";
import type { Database } from "../platform/db/schema.ts";

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/** The body field of POST /reset-password that asks for the keys to go too. */
export const REVOKE_API_KEYS_FIELD = "revokeApiKeys";

// Whether this reset asked for it: read before better-auth's own body schema drops the field,
// used in its onPasswordReset once the token has named the user.
const revokeRequested = defineRequestState<{ revoke: boolean }>(() => ({ revoke: false }));

/** Before hook: notes whether POST /reset-password asked for the keys to be revoked. */
export async function noteApiKeyRevocation(ctx: HookContext): Promise<void> {
  if (ctx.path !== "/reset-password") return;
  const body = ctx.body as Record<string, unknown> | undefined;
  (await revokeRequested.get()).revoke = body?.[REVOKE_API_KEYS_FIELD] === true;
}

/** Whether the reset being carried out asked for the keys to be revoked. */
export async function apiKeyRevocationRequested(): Promise<boolean> {
  return (await revokeRequested.get()).revoke;
}

/** Deletes every API key of the user, each recorded in their audit log; returns how many went. */
export function revokeApiKeysAfterReset(
  db: Kysely<Database>,
  userId: string,
  address: string | null,
): Promise<number> {
  // The person who just reset the password is the one acting, as with a session.
  return deleteApiKeys(
    { db },
    { actor: { kind: "session", userId }, address },
    {
      which: "all",
      reason: "password_reset",
    },
  );
}
