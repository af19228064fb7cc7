// better-auth's browser client. It re-checks the session every 60 s and right after sign-in,
// sign-up, sign-out, user updates and email verification (spec §4).
import { createAuthClient } from "better-auth/react";

export const authClient = createAuthClient({
  basePath: "/api/auth",
  sessionOptions: { refetchInterval: 60, refetchOnWindowFocus: true },
});
