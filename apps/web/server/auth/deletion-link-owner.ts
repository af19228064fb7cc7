// Spec §5: an account-deletion token must belong to the signed-in user, else 404 INVALID_TOKEN.
// better-auth 1.7 consumes the token first and compares its user after, so a link opened by
// another signed-in account (a shared computer, a forwarded mail) was used up and the owner's
// own link then failed. Packyard compares first and leaves another account's token unused.

import { BASE_ERROR_CODES } from "@better-auth/core/error";
import { APIError, type createAuthMiddleware, getSessionFromCtx } from "better-auth/api";

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/** The token of a deletion request: the mailed link's query, or POST /delete-user's body. */
function deletionToken(ctx: HookContext): string | undefined {
  const token =
    ctx.path === "/delete-user/callback"
      ? ctx.query?.token
      : ctx.path === "/delete-user"
        ? (ctx.body as { token?: unknown } | undefined)?.token
        : undefined;
  return typeof token === "string" && token ? token : undefined;
}

/** Throws 404 INVALID_TOKEN, without consuming it, for a deletion token of another account. */
export async function refuseOtherAccountsDeletionToken(ctx: HookContext): Promise<void> {
  const token = deletionToken(ctx);
  if (!token) return;
  // Not signed in: better-auth answers FAILED_TO_GET_USER_INFO and leaves the token alone.
  const session = await getSessionFromCtx(ctx).catch(() => null);
  if (!session) return;
  const stored = await ctx.context.internalAdapter.findVerificationValue(`delete-account-${token}`);
  // A token that does not exist or has expired is better-auth's to refuse (and clear).
  if (!stored || stored.value === session.user.id) return;
  throw APIError.from("NOT_FOUND", BASE_ERROR_CODES.INVALID_TOKEN);
}
