// User-facing texts the spec fixes word for word, shared by the server and the pages.
export const RESET_REQUESTED_MESSAGE =
  "If this email exists in our system, check your email for the reset link.";

// Not in the spec: Packyard's answer (429) once an email has had too many failed sign-ins. The
// same for every email, whether or not an account has it.
export const SIGN_IN_LOCKED_MESSAGE =
  "Too many failed sign-in attempts for this email address. Try again in 15 minutes, or reset your password.";
