// The guarded parent of every signed-in route. No session: off to sign-in, coming back here
// afterwards. No username yet: onboarding first. In the browser the session is re-checked
// every 60 s and after auth events; losing it sends the user to sign-in too.
import { useEffect } from "react";
import { Outlet, useLocation, useNavigate } from "react-router";
import { authClient } from "../../lib/auth-client.ts";
import { signInUrl } from "../../lib/redirects.ts";
import { requireOnboardedUser, requireUser } from "../../lib/session.server.ts";
import { isSigningOut } from "../../lib/sign-out.ts";
import type { Route } from "./+types/layout";

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user =
    url.pathname === "/onboarding"
      ? await requireUser(request, context, url)
      : await requireOnboardedUser(request, context, url);
  return { user };
}

export default function GuardedLayout({ loaderData }: Route.ComponentProps) {
  const session = authClient.useSession();
  const navigate = useNavigate();
  const location = useLocation();
  useEffect(() => {
    if (!session.isPending && !session.data && !session.error && !isSigningOut()) {
      const url = new URL(location.pathname + location.search, window.location.origin);
      void navigate(signInUrl(url), { replace: true });
    }
  }, [session.isPending, session.data, session.error, navigate, location.pathname, location.search]);
  return <Outlet context={loaderData.user} />;
}
