// /settings: password and sessions.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { useState } from "react";
import { toast } from "sonner";
import { z } from "zod";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Settings",
    noindex: true,
  });

const changePasswordForm = z.object({
  currentPassword: z.string().min(1, "Enter your current password"),
  newPassword: z.string().min(1, "Choose a new password"),
});

export default function Settings() {
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseForm(formData, changePasswordForm),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      const formElement = event.currentTarget;
      setBusy(true);
      const { error } = await authClient.changePassword({
        ...submission.value,
        revokeOtherSessions: true,
      });
      setBusy(false);
      if (error) {
        if (error.code === "INVALID_PASSWORD")
          setLastResult(
            submission.reply({ fieldErrors: { currentPassword: ["The current password is not correct"] } }),
          );
        else if (error.code === "PASSWORD_TOO_SHORT" || error.code === "PASSWORD_TOO_LONG")
          setLastResult(submission.reply({ fieldErrors: { newPassword: [error.message ?? ""] } }));
        else toast.error(error.message ?? "Could not change the password");
        return;
      }
      formElement.reset();
      toast.success("Password changed. Other sessions were signed out.");
    },
  });

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
            <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
              <FormField
                label="Current password"
                name={fields.currentPassword.name}
                type="password"
                autoComplete="current-password"
                error={fields.currentPassword.errors?.[0]}
              />
              <FormField
                label="New password"
                name={fields.newPassword.name}
                type="password"
                autoComplete="new-password"
                error={fields.newPassword.errors?.[0]}
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
