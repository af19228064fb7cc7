// better-auth, configured for Packyard: email and password with required verification,
// password reset, social and OpenID Connect sign-in, linked accounts, email change, account
// deletion, two-factor authentication, and the username Packyard adds to each user. Mounted at
// /api/auth. Packyard's own rules on top of it live in account-rules.ts.

import { apiKey } from "@better-auth/api-key";
import { sso } from "@better-auth/sso";
import { RESET_REQUESTED_MESSAGE } from "@packyard/contract/messages.ts";
import { isAtDomain } from "@packyard/contract/sso.ts";
import type { BetterAuthOptions } from "better-auth";
import { betterAuth } from "better-auth";
import {
  APIError,
  createAuthMiddleware,
  createEmailVerificationToken,
  getSessionFromCtx,
  isAPIError,
} from "better-auth/api";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import { twoFactor } from "better-auth/plugins/two-factor";
import type { Dialect } from "kysely";
import { type SignIn, signInAudit } from "../audit/sign-in.ts";
import { billingPlugins } from "../billing/stripe.ts";
import { isOrganizationEmail } from "../orgs/storage.ts";
import type { Config } from "../platform/config/config.ts";
import { DomainError, isStorageFull } from "../platform/core/errors.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import {
  changeEmailConfirmationMail,
  deleteAccountMail,
  resetPasswordMail,
  verificationMail,
} from "../platform/mail/templates.ts";
import { createLogger, type Logger } from "../platform/observability/logger.ts";
import { accountRules, passwordResetNotice } from "./account-rules.ts";
import { authLogger } from "./auth-log.ts";
import { refuseOtherAccountsDeletionToken } from "./deletion-link-owner.ts";
import { clearSignInAttemptsOnPasswordReset, signInLockout } from "./lockout.ts";
import { apiKeyRevocationRequested, noteApiKeyRevocation } from "./password-reset-keys.ts";
import { OIDC_PROVIDER_ID, socialProviderOptions } from "./providers.ts";
import { refuseUnsafeRedirectTargets } from "./redirect-targets.ts";
import { specShapes } from "./spec-shapes.ts";

/** Every Packyard API key starts with this, so secret scanners and people can recognize it. */
export const API_KEY_PREFIX = "pky_";

/** The header the HTTP layer sets from the socket address, so rate limiting sees the client. */
export const CLIENT_IP_HEADER = "x-packyard-client-ip";

