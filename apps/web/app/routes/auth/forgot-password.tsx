// Request a password reset link. The answer never says whether the email has an account.

import { emailSchema } from "@packyard/contract/account.ts";
import { RESET_REQUESTED_MESSAGE } from "@packyard/contract/messages.ts";
import { useState } from "react";
import { Link } from "react-router";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Reset your password",
  });

export default function ForgotPassword() {
  const [error, setError] = useState<string>();
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = emailSchema.safeParse(String(new FormData(event.currentTarget).get("email") ?? "").trim());
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    setBusy(true);
    const { error: failure } = await authClient.requestPasswordReset({
      email: parsed.data.toLowerCase(),
      redirectTo: "/auth/reset-password",
    });
    setBusy(false);
    if (failure) setError(failure.message ?? "Could not send the reset link.");
    else setSent(true);
  }

  return (
    <AuthShell
      title="Reset your password"
      description="Enter the email of your account and we will send you a link to choose a new password."
      footer={
        <Link to="/auth/signin" className="text-primary hover:underline">
          Back to sign in
        </Link>
      }
    >
      {sent ? (
        <Alert variant="success">{RESET_REQUESTED_MESSAGE}</Alert>
      ) : (
        <form className="grid gap-4" onSubmit={onSubmit} noValidate>
          <FormField label="Email" name="email" type="email" autoComplete="email" error={error} />
          <Button type="submit" disabled={busy}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthShell>
  );
}
