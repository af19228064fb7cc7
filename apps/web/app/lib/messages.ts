// User-facing texts the spec fixes word for word, shared by the server and the pages.
export const RESET_REQUESTED_MESSAGE =
  "If this email exists in our system, check your email for the reset link.";