export function authOptions(deps: {
  config: Config;
  dialect: Dialect;
  dbType: "sqlite" | "postgres";
  mailer: Mailer;
  /** Removes what Packyard keeps for a user (projects, files, keys) before the user is deleted. */
  deleteUserData?: (userId: string) => Promise<void>;
  /** Why the user may not delete their account now (the sole owner of an organization), if so. */
  deletionBlocker?: (userId: string) => Promise<string | undefined>;
  /** Told of each sign-in, for the audit log (audit/sign-in.ts). */
  onSignIn?: (signIn: SignIn) => Promise<void>;
  /** Revokes the user's API keys, when a password reset asks for it (password-reset-keys.ts). */
  revokeApiKeys?: (userId: string, address: string | null) => Promise<void>;
  /** Where better-auth's own lines go (auth-log.ts); a logger at LOG_LEVEL on stderr by default. */
  logger?: Logger;
  /**
   * An organization's identity provider signed someone in (orgs/sso-sign-in.ts): their membership
   * follows (just in time, the role from their groups) and the organization's log hears of it.
   */
  onSsoSignIn?: (signIn: SsoSignIn) => Promise<void>;
  /** The organization and domain of an identity provider (`ssoProvider.providerId`), if any. */
  organizationOfProvider?: (
    providerId: string,
  ) => Promise<{ organizationId: string; domain: string } | undefined>;
  /**
   * WEBHOOK_ALLOW_PRIVATE: the origins of the organizations' OpenID providers, which the SSO
   * plugin may then reach on loopback and private addresses (tests, internal IdPs).
   */
  privateIdentityProviderOrigins?: () => Promise<string[]>;
}) {
  const { config, mailer } = deps;
  const twoFactorPlugin = twoFactor({
    issuer: "Packyard",
    // A device marked trusted at the code prompt skips it for 30 days.
    trustDeviceMaxAge: 30 * 24 * 60 * 60,
  });
  const sendResetNotice = passwordResetNotice(mailer, config.baseUrl);
  /**
   * On an organization's provider's callback or ACS: its organization and domain — or a refusal
   * (SSO_EMAIL_DOMAIN, redirected to the error page) when the address it signs in is not at that
   * domain or one below it. Whoever a provider vouches for joins the organization, so a provider
   * that lets in outside accounts (a Google client open to any Google account) must not make them
   * members. Undefined on any other request.
   */
  async function refuseForeignSsoEmail(path: string | undefined, params: unknown, email: string) {
    const providerId = ssoProviderOf(path, params);
    const provider = providerId ? await deps.organizationOfProvider?.(providerId) : undefined;
    if (!provider) return undefined;
    if (!isAtDomain(email, provider.domain))
      throw APIError.from("FORBIDDEN", {
        code: "SSO_EMAIL_DOMAIN",
        message: `This identity provider signs in addresses at ${provider.domain} only`,
      });
    return provider;
  }
  return {
    appName: "Packyard",
    baseURL: config.baseUrl,
    basePath: "/api/auth",
    secret: config.secret,
    // The SSO plugin fetches an OpenID provider's token endpoint and keys only from public
    // addresses unless their origin is trusted: with WEBHOOK_ALLOW_PRIVATE, the organizations'
    // own providers' origins are (decision 088), as the webhooks' address guard allows them.
    trustedOrigins: deps.privateIdentityProviderOrigins
      ? async () => [config.baseUrl, ...(await deps.privateIdentityProviderOrigins!())]
      : [config.baseUrl],
    database: { dialect: deps.dialect, type: deps.dbType },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: config.passwordMinLength,
      maxPasswordLength: config.passwordMaxLength,
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
      async sendResetPassword({ user, url }) {
        await mailer.send(resetPasswordMail(user.email, user.name, url, `${config.baseUrl}/api-keys`));
      },
      // A reset clears the failed sign-ins counted against the email (signInLockout), revokes the
      // API keys when asked to (password-reset-keys.ts), and the owner hears of it.
      async onPasswordReset({ user }, request) {
        await clearSignInAttemptsOnPasswordReset({ user });
        if (deps.revokeApiKeys && (await apiKeyRevocationRequested()))
          await deps.revokeApiKeys(user.id, request?.headers.get(CLIENT_IP_HEADER) ?? null);
        await sendResetNotice(user);
      },
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
    socialProviders: socialProviderOptions(config.socialProviders),
    account: {
      // Spec §4: an existing user is linked only when the provider vouches for the email
      // (email_verified); no provider is trusted without it, and emails must match.
      accountLinking: { enabled: true, trustedProviders: [], allowDifferentEmails: false },
    },
    user: {
      additionalFields: {
        // Chosen at onboarding, validated and written by Packyard, never by the client.
        username: { type: "string", required: false, input: false },
      },
      changeEmail: {
        enabled: true,
        // Spec §4: an unverified email changes at once (and the new one gets a verification mail).
        updateEmailWithoutVerification: true,
        // A verified email: the current address confirms first. Spec §4's change token sets the
        // new address unverified and mails it a fresh verification link, so the link mailed here
        // carries that token (no request type) rather than better-auth's two-step one.
        async sendChangeEmailConfirmation({ user, newEmail, url }) {
          const callbackURL = new URL(url).searchParams.get("callbackURL") ?? "/";
          const token = await createEmailVerificationToken(config.secret, user.email, newEmail, 60 * 60);
          const link = `${config.baseUrl}/api/auth/verify-email?token=${token}&callbackURL=${encodeURIComponent(callbackURL)}`;
          await mailer.send(changeEmailConfirmationMail(user.email, user.name, newEmail, link));
        },
      },
      deleteUser: {
        enabled: true,
        // Packyard always has a mail sender (SMTP or the outbox): deletion completes through the
        // mailed link (a 32-character token, spec §9).
        deleteTokenExpiresIn: config.deleteAccountTokenSeconds,
        async sendDeleteAccountVerification({ user, url }) {
          await mailer.send(
            deleteAccountMail(
              user.email,
              user.name,
              url,
              Math.round(config.deleteAccountTokenSeconds / 3600),
            ),
          );
        },
        async beforeDelete(user) {
          try {
            await deps.deleteUserData?.(user.id);
          } catch (error) {
            // Another owner left first (a race the link cannot foresee): a 400 with the code,
            // as the request for the link answers, instead of better-auth's bare 500.
            if (error instanceof DomainError && error.code === "ORG_LAST_OWNER")
              throw APIError.from("BAD_REQUEST", { message: error.message, code: error.code });
            throw error;
          }
        },
      },
    },
    databaseHooks: {
      user: {
        create: {
          // An organization's provider makes accounts only for its own domain (docs/sso.md).
          async before(user, ctx) {
            await refuseForeignSsoEmail(ctx?.path, ctx?.params, user.email);
          },
        },
      },
      session: {
        create: {
          // An organization's owner account (decision 040) has no credentials; should any
          // sign-in path ever reach it, it still gets no session.
          async before(session, ctx) {
            if (!ctx) return;
            const user = await ctx.context.internalAdapter.findUserById(session.userId);
            if (user && isOrganizationEmail(user.email)) return false;
            // A session an organization's identity provider made carries the organization: its
            // projects accept it when the organization requires single sign-on, and SCIM's
            // deprovisioning ends it (docs/sso.md).
            const provider = await refuseForeignSsoEmail(ctx.path, ctx.params, user?.email ?? "");
            if (provider) return { data: { ...session, ssoOrganizationId: provider.organizationId } };
          },
        },
      },
    },
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
      cookieCache: { enabled: false },
      additionalFields: {
        // Set by Packyard (databaseHooks above), never by the client.
        ssoOrganizationId: { type: "string", required: false, input: false },
      },
    },
    // Per client address (AUTH_RATE_LIMIT). The per-account limit on password sign-in is the
    // signInLockout plugin below, always on.
    rateLimit: {
      enabled: config.authRateLimit,
      window: 60,
      max: 100,
      // PostgreSQL: counted in the database (table rateLimit, made by better-auth's migrations)
      // so every server of one database sees the same counts. SQLite (one process): in memory.
      // Decision 020 has the cost.
      storage: deps.dbType === "postgres" ? "database" : "memory",
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        // Every endpoint, before better-auth's own (weaker) origin check: redirect-targets.ts.
        refuseUnsafeRedirectTargets(ctx);
        // Another account's deletion link is refused before better-auth uses it up.
        await refuseOtherAccountsDeletionToken(ctx);
        await noteApiKeyRevocation(ctx);
        // Refused before any link is mailed: deleting the account would leave an organization
        // without an owner (decision 040).
        if (ctx.path !== "/delete-user" || !deps.deletionBlocker) return;
        const session = await getSessionFromCtx(ctx).catch(() => null);
        const blocker = session ? await deps.deletionBlocker(session.user.id) : undefined;
        if (blocker) throw APIError.from("BAD_REQUEST", { message: blocker, code: "ORG_LAST_OWNER" });
      }),
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
      twoFactorPlugin,
      accountRules({
        mailer,
        baseUrl: config.baseUrl,
        twoFactorSignIn: twoFactorPlugin.hooks.after[0]!.handler,
      }),
      // Spec §7's answer shapes where better-auth's differ (spec-shapes.ts).
      specShapes(),
      ...(config.oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: OIDC_PROVIDER_ID,
                  name: config.oidc.name,
                  discoveryUrl: `${config.oidc.issuer}/.well-known/openid-configuration`,
                  clientId: config.oidc.clientId,
                  clientSecret: config.oidc.clientSecret,
                  scopes: ["openid", "email", "profile"],
                  pkce: true,
                  // Signing out of Packyard ends Packyard's session only (spec §4), as with the
                  // social providers: it does not send the browser to the identity provider's
                  // logout page, which would sign the user out of every other application there
                  // and, without a registered post-logout URI, never come back.
                  disableProviderLogout: true,
                },
              ],
            }),
          ]
        : []),
      // Organizations' own SAML and OpenID providers (docs/sso.md, decision 088). Packyard keeps
      // the providers' rows itself (orgs/sso.ts: owners, verified domains, plans), so the
      // plugin's own management endpoints are off (disabledPaths below); its sign-in, callback,
      // ACS and SP-metadata endpoints do the protocol work: signatures, audience, recipients,
      // NotBefore/NotOnOrAfter, InResponseTo and assertion replay.
      sso({
        // A provider's domain is one its organization verified (orgs/domains.ts) before the
        // provider could be saved; Packyard sets domainVerified, which makes the plugin link a
        // returning user by that domain's email, never by an unverified one.
        domainVerification: { enabled: true },
        provisionUserOnEveryLogin: true,
        async provisionUser({ user, userInfo, provider }) {
          await deps.onSsoSignIn?.({
            userId: user.id,
            email: user.email,
            providerId: provider.providerId,
            attributes: userInfo as Record<string, unknown>,
          });
        },
        saml: {
          requireTimestamps: true,
          enableInResponseToValidation: true,
          allowIdpInitiated: false,
        },
      }),
      // Failed password sign-ins per email: 429 TOO_MANY_SIGN_IN_ATTEMPTS after too many.
      signInLockout(),
      apiKey({
        defaultPrefix: API_KEY_PREFIX,
        // Scopes live in permissions and are set only by Packyard's server, never the client.
        enableMetadata: true,
        // Counted by Packyard in the key's row instead (auth/key-checks.ts, decision 073): the
        // plugin's window slides with every request, so a key in steady use was refused once it
        // had made maxRequests in all.
        rateLimit: { enabled: false },
        keyExpiration: { defaultExpiresIn: null, minExpiresIn: 1, maxExpiresIn: 3650 },
      }),
      // Stripe (server/billing/stripe.ts) when STRIPE_SECRET_KEY is set; its tables always.
      ...billingPlugins({ config, mailer, dialect: deps.dialect }),
      // Last, so it sees a sign-in after two-factor has held back the session it waits for.
      ...(deps.onSignIn ? [signInAudit(deps.onSignIn)] : []),
    ],
    // A provider callback that fails before Packyard knows the page to return to (a state that
    // was already used or never existed) redirects here: the server's /error page, which explains
    // the code. better-auth's default, /api/auth/error, sends production visitors to /?error=….
    onAPIError: {
      errorURL: `${config.baseUrl}/error`,
      // A full disk goes on to the app, which answers it as on every route (507,
      // platform/http/api-errors.ts) rather than 500; anything else is logged as better-auth would.
      onError: (error, ctx) => {
        if (isStorageFull(error)) throw error;
        if (!isAPIError(error) || error.status === "INTERNAL_SERVER_ERROR")
          ctx.logger.error("auth request failed", error);
      },
    },
    // The SSO plugin's provider management: Packyard's /api/v1/orgs/{org}/sso does it instead.
    // And its shared OIDC callback: Packyard's providers each have their own (/sso/callback/{id}),
    // whose provider the session-create hook above checks and marks.
    disabledPaths: [
      "/sso/callback",
      "/sso/register",
      "/sso/providers",
      "/sso/get-provider",
      "/sso/update-provider",
      "/sso/delete-provider",
      "/sso/request-domain-verification",
      "/sso/verify-domain",
    ],
    telemetry: { enabled: false },
    logger: authLogger(deps.logger ?? createLogger(config.logLevel), config.logLevel),
  } satisfies BetterAuthOptions;
}

/** What auth.ts tells Packyard of a sign-in through an organization's identity provider. */
export interface SsoSignIn {
  userId: string;
  email: string;
  providerId: string;
  /** The provider's attributes or claims as the plugin mapped them (groups among them). */
  attributes: Record<string, unknown>;
}

/** The SSO provider whose callback or ACS this request is, if it is one. */
function ssoProviderOf(path: string | undefined, params: unknown): string | undefined {
  if (!path?.startsWith("/sso/callback/") && !path?.startsWith("/sso/saml2/sp/acs/")) return undefined;
  const providerId = (params as { providerId?: unknown } | undefined)?.providerId;
  return typeof providerId === "string" ? providerId : undefined;
}

export function createAuth(options: ReturnType<typeof authOptions>) {
  return betterAuth(options);
}

export type Auth = ReturnType<typeof createAuth>;
export type SessionUser = Auth["$Infer"]["Session"]["user"];
