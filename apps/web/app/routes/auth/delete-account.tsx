// /auth/delete-account: where a mailed account-deletion link lands when better-auth refuses it
// (server/auth/account-deletion-link.ts). ?error=INVALID_TOKEN: the link is wrong, expired, used,
// or for another account than the one signed in. ?token=…: the browser was not signed in; after
// signing in, the account can be deleted from here with the same link. Decision 015.
import { TriangleAlert } from "lucide-react";
import { Link, redirect } from "react-router";
import { accountDeletionSummary } from "../../../server/accounts/deletion.ts";
import { AuthShell } from "../../components/auth-shell.tsx";
import { DELETED_CALLBACK_URL } from "../../components/settings/delete-account.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { pageMeta } from "../../lib/meta.ts";
import { getSessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/delete-account";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Delete your account",
    noindex: true,
  });

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await getSessionUser(request, context);
  const s = services(context);
  const hours = Math.round(s.config.deleteAccountTokenSeconds / 3600);
  if (url.searchParams.get("error") === "INVALID_TOKEN")
    return { kind: "invalid" as const, signedIn: user !== null, hours };
  const token = url.searchParams.get("token") ?? "";
  if (!/^[0-9a-z]{1,64}$/.test(token)) throw redirect(user ? "/settings" : "/auth/signin");
  if (!user) {
    const back = `/auth/delete-account?${new URLSearchParams({ token })}`;
    return {
      kind: "sign-in" as const,
      signIn: `/auth/signin?${new URLSearchParams({ redirect: back })}`,
      hours,
    };
  }
  const summary = await accountDeletionSummary(s.database.db, user.id);
  const link = `/api/auth/delete-user/callback?${new URLSearchParams({ token, callbackURL: DELETED_CALLBACK_URL })}`;
  return { kind: "confirm" as const, email: user.email, summary, link, hours };
}

function plural(n: number, one: string) {
  return `${n} ${n === 1 ? one : `${one}s`}`;
}

export default function DeleteAccount({ loaderData }: Route.ComponentProps) {
  if (loaderData.kind === "invalid") {
    return (
      <AuthShell title="This deletion link doesn't work">
        <div className="grid gap-4 text-sm">
          <Alert variant="error" data-testid="deletion-link-invalid">
            Invalid token: nothing was deleted.
          </Alert>
          <p className="text-muted-foreground">
            The link may have expired (links work for {plural(loaderData.hours, "hour")}), been used already,
            or belong to another account than the one signed in in this browser. Ask for a new link from your
            settings, and open it in a browser signed in to that account.
          </p>
          <Button asChild>
            <Link to={loaderData.signedIn ? "/settings" : "/auth/signin?redirect=%2Fsettings"}>
              {loaderData.signedIn ? "Go to settings" : "Sign in"}
            </Link>
          </Button>
        </div>
      </AuthShell>
    );
  }
  if (loaderData.kind === "sign-in") {
    return (
      <AuthShell title="Sign in to delete your account">
        <div className="grid gap-4 text-sm">
          <p className="text-muted-foreground">
            For your safety, the deletion link only works in a browser signed in to the account it was sent
            to. Sign in, then confirm the deletion. The link stays valid until then (up to{" "}
            {plural(loaderData.hours, "hour")} after it was sent).
          </p>
          <Button asChild>
            <Link to={loaderData.signIn}>Sign in</Link>
          </Button>
        </div>
      </AuthShell>
    );
  }
  const { summary } = loaderData;
  return (
    <AuthShell title="Delete your account?">
      <div className="grid gap-4 text-sm">
        <p>
          You are signed in as <span className="break-all font-medium">{loaderData.email}</span>.
        </p>
        <Alert variant="error" className="flex gap-3">
          <TriangleAlert className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
          <p>
            This removes {plural(summary.projects, "project")} with {plural(summary.releases, "release")} and{" "}
            {plural(summary.files, "file")}, their repositories and signing keys,{" "}
            {plural(summary.apiKeys, "API key")}, your linked accounts and every session. It can't be undone.
          </p>
        </Alert>
        <Button variant="destructive" asChild>
          {/* Better-auth's callback, not a page of this app: a full navigation. */}
          <a href={loaderData.link}>Delete my account</a>
        </Button>
        <Button variant="outline" asChild>
          <Link to="/settings">Keep my account</Link>
        </Button>
      </div>
    </AuthShell>
  );
}
