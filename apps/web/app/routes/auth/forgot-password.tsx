// Request a password reset link. The answer never says whether the email has an account.

import { type SubmissionResult, useForm } from "@conform-to/react";
import { emailSchema } from "@packyard/contract/account.ts";
import { RESET_REQUESTED_MESSAGE } from "@packyard/contract/messages.ts";
import { useState } from "react";
import { Link } from "react-router";
import { z } from "zod";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { parseForm, trimmed } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/forgot-password";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Reset your password",
  });

const forgotPasswordForm = z.object({ email: trimmed(emailSchema) });

export default function ForgotPassword() {
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseForm(formData, forgotPasswordForm),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      const { error: failure } = await authClient.requestPasswordReset({
        email: submission.value.email.toLowerCase(),
        redirectTo: "/auth/reset-password",
      });
      setBusy(false);
      if (failure) {
        setLastResult(
          submission.reply({ fieldErrors: { email: [failure.message ?? "Could not send the reset link."] } }),
        );
      } else setSent(true);
    },
  });

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
        <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
          <FormField
            label="Email"
            name={fields.email.name}
            type="email"
            autoComplete="email"
            error={fields.email.errors?.[0]}
          />
          <Button type="submit" disabled={busy}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthShell>
  );
}
