// Some account changes need a recent sign-in (better-auth's fresh session: the last day). This
// signs out and opens the sign-in page, which brings the user back to /settings.
import type { ReactNode } from "react";
import { signOut } from "../../lib/sign-out.ts";
import { Alert } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";

export async function signInAgain(): Promise<void> {
  await signOut();
  window.location.assign(`/auth/signin?${new URLSearchParams({ redirect: "/settings" })}`);
}

export function ReauthenticateAlert({ children }: { children: ReactNode }) {
  return (
    <Alert variant="error" className="grid gap-2" data-testid="reauthenticate">
      <p>{children}</p>
      <Button type="button" variant="outline" size="sm" className="justify-self-start" onClick={signInAgain}>
        Sign in again
      </Button>
    </Alert>
  );
}
