// The account's active sessions: browser and OS, address, when each began and was last active,
// and which one is this device. One can be signed out (by /settings' action, so no session token
// reaches the page), all others at once, or all of them including this one.
import { Laptop, Monitor, Smartphone, Tablet } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useFetcher, useRevalidator } from "react-router";
import { toast } from "sonner";
import type { SessionView } from "../../lib/account-settings.server.ts";
import { authClient } from "../../lib/auth-client.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "../ui/alert-dialog.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button, buttonVariants } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";

/** /settings' answer to a session's Sign out button. */
export type SessionAnswer = { intent: string | null; ok: boolean; error?: string };

function DeviceIcon({ device }: { device: string }) {
  const Icon = device === "mobile" ? Smartphone : device === "tablet" ? Tablet : device ? Monitor : Laptop;
  return <Icon className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />;
}

function SessionRow({ session }: { session: SessionView }) {
  const fetcher = useFetcher<SessionAnswer>();
  const handled = useRef<SessionAnswer | undefined>(undefined);
  useEffect(() => {
    const answer = fetcher.data;
    if (fetcher.state !== "idle" || !answer || handled.current === answer) return;
    handled.current = answer;
    if (answer.ok) toast.success(`Signed out ${session.browser} on ${session.os}`);
    else toast.error(answer.error ?? "Could not sign out that session");
  }, [fetcher.state, fetcher.data, session.browser, session.os]);
  const busy = fetcher.state !== "idle";
  return (
    <li className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 sm:flex-row sm:items-start sm:justify-between">
      <div className="flex min-w-0 gap-3">
        <DeviceIcon device={session.device} />
        <div className="grid min-w-0 gap-1">
          <p className="flex flex-wrap items-center gap-2 font-medium">
            <span>
              {session.browser} on {session.os}
            </span>
            {session.current ? <Badge variant="success">This device</Badge> : null}
          </p>
          <p className="break-all text-sm text-muted-foreground">
            {session.ipAddress ? `${session.ipAddress} · ` : ""}
            Signed in <FormattedDate iso={session.createdAt} withTime />
          </p>
          <p className="text-sm text-muted-foreground">
            Last active <FormattedDate iso={session.updatedAt} withTime />
          </p>
        </div>
      </div>
      {session.current ? null : (
        <fetcher.Form method="post" className="ml-8 shrink-0 sm:ml-0 sm:self-center">
          <input type="hidden" name="intent" value="revoke-session" />
          <input type="hidden" name="sessionId" value={session.id} />
          <Button
            type="submit"
            variant="outline"
            size="sm"
            disabled={busy}
            aria-label={`Sign out ${session.browser} on ${session.os}`}
          >
            {busy ? "Signing out…" : "Sign out"}
          </Button>
        </fetcher.Form>
      )}
    </li>
  );
}

export function SessionsCard({ sessions }: { sessions: SessionView[] }) {
  const revalidator = useRevalidator();
  const [busy, setBusy] = useState(false);
  const others = sessions.filter((s) => !s.current).length;

  async function revokeOthers() {
    setBusy(true);
    const { error } = await authClient.revokeOtherSessions();
    setBusy(false);
    if (error) {
      toast.error(error.message ?? "Could not sign out the other sessions");
      return;
    }
    toast.success("Signed out of every other session");
    await revalidator.revalidate();
  }

  async function revokeAll() {
    setBusy(true);
    const { error } = await authClient.revokeSessions();
    if (error) {
      setBusy(false);
      toast.error(error.message ?? "Could not sign out");
      return;
    }
    window.location.assign("/auth/signin");
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Sessions</CardTitle>
        <CardDescription>
          Where your account is signed in. Sign out of any session you don't recognize, then change your
          password.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <ul className="divide-y divide-border" aria-label="Active sessions">
          {sessions.map((session) => (
            <SessionRow key={session.id} session={session} />
          ))}
        </ul>
        <div className="flex flex-wrap gap-2 border-t border-border pt-4">
          <Button variant="outline" onClick={revokeOthers} disabled={busy || others === 0}>
            Sign out of other sessions
          </Button>
          <AlertDialog>
            <AlertDialogTrigger asChild>
              <Button variant="ghost" className="text-destructive hover:text-destructive" disabled={busy}>
                Sign out everywhere
              </Button>
            </AlertDialogTrigger>
            <AlertDialogContent>
              <AlertDialogTitle>Sign out everywhere?</AlertDialogTitle>
              <AlertDialogDescription>
                Every session ends, this one too: you will need to sign in again on each device. API keys keep
                working.
              </AlertDialogDescription>
              <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
                <AlertDialogCancel className={buttonVariants({ variant: "outline" })}>
                  Cancel
                </AlertDialogCancel>
                <AlertDialogAction className={buttonVariants({ variant: "destructive" })} onClick={revokeAll}>
                  Sign out everywhere
                </AlertDialogAction>
              </div>
            </AlertDialogContent>
          </AlertDialog>
        </div>
      </CardContent>
    </Card>
  );
}
