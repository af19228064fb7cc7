// Packyard's account rules on top of better-auth, where the product spec (§4, §5, §7, §8) asks
// for something better-auth 1.7 does differently or does not have:
// - POST /forget-password, the older name of /request-password-reset;
// - a second sign-up with a registered email answers 422 'User already exists. Use another
//   email.' (better-auth answers a silent 200 when email verification is required);
// - change-email to an address someone else uses answers "Couldn't update your email";
// - delete-user without a password needs a fresh session even though a link is mailed;
// - get-access-token and refresh-token take providerId (and accountId, the provider's id of the
//   account), POST /account-info takes accountId;
// - social sign-in asks for the second factor like password sign-in does;
// - security notices: password changed, email changed (to the old address), two-factor turned
//   on or off, API key created.

import type { BetterAuthPlugin } from "@better-auth/core";
import { defineRequestState } from "@better-auth/core/context";
import { RESET_REQUESTED_MESSAGE, SPEC_AUTH_MESSAGES } from "@packyard/contract/messages.ts";
import {
  APIError,
  accountInfo as coreAccountInfo,
  getAccessToken as coreGetAccessToken,
  refreshToken as coreRefreshToken,
  requestPasswordReset as coreRequestPasswordReset,
  createAuthEndpoint,
  createAuthMiddleware,
  freshSessionMiddleware,
  getSessionFromCtx,
  isAPIError,
} from "better-auth/api";
import { jwtVerify } from "jose";
import { z } from "zod";
import type { Mailer } from "../platform/mail/mailer.ts";
import { type SecurityNotice, securityNoticeMail } from "../platform/mail/templates.ts";

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];
type AfterHook = (ctx: HookContext) => Promise<unknown>;

export const USER_EXISTS_MESSAGE = "User already exists. Use another email.";
export const EMAIL_IN_USE_MESSAGE = "Couldn't update your email";
export const SESSION_EXPIRED_MESSAGE = "Session expired. Re-authenticate to perform this action.";

interface UserSnapshot {
  id: string;
  name: string;
  email: string;
  twoFactorEnabled: boolean;
}

// The user as it was when the request began, for the notices sent after it.
const userBefore = defineRequestState<{ user: UserSnapshot | null }>(() => ({ user: null }));

const NOTICE_PATHS = new Set([
  "/change-password",
  "/change-email",
  "/verify-email",
  "/two-factor/verify-totp",
  "/two-factor/disable",
]);

