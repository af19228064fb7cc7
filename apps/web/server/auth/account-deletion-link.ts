// The mailed account-deletion link is better-auth's GET /api/auth/delete-user/callback. It
// redirects to its callbackURL once the account is gone, but its refusals are JSON (404
// INVALID_TOKEN for a wrong, expired, used or other account's token, the last left unused for its
// owner by auth/deletion-link-owner.ts; 404 FAILED_TO_GET_USER_INFO when the browser is not
// signed in). A person who opened the link in a browser gets a page
// instead: /auth/delete-account explains, and offers to sign in and finish. Clients that do
// not ask for HTML keep better-auth's JSON. Decision 015.
import type { MiddlewareHandler } from "hono";

export const DELETE_CALLBACK_PATH = "/api/auth/delete-user/callback";

export function readableDeletionLinkErrors(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.req.method !== "GET" || c.res.status !== 404) return;
    if (!(c.req.header("accept") ?? "").includes("text/html")) return;
    const body = (await c.res
      .clone()
      .json()
      .catch(() => null)) as { code?: string } | null;
    const token = c.req.query("token") ?? "";
    if (body?.code === "INVALID_TOKEN") {
      c.res = c.redirect("/auth/delete-account?error=INVALID_TOKEN");
    } else if (body?.code === "FAILED_TO_GET_USER_INFO" && /^[0-9a-z]{1,64}$/.test(token)) {
      // Not signed in: the token is still unused; sign in, then confirm on that page.
      c.res = c.redirect(`/auth/delete-account?${new URLSearchParams({ token })}`);
    }
  };
}
