// Choose a new password from the emailed link (better-auth redirects here with ?token=…, or
// with ?error=INVALID_TOKEN when the link is expired or already used). API keys outlive a
// password, so the page offers to revoke them too (server/auth/password-reset-keys.ts): checked
// by default, because a reset is often made by someone who fears the account is in other hands,
// and a key someone else made keeps publishing until it is revoked.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { newPasswordSchema, passwordLengthMessage } from "@packyard/contract/account.ts";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { services } from "../../lib/session.server.ts";
import type { Route } from "./+types/reset-password";

export function loader({ context }: Route.LoaderArgs) {
  const { config } = services(context);
  return { passwordLimits: { min: config.passwordMinLength, max: config.passwordMaxLength } };
}

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Choose a new password",
    noindex: true,
  });

const resetPasswordForm = (passwordLimits: { min: number; max: number }) =>
  z
    .object({
      password: newPasswordSchema(passwordLimits, "Please choose a password"),
      confirm: z.string(),
      revokeApiKeys: z.literal("on").optional(),
    })
    .refine((values) => values.password === values.confirm, {
      path: ["confirm"],
      message: "Passwords do not match",
    });

export default function ResetPassword({ loaderData }: Route.ComponentProps) {
  const { passwordLimits } = loaderData;
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const token = search.get("token");
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseForm(formData, resetPasswordForm(passwordLimits)),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      // revokeApiKeys is Packyard's field (better-auth's client sends the body as it is given).
      const body = {
        newPassword: submission.value.password,
        token: token ?? undefined,
        revokeApiKeys: submission.value.revokeApiKeys === "on",
      };
      const { error } = await authClient.resetPassword(body);
      setBusy(false);
      if (error) {
        setLastResult(
          error.code === "PASSWORD_TOO_SHORT" || error.code === "PASSWORD_TOO_LONG"
            ? submission.reply({
                fieldErrors: { password: [passwordLengthMessage(passwordLimits, error.code)] },
              })
            : submission.reply({
                formErrors: [
                  error.code === "INVALID_TOKEN"
                    ? "The reset link is invalid or has expired."
                    : (error.message ?? ""),
                ],
              }),
        );
        return;
      }
      toast.success("Password changed. Sign in with your new password.");
      await navigate("/auth/signin", { replace: true });
    },
  });

  if (!token || search.get("error")) {
    return (
      <AuthShell title="This link is no longer valid">
        <div className="grid gap-4">
          <Alert variant="error">The reset link is invalid or has expired. Request a new one.</Alert>
          <Button asChild>
            <Link to="/auth/forgot-password">Request a new link</Link>
          </Button>
        </div>
      </AuthShell>
    );
  }

  return (
    <AuthShell title="Choose a new password">
      <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
        {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
        <FormField
          label="New password"
          name={fields.password.name}
          type="password"
          autoComplete="new-password"
          hint={`At least ${passwordLimits.min} characters.`}
          error={fields.password.errors?.[0]}
        />
        <FormField
          label="Confirm new password"
          name={fields.confirm.name}
          type="password"
          autoComplete="new-password"
          error={fields.confirm.errors?.[0]}
        />
        <label className="flex items-start gap-3 text-sm">
          <input
            type="checkbox"
            name={fields.revokeApiKeys.name}
            defaultChecked
            className="mt-0.5 size-4 accent-primary"
            aria-describedby="revoke-api-keys-hint"
          />
          <span>
            Also revoke my API keys
            <span id="revoke-api-keys-hint" className="block text-muted-foreground">
              API keys keep working after a password reset. Leave this unchecked only if you trust every key
              you have; scripts and CI using a revoked key need a new one.
            </span>
          </span>
        </label>
        <Button type="submit" disabled={busy}>
          Change password
        </Button>
      </form>
    </AuthShell>
  );
}