export function accountRules(deps: {
  mailer: Mailer;
  baseUrl: string;
  /** better-auth's two-factor sign-in hook, applied to social and OpenID Connect sign-ins too. */
  twoFactorSignIn: AfterHook;
  logger?: { error(message: string, error?: unknown): void };
}): BetterAuthPlugin {
  const settingsUrl = `${deps.baseUrl}/settings`;

  async function notify(user: { email: string; name: string }, notice: SecurityNotice) {
    try {
      await deps.mailer.send(securityNoticeMail(user.email, user.name, notice, settingsUrl, new Date()));
    } catch (error) {
      deps.logger?.error(`sending the ${notice.kind} notice failed`, error);
    }
  }

  async function snapshot(ctx: HookContext): Promise<UserSnapshot | null> {
    let email: string | undefined;
    if (ctx.path === "/verify-email") {
      // The link may be opened without a session: the token names the account.
      const token = typeof ctx.query?.token === "string" ? ctx.query.token : undefined;
      if (!token) return null;
      try {
        const { payload } = await jwtVerify(token, new TextEncoder().encode(ctx.context.secret), {
          algorithms: ["HS256"],
        });
        if (typeof payload.updateTo !== "string" || typeof payload.email !== "string") return null;
        email = payload.email;
      } catch {
        return null;
      }
    } else {
      const session = await getSessionFromCtx(ctx).catch(() => null);
      if (!session) return null;
      email = session.user.email;
    }
    const found = await ctx.context.internalAdapter.findUserByEmail(email);
    if (!found) return null;
    const user = found.user as typeof found.user & { twoFactorEnabled?: boolean | null };
    return {
      id: user.id,
      name: user.name,
      email: user.email,
      twoFactorEnabled: user.twoFactorEnabled === true,
    };
  }

  /** The account of the signed-in user (or of userId on server calls) for a provider. */
  async function resolveAccount(
    ctx: HookContext,
    input: { providerId: string; accountId?: string; userId?: string },
    unknownProviderMessage: (id: string) => string,
  ) {
    const session = await getSessionFromCtx(ctx).catch(() => null);
    const userId = session?.user.id ?? input.userId;
    if (!userId)
      throw APIError.from("BAD_REQUEST", {
        message: "Either userId or session is required",
        code: "USER_ID_OR_SESSION_REQUIRED",
      });
    // userId only counts on server calls: a request from a client needs its session.
    if (!session && ctx.request) throw unauthorized();
    const provider = await ctx.context.socialProviders.find((p) => p.id === input.providerId);
    if (!provider)
      throw APIError.from("BAD_REQUEST", {
        message: unknownProviderMessage(input.providerId),
        code: "PROVIDER_NOT_SUPPORTED",
      });
    const accounts = await ctx.context.internalAdapter.findAccounts(userId);
    const account = accounts.find(
      (a) =>
        a.providerId === input.providerId &&
        (input.accountId === undefined || a.accountId === input.accountId || a.id === input.accountId),
    );
    if (!account)
      throw APIError.from("BAD_REQUEST", {
        message: SPEC_AUTH_MESSAGES.ACCOUNT_NOT_FOUND!,
        code: "ACCOUNT_NOT_FOUND",
      });
    return { account, userId };
  }

  const accountSelection = z.object({
    providerId: z.string().min(1),
    accountId: z.string().min(1).optional(),
    userId: z.string().min(1).optional(),
  });

  return {
    id: "packyard-account-rules",
    // Errors in spec §8's words (better-auth's codes stay as they are).
    async onResponse(response) {
      if (response.status < 400 || !response.headers.get("content-type")?.includes("application/json"))
        return;
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as { code?: string; message?: string } | null;
      const message = body?.code ? SPEC_AUTH_MESSAGES[body.code] : undefined;
      if (!body || !message || body.message === message) return;
      const headers = new Headers(response.headers);
      headers.delete("content-length");
      return {
        response: new Response(JSON.stringify({ ...body, message }), { status: response.status, headers }),
      };
    },
    endpoints: {
      forgetPassword: createAuthEndpoint(
        "/forget-password",
        {
          method: "POST",
          body: z.object({ email: z.string(), redirectTo: z.string().optional() }),
        },
        async (ctx) => {
          // The same endpoint under its older name: same checks, limits and answer.
          // It answers the same for every email (or throws): only the message is Packyard's.
          await coreRequestPasswordReset(internalCall(ctx));
          return ctx.json({ status: true, message: RESET_REQUESTED_MESSAGE });
        },
      ),
      // Replaces better-auth's own (same keys): the spec's shapes, better-auth's token handling.
      getAccessToken: createAuthEndpoint(
        "/get-access-token",
        { method: "POST", body: accountSelection },
        async (ctx) => {
          const { account, userId } = await resolveAccount(
            ctx,
            ctx.body,
            (id) => `Provider ${id} is not supported.`,
          );
          const tokens = await coreGetAccessToken(
            internalCall(ctx, { body: { accountId: account.id, ...(ctx.request ? {} : { userId }) } }),
          );
          return ctx.json(unwrap<Record<string, unknown>>(tokens));
        },
      ),
      refreshToken: createAuthEndpoint(
        "/refresh-token",
        { method: "POST", body: accountSelection },
        async (ctx) => {
          const { account, userId } = await resolveAccount(
            ctx,
            ctx.body,
            (id) => `Provider ${id} not found.`,
          );
          const tokens = await coreRefreshToken(
            internalCall(ctx, { body: { accountId: account.id, ...(ctx.request ? {} : { userId }) } }),
          );
          return ctx.json(unwrap<Record<string, unknown>>(tokens));
        },
      ),
      accountInfo: createAuthEndpoint(
        "/account-info",
        { method: "POST", body: z.object({ accountId: z.string().min(1) }) },
        async (ctx) => {
          const session = await getSessionFromCtx(ctx).catch(() => null);
          if (!session) throw unauthorized();
          const accounts = await ctx.context.internalAdapter.findAccounts(session.user.id);
          const account = accounts.find(
            (a) => a.id === ctx.body.accountId || a.accountId === ctx.body.accountId,
          );
          if (!account)
            throw APIError.from("BAD_REQUEST", {
              message: SPEC_AUTH_MESSAGES.ACCOUNT_NOT_FOUND!,
              code: "ACCOUNT_NOT_FOUND",
            });
          // Spec §8: a provider that is no longer configured is the server's fault (500), not
          // the request's (better-auth answers 400). A password has no provider to ask.
          if (
            account.providerId !== "credential" &&
            !(await ctx.context.socialProviders.find((p) => p.id === account.providerId))
          )
            throw APIError.from("INTERNAL_SERVER_ERROR", {
              message: `Provider ${account.providerId} is not configured.`,
              code: "PROVIDER_NOT_CONFIGURED",
            });
          const info = await coreAccountInfo(
            internalCall(ctx, { method: "GET", query: { accountId: account.id } }),
          );
          const answer = unwrap<{ user?: Record<string, unknown> } & Record<string, unknown>>(info);
          // Spec §7: the user has an id and an image; some providers' user info leaves them out
          // (the OpenID subject is the account's id at the provider).
          return ctx.json({
            ...answer,
            user: {
              ...answer.user,
              id: answer.user?.id ?? account.accountId,
              image: answer.user?.image ?? null,
            },
          });
        },
      ),
      // Spec §7: by providerId, accountId optional (better-auth 1.7 wants its own row id).
      unlinkAccount: createAuthEndpoint(
        "/unlink-account",
        {
          method: "POST",
          body: z.object({ providerId: z.string().min(1), accountId: z.string().min(1).optional() }),
          use: [freshSessionMiddleware],
        },
        async (ctx) => {
          const accounts = await ctx.context.internalAdapter.findAccounts(ctx.context.session.user.id);
          if (accounts.length <= 1)
            throw APIError.from("BAD_REQUEST", {
              message: "You can't unlink your last account",
              code: "FAILED_TO_UNLINK_LAST_ACCOUNT",
            });
          const { providerId, accountId } = ctx.body;
          const account = accounts.find(
            (a) =>
              a.providerId === providerId &&
              (accountId === undefined || a.accountId === accountId || a.id === accountId),
          );
          if (!account)
            throw APIError.from("BAD_REQUEST", {
              message: SPEC_AUTH_MESSAGES.ACCOUNT_NOT_FOUND!,
              code: "ACCOUNT_NOT_FOUND",
            });
          await ctx.context.internalAdapter.deleteAccount(account.id);
          return ctx.json({ status: true });
        },
      ),
    },
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path === "/sign-up/email",
          handler: createAuthMiddleware(async (ctx) => {
            const email = typeof ctx.body?.email === "string" ? ctx.body.email.toLowerCase() : "";
            if (!email || !z.email().safeParse(email).success) return;
            if (await ctx.context.internalAdapter.findUserByEmail(email))
              throw APIError.from("UNPROCESSABLE_ENTITY", {
                message: USER_EXISTS_MESSAGE,
                code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
              });
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/change-email",
          handler: createAuthMiddleware(async (ctx) => {
            const email = typeof ctx.body?.newEmail === "string" ? ctx.body.newEmail.toLowerCase() : "";
            if (!email || !z.email().safeParse(email).success) return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (!session || session.user.email === email) return;
            if (await ctx.context.internalAdapter.findUserByEmail(email))
              throw APIError.from("BAD_REQUEST", {
                message: EMAIL_IN_USE_MESSAGE,
                code: "COULDNT_UPDATE_YOUR_EMAIL",
              });
          }),
        },
        {
          matcher: (ctx) => ctx.path === "/delete-user",
          handler: createAuthMiddleware(async (ctx) => {
            if (ctx.body?.password || ctx.body?.token) return;
            const session = await getSessionFromCtx(ctx).catch(() => null);
            if (!session) return;
            const freshAge = ctx.context.sessionConfig.freshAge * 1000;
            const createdAt = new Date(session.session.createdAt).getTime();
            if (freshAge !== 0 && Date.now() - createdAt >= freshAge)
              throw APIError.from("BAD_REQUEST", {
                message: SESSION_EXPIRED_MESSAGE,
                code: "SESSION_EXPIRED",
              });
          }),
        },
        {
          matcher: (ctx) => NOTICE_PATHS.has(ctx.path ?? ""),
          handler: createAuthMiddleware(async (ctx) => {
            (await userBefore.get()).user = await snapshot(ctx);
          }),
        },
      ],
      after: [
        {
          // Social and OpenID Connect sign-ins end on a callback; with two-factor on, the new
          // session is replaced by the two-factor challenge and the browser goes to enter a code.
          matcher: (ctx) => ctx.path === "/callback/:id",
          handler: createAuthMiddleware(async (ctx) => {
            const created = ctx.context.newSession as { user: { twoFactorEnabled?: boolean | null } } | null;
            if (!created?.user.twoFactorEnabled) return;
            const returned = ctx.context.returned;
            const location = isAPIError(returned) ? new Headers(returned.headers).get("location") : null;
            // The two-factor hook runs in a context of its own: its cookies (the two-factor
            // challenge, the expired session, a renewed trusted-device cookie) come back with
            // its headers and must be carried over to this response.
            const challenge = (await deps.twoFactorSignIn({ ...ctx, returnHeaders: true } as never)) as
              | { headers?: Headers }
              | undefined;
            const responseHeaders = (ctx as unknown as { responseHeaders: Headers }).responseHeaders;
            for (const cookie of challenge?.headers?.getSetCookie() ?? [])
              responseHeaders.append("set-cookie", cookie);
            if (ctx.context.newSession) return; // a trusted device: signed in
            const target = safeLocalPath(location, deps.baseUrl) ?? "/dashboard";
            throw ctx.redirect(`/auth/two-factor?redirect=${encodeURIComponent(target)}`);
          }),
        },
        {
          matcher: (ctx) => NOTICE_PATHS.has(ctx.path ?? ""),
          handler: createAuthMiddleware(async (ctx) => {
            const before = (await userBefore.get()).user;
            if (!before) return;
            const returned = ctx.context.returned;
            if (returned instanceof Error && !isRedirect(returned)) return;
            if (ctx.path === "/change-password") return notify(before, { kind: "password-changed" });
            const now = await ctx.context.internalAdapter.findUserById(before.id);
            if (!now) return;
            const current = now as typeof now & { twoFactorEnabled?: boolean | null };
            if (current.email !== before.email)
              await notify(before, { kind: "email-changed", newEmail: current.email });
            const enabled = current.twoFactorEnabled === true;
            if (enabled !== before.twoFactorEnabled)
              await notify(current, { kind: enabled ? "two-factor-enabled" : "two-factor-disabled" });
          }),
        },
        {
          // API keys are created by Packyard's server on the user's behalf (body.userId).
          matcher: (ctx) => ctx.path === "/api-key/create",
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned as {
              name?: string | null;
              referenceId?: string;
              userId?: string;
            };
            if (!returned || returned instanceof Error) return;
            const userId = returned.referenceId ?? returned.userId;
            if (!userId) return;
            const user = await ctx.context.internalAdapter.findUserById(userId);
            if (user) await notify(user, { kind: "api-key-created", keyName: returned.name ?? "unnamed" });
          }),
        },
      ],
    },
  };
}

