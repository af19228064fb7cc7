// Choose a new password from the emailed link (better-auth redirects here with ?token=…, or
// with ?error=INVALID_TOKEN when the link is expired or already used).
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/reset-password";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Choose a new password",
    noindex: true,
  });

export default function ResetPassword() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const token = search.get("token");
  const [errors, setErrors] = useState<{ password?: string; confirm?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

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

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    const confirm = String(form.get("confirm") ?? "");
    if (!password) return setErrors({ password: "Please choose a password" });
    if (password !== confirm) return setErrors({ confirm: "Passwords do not match" });
    setErrors({});
    setBusy(true);
    const { error } = await authClient.resetPassword({ newPassword: password, token: token ?? undefined });
    setBusy(false);
    if (error) {
      if (error.code === "PASSWORD_TOO_SHORT" || error.code === "PASSWORD_TOO_LONG") {
        setErrors({ password: error.message });
      } else {
        setErrors({
          form: error.code === "INVALID_TOKEN" ? "The reset link is invalid or has expired." : error.message,
        });
      }
      return;
    }
    toast.success("Password changed. Sign in with your new password.");
    await navigate("/auth/signin", { replace: true });
  }

  return (
    <AuthShell title="Choose a new password">
      <form className="grid gap-4" onSubmit={onSubmit} noValidate>
        {errors.form ? <Alert variant="error">{errors.form}</Alert> : null}
        <FormField
          label="New password"
          name="password"
          type="password"
          autoComplete="new-password"
          error={errors.password}
        />
        <FormField
          label="Confirm new password"
          name="confirm"
          type="password"
          autoComplete="new-password"
          error={errors.confirm}
        />
        <Button type="submit" disabled={busy}>
          Change password
        </Button>
      </form>
    </AuthShell>
  );
}
