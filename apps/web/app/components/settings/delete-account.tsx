// The danger zone: what deleting the account removes, counted, then the request. Nothing is
// deleted here: better-auth mails a link (valid DELETE_ACCOUNT_TOKEN_EXPIRES_IN), and opening it
// in a browser signed in to this account deletes it (decision 015). With a password the request
// needs it; without one the session must be from the last day (SESSION_EXPIRED otherwise).
import { MailCheck, TriangleAlert } from "lucide-react";
import { useState } from "react";
import { useOutletContext } from "react-router";
import { z } from "zod";
import type { AccountDeletionSummary } from "../../../server/accounts/deletion.ts";
import { authClient } from "../../lib/auth-client.ts";
import { formatFileSize } from "../../lib/format.ts";
import { text } from "../../lib/forms.ts";
import type { SessionUser } from "../../lib/session.server.ts";
import { Alert } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { FormField } from "../ui/form-field.tsx";
import { type Refusal, useClientForm, WRONG_PASSWORD } from "./client-form.ts";
import { ReauthenticateAlert } from "./reauthenticate.tsx";

/** Where the mailed link sends the browser once the account is gone. */
export const DELETED_CALLBACK_URL = "/auth/signin?deleted=1";

const withPassword = z.object({ password: text(z.string().min(1, "Enter your password")) });
const withoutPassword = z.object({ password: text(z.string()) });

function count(n: number, one: string, many = `${one}s`) {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

export function DeleteAccountCard({
  summary,
  accounts,
  sessions,
  hasPassword,
  linkHours,
}: {
  summary: AccountDeletionSummary;
  accounts: number;
  sessions: number;
  hasPassword: boolean;
  linkHours: number;
}) {
  const user = useOutletContext<SessionUser>();
  const [sent, setSent] = useState(false);
  const [stale, setStale] = useState(false);
  const { form, fields, busy } = useClientForm(
    "delete-account",
    hasPassword ? withPassword : withoutPassword,
    async (value): Promise<Refusal | undefined> => {
      setStale(false);
      const { error } = await authClient.deleteUser({
        ...(hasPassword ? { password: value.password } : {}),
        callbackURL: DELETED_CALLBACK_URL,
      });
      if (!error) {
        setSent(true);
        return undefined;
      }
      if (error.code === "INVALID_PASSWORD") return { fieldErrors: { password: [WRONG_PASSWORD] } };
      if (error.code === "SESSION_EXPIRED") {
        setStale(true);
        return undefined;
      }
      return { formError: error.message ?? "Could not request the deletion" };
    },
  );

  const items = [
    summary.projects
      ? `${count(summary.projects, "project")} with ${count(summary.releases, "release")} and ${count(summary.files, "file")}${summary.files ? ` (${formatFileSize(summary.bytes)})` : ""}. ${summary.projects === 1 ? "Its" : "Their"} release pages, download URLs and APT and YUM repositories stop working.`
      : "Your projects: you have none now.",
    ...(summary.projects
      ? [
          `${count(summary.signingKeys, "repository signing key")}. Machines that installed your packages stop getting updates from Packyard.`,
        ]
      : []),
    summary.apiKeys
      ? `${count(summary.apiKeys, "API key")}. CI jobs and the CLI using ${summary.apiKeys === 1 ? "it" : "them"} stop working.`
      : "API keys: you have none now.",
    `${count(accounts, "sign-in method")}: your password and linked accounts.`,
    `${count(sessions, "session")}: you are signed out everywhere.`,
  ];

  return (
    <Card className="border-destructive/40">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-destructive">
          <TriangleAlert className="size-5" aria-hidden="true" />
          Delete account
        </CardTitle>
        <CardDescription>Deleting your account removes, for good and at once:</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <ul className="grid list-disc gap-1.5 pl-5 text-sm" data-testid="deletion-summary">
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
        {sent ? (
          <Alert
            variant="success"
            className="flex gap-3 text-green-800 dark:text-success"
            data-testid="deletion-sent"
          >
            <MailCheck className="mt-0.5 size-5 shrink-0" aria-hidden="true" />
            <div className="grid gap-1">
              <p className="font-medium">
                We sent a link to <span className="break-all">{user.email}</span>.
              </p>
              <p>
                Open it in this browser within {count(linkHours, "hour")} to delete your account. Until then
                nothing is deleted; if you change your mind, ignore the email.
              </p>
            </div>
          </Alert>
        ) : (
          <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
            <p className="text-sm text-muted-foreground">
              To make sure it's you, we email a link to{" "}
              <span className="font-medium text-foreground">{user.email}</span>. Your account is deleted when
              you open it.
            </p>
            {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
            {stale ? (
              <ReauthenticateAlert>
                Session expired. Re-authenticate to perform this action. (Without a password, deleting the
                account needs a sign-in from the last day.)
              </ReauthenticateAlert>
            ) : null}
            {hasPassword ? (
              <FormField
                label="Your password"
                name={fields.password.name}
                type="password"
                autoComplete="current-password"
                className="sm:max-w-sm"
                error={fields.password.errors?.[0]}
              />
            ) : null}
            <Button type="submit" variant="destructive" className="justify-self-start" disabled={busy}>
              {busy ? "Sending…" : "Email me the deletion link"}
            </Button>
          </form>
        )}
      </CardContent>
    </Card>
  );
}
