// User-facing texts the spec fixes word for word, shared by the server and the pages.
export const RESET_REQUESTED_MESSAGE =
  "If this email exists in our system, check your email for the reset link.";

// Not in the spec: Packyard's answer (429) once an email has had too many failed sign-ins. The
// same for every email, whether or not an account has it.
export const SIGN_IN_LOCKED_MESSAGE =
  "Too many failed sign-in attempts for this email address. Try again in 15 minutes, or reset your password.";

// Spec §8's words for errors better-auth 1.7 words differently, by better-auth's error code. The
// server answers with these (server/auth/account-rules.ts); pages show them as they come.
export const SPEC_AUTH_MESSAGES: Readonly<Record<string, string>> = {
  EMAIL_ALREADY_VERIFIED: "You can only send a verification email to an unverified email",
  EMAIL_MISMATCH: "You can only send a verification email to your own email",
  PASSWORD_ALREADY_SET: "user already has a password",
  ACCOUNT_NOT_FOUND: "Account not found.",
  // 403 'Invalid {field}': the field a client sends is redirectTo.
  INVALID_REDIRECT_URL: "Invalid redirectTo",
};

/** The message for a better-auth error: spec §8's words where they differ, else better-auth's. */
export function authErrorMessage(error: { code?: string; message?: string }): string | undefined {
  return (error.code && SPEC_AUTH_MESSAGES[error.code]) || error.message;
}
