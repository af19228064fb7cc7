// What each error code that authentication redirects with means, and what to do about it: the
// redirect error codes of spec §8, the codes better-auth 1.7 sends besides them, and the OAuth
// errors an identity provider may send back. The sign-in page (?error=<code>) and the server's
// /error page read the same texts.

export interface AuthErrorText {
  /** A short headline. */
  title: string;
  /** What happened, in the user's terms. */
  explanation: string;
  /** What to do now. */
  action: string;
}

const restart = "Start again from the sign-in page.";

const stateExpired: AuthErrorText = {
  title: "This sign-in request has expired",
  explanation:
    "Each sign-in through a provider works once, within 10 minutes, in the browser that started it. This one was already used, took too long, or was opened in another browser.",
  action: restart,
};

const providerTrouble: AuthErrorText = {
  title: "The sign-in provider could not complete the sign-in",
  explanation: "The provider reported a problem on its side, or is unavailable right now.",
  action: "Wait a moment and try again. If it keeps happening, sign in with your email and password.",
};

export const AUTH_ERROR_TEXTS: Record<string, AuthErrorText> = {
  // Links mailed by Packyard (email verification, email change).
  token_expired: {
    title: "This link has expired",
    explanation: "Links in Packyard's emails work for a limited time; a verification link for one hour.",
    action:
      "Request a new email: sign in and Packyard sends a fresh verification link, or start the change again from your profile.",
  },
  invalid_token: {
    title: "This link is not valid",
    explanation: "The link was changed, was already used, or was replaced by a newer one.",
    action: "Use the link in the most recent email, or request a new one.",
  },
  user_not_found: {
    title: "The account for this link no longer exists",
    explanation: "The account this link was sent for has been deleted, or its email address has changed.",
    action: "Sign in with the account's current email address, or create a new account.",
  },
  unauthorized: {
    title: "You need to be signed in",
    explanation: "This link or action belongs to an account, and you are not signed in as that account.",
    action: "Sign in as the account the email was sent to, then open the link again.",
  },
  INVALID_TOKEN: {
    title: "This password reset link is not valid",
    explanation: "Reset links work once and for one hour; a newer request replaces older links.",
    action: "Request a new reset link from “Forgot your password?” and use it within the hour.",
  },

  // An organization's own identity provider (docs/sso.md): what the SSO plugin redirects with.
  saml_error: {
    title: "Your organization's sign-in could not be accepted",
    explanation:
      "The identity provider's answer was not valid: its signature did not match the certificate your organization configured, or it had expired.",
    action: `${restart} If it happens again, tell your organization's administrator: the provider's certificate or clock may have changed.`,
  },
  invalid_saml_response: {
    title: "Your organization's sign-in could not be accepted",
    explanation:
      "The identity provider's answer was not meant for Packyard (another audience or recipient) or could not be checked.",
    action: `${restart} If it happens again, tell your organization's administrator: the application's ACS URL or entity ID may be wrong at the identity provider.`,
  },
  SSO_EMAIL_DOMAIN: {
    title: "This address is not your organization's",
    explanation:
      "Your organization's identity provider signed in an address outside the organization's domain, and Packyard takes members only from that domain.",
    action:
      "Sign in at the identity provider with your work address, or ask your administrator which account to use.",
  },
  invalid_provider: {
    title: "Your organization's sign-in is not set up correctly",
    explanation:
      "Packyard could not use the organization's OpenID Connect provider: it was removed or its settings are incomplete.",
    action:
      "Tell your organization's administrator; meanwhile sign in with your email and password if you have one.",
  },
  replay_detected: {
    title: "This sign-in was already used",
    explanation: "Each answer from an identity provider signs in once; this one had been used before.",
    action: restart,
  },
  invalid_state: stateExpired,
  // Sign-in and linking through a provider.
  // What better-auth calls state_mismatch (a sign-in request used twice, too old, or from another
  // browser); Packyard redirects with the spec's name for it.
  please_restart_the_process: stateExpired,
  invalid_callback_request: {
    title: "The provider's answer could not be read",
    explanation: "The provider sent the browser back to Packyard with a malformed request.",
    action: `${restart} If it happens again, the provider may be misconfigured: tell the administrator.`,
  },
  state_not_found: {
    title: "This sign-in was not started here",
    explanation:
      "The provider sent the browser back without the sign-in request Packyard gave it, for example from a bookmark or an old tab.",
    action: restart,
  },
  state_mismatch: stateExpired,
  state_invalid: stateExpired,
  state_security_mismatch: stateExpired,
  no_code: {
    title: "The provider did not finish the sign-in",
    explanation: "The provider sent the browser back to Packyard without confirming who you are.",
    action: restart,
  },
  oauth_provider_not_found: {
    title: "This sign-in method is not available",
    explanation: "The provider is not set up on this Packyard, or was removed.",
    action: "Use one of the sign-in methods on the sign-in page.",
  },
  invalid_code: {
    title: "The provider did not accept the sign-in",
    explanation:
      "The provider refused to confirm the sign-in, usually because it took too long or the same answer was used twice.",
    action: restart,
  },
  unable_to_get_user_info: {
    title: "Your profile could not be read",
    explanation: "Packyard signed in with the provider but could not read your profile from it.",
    action: `${restart} If it keeps happening, sign in with your email and password.`,
  },
  no_callback_url: {
    title: "Packyard did not know where to continue",
    explanation: "The sign-in request had no page to return to.",
    action: restart,
  },
  unable_to_link_account: {
    title: "The account could not be linked",
    explanation:
      "Packyard links a provider account only when the provider confirms that you own its email address, and this one did not (or the link could not be stored).",
    action:
      "Verify your email address with the provider, then link it again from Settings. Your Packyard account is unchanged.",
  },
  "email_doesn't_match": {
    title: "The email addresses do not match",
    explanation:
      "A provider account is linked only when its email address is the same as your Packyard account's.",
    action:
      "Link a provider account that uses the same email address, or change one of the two addresses so that they match.",
  },
  email_does_not_match: {
    title: "The email addresses do not match",
    explanation:
      "A provider account is linked only when its email address is the same as your Packyard account's.",
    action:
      "Link a provider account that uses the same email address, or change one of the two addresses so that they match.",
  },
  account_already_linked_to_different_user: {
    title: "This provider account belongs to another Packyard user",
    explanation: "The provider account is already linked to a different Packyard account.",
    action: "Sign in to that account and unlink it in Settings first, or link another provider account.",
  },
  email_not_found: {
    title: "The provider did not share your email address",
    explanation: "Packyard needs an email address for every account, and the provider did not send one.",
    action:
      "Allow the provider to share your email address (or add one to your profile there), then try again.",
  },
  email_not_verified: {
    title: "Your email address is not verified",
    explanation: "This account can sign in once its email address is verified.",
    action: "Open the verification link we emailed you, then sign in again.",
  },
  internal_server_error: {
    title: "Something went wrong on our side",
    explanation: "Packyard could not complete the sign-in because of an internal error.",
    action: "Try again in a moment. If it keeps happening, tell us the error code.",
  },
  account_not_linked: {
    title: "An account with this email address already exists",
    explanation:
      "The provider has not confirmed that you own this email address, so Packyard does not add it to the existing account.",
    action:
      "Sign in with your email and password instead. To use the provider too, verify the address with the provider, then link it from Settings.",
  },
  signup_disabled: {
    title: "New accounts cannot be created this way",
    explanation: "Signing up through this provider is turned off; only existing accounts can use it.",
    action: "Create an account with your email and a password, then link the provider from Settings.",
  },
  unable_to_create_user: {
    title: "Your account could not be created",
    explanation: "Packyard could not store the new account.",
    action: "Try again in a moment. If it keeps happening, tell us the error code.",
  },
  unable_to_create_session: {
    title: "You could not be signed in",
    explanation: "Packyard confirmed who you are but could not start a session.",
    action: "Try again in a moment.",
  },
  issuer_mismatch: {
    title: "The answer came from an unexpected server",
    explanation: "The sign-in answer did not come from the provider Packyard sent you to, so it was refused.",
    action: `${restart} If it happens again, tell the administrator.`,
  },
  issuer_missing: {
    title: "The answer came from an unexpected server",
    explanation: "The sign-in answer did not say which provider sent it, so it was refused.",
    action: `${restart} If it happens again, tell the administrator.`,
  },
  nonce_binding_missing: {
    title: "The sign-in was interrupted",
    explanation: "Packyard could not match the provider's answer to the sign-in it started.",
    action: restart,
  },

  // OAuth errors a provider sends back (RFC 6749 §4.1.2.1, OpenID Connect Core §3.1.2.6).
  access_denied: {
    title: "The sign-in was cancelled",
    explanation: "You cancelled at the provider, or the provider refused to let Packyard sign you in.",
    action: "Start again if you want to sign in with this provider, or use your email and password.",
  },
  login_required: {
    title: "The provider asked you to sign in",
    explanation: "The provider needs you to sign in before it can continue.",
    action: restart,
  },
  consent_required: {
    title: "The provider needs your consent",
    explanation: "Packyard may only sign you in once you allow it at the provider.",
    action: `${restart} Allow access when the provider asks.`,
  },
  interaction_required: {
    title: "The provider needs you to act",
    explanation: "The provider has a question for you before it continues.",
    action: restart,
  },
  invalid_request: {
    title: "The provider refused the sign-in request",
    explanation: "The provider did not accept the request Packyard sent, which points to its configuration.",
    action: "Use your email and password for now, and tell the administrator.",
  },
  unauthorized_client: {
    title: "The provider refused Packyard",
    explanation:
      "The provider does not allow this Packyard to sign people in, which points to its configuration.",
    action: "Use your email and password for now, and tell the administrator.",
  },
  invalid_scope: {
    title: "The provider refused the requested access",
    explanation: "Packyard asked the provider for your email and profile, and it did not allow that.",
    action: "Use your email and password for now, and tell the administrator.",
  },
  unsupported_response_type: {
    title: "The provider refused the sign-in request",
    explanation: "The provider does not support the kind of sign-in Packyard asked for.",
    action: "Use your email and password for now, and tell the administrator.",
  },
  server_error: providerTrouble,
  temporarily_unavailable: providerTrouble,
};

