// What /settings reads and does on the server: the signed-in user's sessions (with browser and
// OS from the user agent), linked sign-in methods, the providers that can be linked, the
// two-factor state, what deleting the account would remove; and the two things that must not
// happen in the browser: revoking another session (its token never leaves the server) and
// setting a first password (better-auth's set-password is server-only, spec §5/§6).
import { authErrorMessage } from "@packyard/contract/messages.ts";
import { APIError } from "better-auth/api";
import Bowser from "bowser";
import { type AccountDeletionSummary, accountDeletionSummary } from "../../server/accounts/deletion.ts";
import { type SignInProvider, signInProviders } from "../../server/auth/providers.ts";
import type { Services } from "../../server/services.ts";

export interface SessionView {
  id: string;
  browser: string;
  os: string;
  /** desktop, mobile, tablet, tv… or "" when the user agent does not say. */
  device: string;
  ipAddress: string | null;
  createdAt: string;
  /** When the session was last extended: better-auth refreshes it once a day of use. */
  updatedAt: string;
  expiresAt: string;
  current: boolean;
}

export interface LinkedAccountView {
  id: string;
  providerId: string;
  /** The provider's name for the user, or "" for the password (its id is the user's). */
  accountId: string;
  label: string;
  createdAt: string;
}

export interface AccountSettings {
  sessions: SessionView[];
  accounts: LinkedAccountView[];
  /** Providers this Packyard offers that the user has not linked yet. */
  linkable: SignInProvider[];
  hasPassword: boolean;
  twoFactorEnabled: boolean;
  deletion: AccountDeletionSummary;
  /** How long the mailed deletion link stays valid, in hours. */
  deletionLinkHours: number;
  /** PASSWORD_MIN_LENGTH, for the password forms' hints. */
  passwordMinLength: number;
}

export const PASSWORD_PROVIDER_ID = "credential";

/** A session's user agent, as people name it: "Firefox 128", "macOS 14". */
export function describeUserAgent(userAgent: string | null | undefined): {
  browser: string;
  os: string;
  device: string;
} {
  if (!userAgent) return { browser: "Unknown browser", os: "Unknown system", device: "" };
  const parsed = Bowser.parse(userAgent);
  const major = parsed.browser.version?.split(".")[0];
  const browser = parsed.browser.name
    ? `${parsed.browser.name}${major ? ` ${major}` : ""}`
    : // Not a browser: the CLI or a script (curl/8.5.0, packyard/1.2.0).
      (userAgent.split(/[\s(]/)[0] ?? "").slice(0, 40) || "Unknown browser";
  const osVersion = parsed.os.versionName ?? parsed.os.version;
  const os = parsed.os.name ? `${parsed.os.name}${osVersion ? ` ${osVersion}` : ""}` : "Unknown system";
  return { browser, os, device: parsed.platform.type ?? "" };
}

const iso = (value: Date | string) => new Date(value).toISOString();

export async function loadAccountSettings(
  services: Services,
  headers: Headers,
  userId: string,
): Promise<AccountSettings> {
  const { auth, config, database } = services;
  const current = await auth.api.getSession({ headers });
  const context = await auth.$context;
  // Straight from better-auth's store rather than GET /list-sessions, which refuses sessions
  // older than a day (freshAge): the list must show whenever the page does.
  const [sessions, accounts, deletion] = await Promise.all([
    context.internalAdapter.listSessions(userId, { onlyActiveSessions: true }),
    auth.api.listUserAccounts({ headers }),
    accountDeletionSummary(database.db, userId),
  ]);
  const providers = signInProviders(config);
  const labelOf = (providerId: string) =>
    providerId === PASSWORD_PROVIDER_ID
      ? "Email and password"
      : (providers.find((p) => p.id === providerId)?.label ?? providerId);
  const now = Date.now();
  const sessionViews = sessions
    .filter((s) => new Date(s.expiresAt).getTime() > now)
    .map((s) => ({
      id: s.id,
      ...describeUserAgent(s.userAgent),
      ipAddress: s.ipAddress ?? null,
      createdAt: iso(s.createdAt),
      updatedAt: iso(s.updatedAt),
      expiresAt: iso(s.expiresAt),
      current: s.id === current?.session.id,
    }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.updatedAt.localeCompare(a.updatedAt));
  const accountViews = accounts
    .map((a) => ({
      id: a.id,
      providerId: a.providerId,
      accountId: a.providerId === PASSWORD_PROVIDER_ID ? "" : a.accountId,
      label: labelOf(a.providerId),
      createdAt: iso(a.createdAt),
    }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const linked = new Set(accounts.map((a) => a.providerId));
  const user = current?.user as { twoFactorEnabled?: boolean | null } | undefined;
  return {
    sessions: sessionViews,
    accounts: accountViews,
    linkable: providers.filter((p) => !linked.has(p.id)),
    hasPassword: linked.has(PASSWORD_PROVIDER_ID),
    twoFactorEnabled: user?.twoFactorEnabled === true,
    deletion,
    deletionLinkHours: Math.round(config.deleteAccountTokenSeconds / 3600),
    passwordMinLength: config.passwordMinLength,
  };
}

/** Signs out one of the user's other sessions; false when it is not theirs or already gone. */
export async function revokeSessionById(
  services: Services,
  headers: Headers,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  const context = await services.auth.$context;
  const sessions = await context.internalAdapter.listSessions(userId);
  const session = sessions.find((s) => s.id === sessionId);
  if (!session) return false;
  await services.auth.api.revokeSession({ body: { token: session.token }, headers });
  return true;
}

export type SetPasswordOutcome = { ok: true } | { ok: false; code: string; message: string };

/** better-auth's server-only set-password, for a user who signed up through a provider. */
export async function setFirstPassword(
  services: Services,
  headers: Headers,
  newPassword: string,
): Promise<SetPasswordOutcome> {
  try {
    await services.auth.api.setPassword({ body: { newPassword }, headers });
    return { ok: true };
  } catch (error) {
    if (error instanceof APIError) {
      // Spec §8's words ('user already has a password'), as the HTTP answers carry them.
      const body = (error.body ?? {}) as { code?: string; message?: string };
      return {
        ok: false,
        code: body.code ?? String(error.status),
        message: authErrorMessage(body) ?? error.message,
      };
    }
    throw error;
  }
}
