// better-auth, configured for Packyard: email and password with required verification,
// password reset, and the username Packyard adds to each user. Mounted at /api/auth.

import { apiKey } from "@better-auth/api-key";
import { RESET_REQUESTED_MESSAGE } from "@packyard/contract/messages.ts";
import type { BetterAuthOptions } from "better-auth";
import { betterAuth } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";
import type { Dialect } from "kysely";
import type { Config } from "../config.ts";
import type { Mailer } from "../mail/mailer.ts";
import { resetPasswordMail, verificationMail } from "../mail/templates.ts";
import { clearSignInAttemptsOnPasswordReset, signInLockout } from "./lockout.ts";

/** Every Packyard API key starts with this, so secret scanners and people can recognize it. */
export const API_KEY_PREFIX = "pky_";

/** The header the HTTP layer sets from the socket address, so rate limiting sees the client. */
export const CLIENT_IP_HEADER = "x-packyard-client-ip";

export function authOptions(deps: {
  config: Config;
  dialect: Dialect;
  dbType: "sqlite" | "postgres";
  mailer: Mailer;
}) {
  const { config, mailer } = deps;
  return {
    appName: "Packyard",
    baseURL: config.baseUrl,
    basePath: "/api/auth",
    secret: config.secret,
    trustedOrigins: [config.baseUrl],
    database: { dialect: deps.dialect, type: deps.dbType },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: config.passwordMinLength,
      maxPasswordLength: config.passwordMaxLength,
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
      async sendResetPassword({ user, url }) {
        await mailer.send(resetPasswordMail(user.email, user.name, url));
      },
      // A reset clears the failed sign-ins counted against the email (signInLockout).
      onPasswordReset: clearSignInAttemptsOnPasswordReset,
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      expiresIn: 60 * 60,
      async sendVerificationEmail({ user, url }) {
        await mailer.send(verificationMail(user.email, user.name, url));
      },
    },
    user: {
      additionalFields: {
        // Chosen at onboarding, validated and written by Packyard, never by the client.
        username: { type: "string", required: false, input: false },
      },
    },
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
      cookieCache: { enabled: false },
    },
    // Per client address (AUTH_RATE_LIMIT). The per-account limit on password sign-in is the
    // signInLockout plugin below, always on.
    rateLimit: {
      enabled: config.authRateLimit,
      window: 60,
      max: 100,
    },
    hooks: {
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== "/request-password-reset") return;
        const returned = ctx.context.returned;
        if (returned && typeof returned === "object" && "status" in returned && returned.status === true) {
          return ctx.json({ status: true, message: RESET_REQUESTED_MESSAGE });
        }
      }),
    },
    advanced: {
      // better-auth skips origin and CSRF checks when NODE_ENV is "test"; Packyard's tests
      // must see what production does.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      useSecureCookies: config.baseUrl.startsWith("https://"),
    },
    plugins: [
      // Failed password sign-ins per email: 429 TOO_MANY_SIGN_IN_ATTEMPTS after too many.
      signInLockout(),
      apiKey({
        defaultPrefix: API_KEY_PREFIX,
        // Scopes live in permissions and are set only by Packyard's server, never the client.
        enableMetadata: true,
        // Sized for CI: a matrix build pushing many files, not the plugin's 10 a day.
        rateLimit: { enabled: true, timeWindow: 60_000, maxRequests: 5_000 },
        keyExpiration: { defaultExpiresIn: null, minExpiresIn: 1, maxExpiresIn: 3650 },
      }),
    ],
    telemetry: { enabled: false },
  } satisfies BetterAuthOptions;
}

export function createAuth(options: ReturnType<typeof authOptions>) {
  return betterAuth(options);
}

export type Auth = ReturnType<typeof createAuth>;
export type SessionUser = Auth["$Infer"]["Session"]["user"];
