// The password card: change it (better-auth's change-password, signing out the other sessions),
// or, for a user who signed up through a provider and has none, set a first one. set-password is
// server-only (spec §5/§6): that form posts to /settings' action.
import { useForm } from "@conform-to/react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { authClient } from "../../lib/auth-client.ts";
import { type FormReply, parseForm, text } from "../../lib/forms.ts";
import { Alert } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { FormField } from "../ui/form-field.tsx";
import { type Refusal, useClientForm, WRONG_PASSWORD } from "./client-form.ts";

const changePasswordForm = z.object({
  currentPassword: text(z.string().min(1, "Enter your current password")),
  newPassword: text(z.string().min(1, "Choose a new password")),
});

export function ChangePasswordCard({ minLength }: { minLength: number }) {
  const { form, fields, busy } = useClientForm(
    "change-password",
    changePasswordForm,
    async (value): Promise<Refusal | undefined> => {
      const { error } = await authClient.changePassword({ ...value, revokeOtherSessions: true });
      if (!error) {
        toast.success("Password changed. Other sessions were signed out.");
        return undefined;
      }
      if (error.code === "INVALID_PASSWORD") return { fieldErrors: { currentPassword: [WRONG_PASSWORD] } };
      if (error.code === "PASSWORD_TOO_SHORT")
        return { fieldErrors: { newPassword: [`Password must be at least ${minLength} characters`] } };
      if (error.code === "PASSWORD_TOO_LONG")
        return { fieldErrors: { newPassword: [error.message ?? "Password length is not allowed"] } };
      return { formError: error.message ?? "Could not change the password" };
    },
  );
  return (
    <Card>
      <CardHeader>
        <CardTitle>Change password</CardTitle>
        <CardDescription>Changing your password signs out every other session.</CardDescription>
      </CardHeader>
      <CardContent>
        <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
          {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
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
            hint={`At least ${minLength} characters.`}
            error={fields.newPassword.errors?.[0]}
          />
          <Button type="submit" className="justify-self-start" disabled={busy}>
            Change password
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}

export const setPasswordForm = z
  .object({
    intent: z.literal("set-password"),
    newPassword: text(z.string().min(1, "Choose a password")),
    confirmPassword: text(z.string()),
  })
  .refine((v) => v.newPassword === v.confirmPassword, {
    message: "The passwords do not match",
    path: ["confirmPassword"],
  });

/** The key of the set-password fetcher: the page toasts its answer (this card is then gone). */
export const SET_PASSWORD_FETCHER = "set-password";

export function SetPasswordCard({
  email,
  minLength,
  reply,
}: {
  email: string;
  minLength: number;
  /** The action's answer to a post without JavaScript. */
  reply?: FormReply;
}) {
  const fetcher = useFetcher<FormReply>({ key: SET_PASSWORD_FETCHER });
  const [form, fields] = useForm({
    id: "set-password",
    lastResult: fetcher.state === "idle" ? (fetcher.data ?? reply)?.result : undefined,
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseForm(formData, setPasswordForm),
  });
  const busy = fetcher.state !== "idle";
  return (
    <Card>
      <CardHeader>
        <CardTitle>Set a password</CardTitle>
        <CardDescription>
          You sign in through a linked account. Set a password to also sign in with{" "}
          <span className="font-medium text-foreground">{email}</span> and a password, and to turn on
          two-factor authentication.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form method="post" id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
          {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
          <input type="hidden" name="intent" value="set-password" />
          <FormField
            label="New password"
            name={fields.newPassword.name}
            type="password"
            autoComplete="new-password"
            hint={`At least ${minLength} characters.`}
            error={fields.newPassword.errors?.[0]}
          />
          <FormField
            label="Confirm password"
            name={fields.confirmPassword.name}
            type="password"
            autoComplete="new-password"
            error={fields.confirmPassword.errors?.[0]}
          />
          <Button type="submit" className="justify-self-start" disabled={busy}>
            {busy ? "Saving…" : "Set password"}
          </Button>
        </fetcher.Form>
      </CardContent>
    </Card>
  );
}
