// The answers of spec §7 where better-auth 1.7 leaves something out:
// - GET /verify-email answers the user with the status (better-auth: `user: null` when the email
//   was not changed);
// - ID-token POST /sign-in/social has `url` (better-auth leaves it out);
// - redirect-flow POST /link-social has `status` (better-auth: only with an ID token);
// - errors carry spec §8's words on server calls too (set-password: 'user already has a
//   password');
// - POST /api-key/delete-all-expired-api-keys answers a signed-in user, deleting that user's
//   expired keys (better-auth's own endpoint is server-only and deletes everyone's).
// Redirect error codes and the HTML error page are the HTTP layer's (platform/http/auth-redirects.ts).

import type { BetterAuthPlugin } from "@better-auth/core";
import { SPEC_AUTH_MESSAGES } from "@packyard/contract/messages.ts";
import {
  APIError,
  createAuthEndpoint,
  createAuthMiddleware,
  isAPIError,
  sessionMiddleware,
} from "better-auth/api";
import { parseUserOutput } from "better-auth/db";
import { jwtVerify } from "jose";

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/** The endpoint's plain JSON answer, or null for an error or a redirect. */
function returnedObject(ctx: HookContext): Record<string, unknown> | null {
  const returned = ctx.context.returned;
  if (!returned || typeof returned !== "object" || returned instanceof Response || isAPIError(returned))
    return null;
  return returned as Record<string, unknown>;
}

export function specShapes(): BetterAuthPlugin {
  return {
    id: "packyard-spec-shapes",
    endpoints: {
      deleteOwnExpiredApiKeys: createAuthEndpoint(
        "/api-key/delete-all-expired-api-keys",
        { method: "POST", use: [sessionMiddleware] },
        async (ctx) => {
          // Only the caller's own keys: another account's (or an organization's) are not theirs
          // to tidy, and an expired key authenticates nothing, so deleting it changes no access.
          await ctx.context.adapter.deleteMany({
            model: "apikey",
            where: [
              { field: "referenceId", value: ctx.context.session.user.id },
              { field: "expiresAt", operator: "lt", value: new Date() },
            ],
          });
          return ctx.json({ success: true, error: null });
        },
      ),
    },
    hooks: {
      after: [
        {
          // Spec §8's words on server calls too (set-password is server-only), as
          // account-rules.ts gives them to clients.
          matcher: () => true,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!isAPIError(returned)) return;
            const code = typeof returned.body?.code === "string" ? returned.body.code : undefined;
            const message = code ? SPEC_AUTH_MESSAGES[code] : undefined;
            if (!message || returned.body?.message === message) return;
            throw new APIError(returned.status, { ...returned.body, message });
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/verify-email",
          handler: createAuthMiddleware(async (ctx) => {
            const answer = returnedObject(ctx);
            if (answer?.status !== true || answer.user) return;
            // The token was verified by the endpoint; it names the account by its email.
            const token = typeof ctx.query?.token === "string" ? ctx.query.token : "";
            const { payload } = await jwtVerify(token, new TextEncoder().encode(ctx.context.secret), {
              algorithms: ["HS256"],
            }).catch(() => ({ payload: null }));
            const email = typeof payload?.email === "string" ? payload.email : null;
            const found = email ? await ctx.context.internalAdapter.findUserByEmail(email) : null;
            if (!found) return;
            return ctx.json({ status: true, user: parseUserOutput(ctx.context.options, found.user) });
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/sign-in/social",
          handler: createAuthMiddleware(async (ctx) => {
            const answer = returnedObject(ctx);
            if (!answer || !("token" in answer) || answer.url !== undefined) return;
            // An ID-token sign-in does not leave the page: its url is the callbackURL, if any.
            const callbackURL = typeof ctx.body?.callbackURL === "string" ? ctx.body.callbackURL : null;
            return ctx.json({ ...answer, url: callbackURL });
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/link-social",
          handler: createAuthMiddleware(async (ctx) => {
            const answer = returnedObject(ctx);
            if (!answer || "status" in answer || typeof answer.url !== "string") return;
            return ctx.json({ ...answer, status: true });
          }),
        },
      ],
    },
  };
}