const unknown: AuthErrorText = {
  title: "Something went wrong",
  explanation: "The request could not be completed.",
  action: "Go back and try again. If it keeps happening, tell us the error code.",
};

export interface ExplainedAuthError extends AuthErrorText {
  /** The code as received ('Unknown' when there was none). */
  code: string;
  /** Whether the code is one of the known ones (else the texts are generic). */
  known: boolean;
}

/** The texts for an error code from a redirect (`?error=`), generic ones for an unknown code. */
export function explainAuthError(code: string | null | undefined): ExplainedAuthError {
  const given = code?.trim() ? code.trim().slice(0, 200) : "Unknown";
  const texts = Object.hasOwn(AUTH_ERROR_TEXTS, given) ? AUTH_ERROR_TEXTS[given] : undefined;
  return texts ? { ...texts, code: given, known: true } : { ...unknown, code: given, known: false };
}

/** Redirect error codes of spec §8, in its order. */
export const SPEC_REDIRECT_ERROR_CODES = [
  "token_expired",
  "invalid_token",
  "user_not_found",
  "unauthorized",
  "please_restart_the_process",
  "invalid_callback_request",
  "state_not_found",
  "no_code",
  "oauth_provider_not_found",
  "invalid_code",
  "unable_to_get_user_info",
  "no_callback_url",
  "unable_to_link_account",
  "email_doesn't_match",
  "account_already_linked_to_different_user",
  "email_not_found",
  "INVALID_TOKEN",
  "internal_server_error",
  "account_not_linked",
  "signup_disabled",
] as const;