/** 401 with a body that says why, as better-auth's session checks answer. */
function unauthorized() {
  return APIError.from("UNAUTHORIZED", { message: "Unauthorized", code: "UNAUTHORIZED" });
}

/** The context for calling one of better-auth's endpoints from inside another: plain data back. */
function internalCall(ctx: object, changes: Record<string, unknown> = {}): never {
  return { ...ctx, ...changes, asResponse: false, returnHeaders: false, returnStatus: false } as never;
}

/** An endpoint's result, whether or not it came wrapped with its headers. */
function unwrap<T>(result: unknown): T {
  if (result && typeof result === "object" && "response" in result && "headers" in result)
    return (result as { response: T }).response;
  return result as T;
}

function isRedirect(error: Error): boolean {
  return isAPIError(error) && (error.statusCode === 302 || error.status === "FOUND");
}

/** A redirect target on this site as a path, or null. */
function safeLocalPath(location: string | null, baseUrl: string): string | null {
  if (!location) return null;
  const url = URL.parse(location, baseUrl);
  if (!url || url.origin !== new URL(baseUrl).origin) return null;
  return `${url.pathname}${url.search}`;
}

/** Sends a security notice after a password reset (emailAndPassword.onPasswordReset). */
export function passwordResetNotice(mailer: Mailer, baseUrl: string) {
  return async (user: { email: string; name: string }) => {
    await mailer.send(
      securityNoticeMail(
        user.email,
        user.name,
        { kind: "password-changed" },
        `${baseUrl}/settings`,
        new Date(),
      ),
    );
  };
}
