// /settings: password and sessions.
import { useState } from "react";
import { toast } from "sonner";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Settings",
    noindex: true,
  });

export default function Settings() {
  const [errors, setErrors] = useState<{ currentPassword?: string; newPassword?: string }>({});
  const [busy, setBusy] = useState(false);

  async function changePassword(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const currentPassword = String(form.get("currentPassword") ?? "");
    const newPassword = String(form.get("newPassword") ?? "");
    const next: typeof errors = {};
    if (!currentPassword) next.currentPassword = "Enter your current password";
    if (!newPassword) next.newPassword = "Choose a new password";
    setErrors(next);
    if (Object.keys(next).length) return;
    setBusy(true);
    const { error } = await authClient.changePassword({
      currentPassword,
      newPassword,
      revokeOtherSessions: true,
    });
    setBusy(false);
    if (error) {
      if (error.code === "INVALID_PASSWORD")
        setErrors({ currentPassword: "The current password is not correct" });
      else if (error.code === "PASSWORD_TOO_SHORT" || error.code === "PASSWORD_TOO_LONG")
        setErrors({ newPassword: error.message });
      else toast.error(error.message ?? "Could not change the password");
      return;
    }
    formElement.reset();
    toast.success("Password changed. Other sessions were signed out.");
  }

  async function revokeOthers() {
    const { error } = await authClient.revokeOtherSessions();
    if (error) toast.error(error.message ?? "Could not sign out other sessions");
    else toast.success("Signed out of all other sessions");
  }

  return (
    <>
      <PageHeader title="Settings" description="Keep your account secure." />
      <div className="grid max-w-2xl gap-6">
        <Card>
          <CardHeader>
            <CardTitle>Change password</CardTitle>
            <CardDescription>Changing your password signs out every other session.</CardDescription>
          </CardHeader>
          <CardContent>
            <form className="grid gap-4" onSubmit={changePassword} noValidate>
              <FormField
                label="Current password"
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                error={errors.currentPassword}
              />
              <FormField
                label="New password"
                name="newPassword"
                type="password"
                autoComplete="new-password"
                error={errors.newPassword}
              />
              <Button type="submit" className="justify-self-start" disabled={busy}>
                Change password
              </Button>
            </form>
          </CardContent>
        </Card>
        <Card>
          <CardHeader>
            <CardTitle>Sessions</CardTitle>
            <CardDescription>
              Signed in on a machine you no longer use? Sign out everywhere else.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <Button variant="outline" onClick={revokeOthers}>
              Sign out of other sessions
            </Button>
          </CardContent>
        </Card>
      </div>
    </>
  );
}
