// better-auth's browser client. It re-checks the session every 60 s and right after sign-in,
// sign-up, sign-out, user updates and email verification (spec §4), and after every two-factor
// call. A password sign-in of an account with two-factor authentication on answers
// `twoFactorRedirect` instead of a session: the browser goes to /auth/two-factor for the code.
import { twoFactorClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";
import { safeRedirectPath } from "./redirects.ts";

/** /auth/two-factor, carrying where the sign-in was headed (the sign-in page's `redirect`). */
export function twoFactorPath(location: { pathname: string; search: string }): string {
  const params = new URLSearchParams(location.search);
  const target = location.pathname.startsWith("/auth/")
    ? params.get("redirect")
    : `${location.pathname}${location.search}`;
  const redirect = safeRedirectPath(target, "");
  return redirect ? `/auth/two-factor?${new URLSearchParams({ redirect })}` : "/auth/two-factor";
}

export const authClient = createAuthClient({
  basePath: "/api/auth",
  sessionOptions: { refetchInterval: 60, refetchOnWindowFocus: true },
  plugins: [
    twoFactorClient({
      onTwoFactorRedirect() {
        window.location.assign(twoFactorPath(window.location));
        // The sign-in call never settles: the page is being replaced, and the caller must not go
        // on as if it had signed in (it has no session until the code is entered).
        return new Promise<void>(() => {});
      },
    }),
  ],
});
