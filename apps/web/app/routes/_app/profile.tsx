// /profile: who you are on Packyard (spec §5). The username and name are saved by this route's
// action; the sign-in email goes through better-auth's change-email flow from the browser. A
// username is part of public URLs: the old one keeps redirecting to the new one and stays
// yours for USERNAME_HOLD_DAYS (server/accounts/usernames.ts, decision 014).
import { type SubmissionResult, useForm } from "@conform-to/react";
import { changeEmailSchema, profileSchema, USERNAME_HOLD_DAYS } from "@packyard/contract/profile.ts";
import { useEffect, useRef, useState } from "react";
import { Form, useNavigation, useOutletContext, useRevalidator } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { changeProfile } from "../../../server/accounts/use-cases.ts";
import { heldUsernames, UsernameTakenError } from "../../../server/accounts/usernames.ts";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Badge } from "../../components/ui/badge.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { invalid, refused, sessionActor, succeeded } from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm, succeededReply, text } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { clientAddress, requireOnboardedUser, type SessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/profile";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Profile",
    noindex: true,
  });

const profileForm = z.object({
  username: text(profileSchema.shape.username),
  name: text(profileSchema.shape.name),
});

const emailForm = z.object({ email: text(changeEmailSchema.shape.email) });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  return { held: await heldUsernames(services(context).database.db, user.id) };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const submission = parseForm(await request.formData(), profileForm);
  if (submission.status !== "success") return invalid(submission);
  try {
    const caller = { actor: sessionActor(user), address: clientAddress(context) };
    const { previous, username } = await changeProfile(
      { db: services(context).database.db },
      caller,
      submission.value,
    );
    const renamed = previous !== null && previous.toLowerCase() !== username.toLowerCase();
    return succeeded(
      submission,
      renamed ? `Profile saved. Links with @${previous} now lead to @${username}.` : "Profile saved",
    );
  } catch (error) {
    if (error instanceof UsernameTakenError)
      return refused(submission, 409, { fieldErrors: { username: [error.message] } });
    throw error;
  }
}

export default function Profile({ loaderData, actionData }: Route.ComponentProps) {
  const user = useOutletContext<SessionUser & { username: string }>();
  return (
    <>
      <PageHeader
        title="Profile"
        description="Your username is part of your public release pages and repository URLs."
      />
      <div className="grid max-w-2xl gap-6">
        <ProfileCard user={user} reply={actionData} held={loaderData.held} />
        <EmailCard user={user} />
      </div>
    </>
  );
}

function ProfileCard({
  user,
  reply,
  held,
}: {
  user: SessionUser & { username: string };
  reply: FormReply | undefined;
  held: { username: string; heldUntil: string }[];
}) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/profile";
  const [form, fields] = useForm({
    id: "profile",
    lastResult: reply?.result,
    defaultValue: { username: user.username, name: user.name },
    onValidate: ({ formData }) => parseForm(formData, profileForm),
  });
  // One toast per answer.
  const toasted = useRef<FormReply | undefined>(undefined);
  useEffect(() => {
    if (!reply || toasted.current === reply) return;
    toasted.current = reply;
    if (succeededReply(reply) && reply.message) toast.success(reply.message);
  }, [reply]);

  return (
    <Card>
      <CardHeader>
        <CardTitle>Public profile</CardTitle>
        <CardDescription>
          Your username is in the addresses of your release pages (
          <span className="break-words font-mono text-foreground">{`/releases/${user.username}/…`}</span>) and
          repositories (
          <span className="break-words font-mono text-foreground">{`/dl/${user.username}/…`}</span>).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-4" noValidate>
          <FormField
            label="Username"
            name={fields.username.name}
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            defaultValue={fields.username.defaultValue}
            error={fields.username.errors?.[0]}
            hint={`3 to 30 letters, numbers, underscores and hyphens. When you change it, links with the old name keep working for ${USERNAME_HOLD_DAYS} days, and nobody else can take it in that time.`}
          />
          <FormField
            label="Name"
            name={fields.name.name}
            autoComplete="name"
            defaultValue={fields.name.defaultValue}
            error={fields.name.errors?.[0]}
          />
          <Button type="submit" className="justify-self-start" disabled={busy}>
            {busy ? "Saving…" : "Save profile"}
          </Button>
        </Form>
        {held.length > 0 ? (
          <div className="grid gap-2 border-t border-border pt-4 text-sm">
            <h3 className="font-medium">Previous usernames</h3>
            <p className="text-muted-foreground">
              {`Links with these names lead to @${user.username} until the date shown, and only you can take one back. Update the machines and scripts that use them before then.`}
            </p>
            <ul className="grid gap-1">
              {held.map((name) => (
                <li key={name.username} className="flex flex-wrap items-baseline justify-between gap-x-4">
                  <span className="font-mono">{`@${name.username}`}</span>
                  <span className="text-muted-foreground">
                    held until <FormattedDate iso={name.heldUntil} />
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}

function EmailCard({ user }: { user: SessionUser }) {
  const revalidator = useRevalidator();
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [form, fields] = useForm({
    id: "email",
    lastResult,
    defaultValue: { email: user.email },
    onValidate: ({ formData }) => parseForm(formData, emailForm),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      const newEmail = submission.value.email;
      setBusy(true);
      setDone(null);
      const { error } = await authClient.changeEmail({ newEmail, callbackURL: "/profile" });
      setBusy(false);
      if (error) {
        setLastResult(
          submission.reply({ fieldErrors: { email: [error.message ?? "Couldn't update your email"] } }),
        );
        return;
      }
      setLastResult(submission.reply());
      if (user.emailVerified) {
        setDone(
          `Check ${user.email} to confirm the change. Once you confirm, you sign in with ${newEmail}, and we send it a link to verify it.`,
        );
      } else {
        setDone(`Your email is now ${newEmail}. Check ${newEmail} for a link to verify it.`);
        await revalidator.revalidate();
      }
    },
  });

  const [resending, setResending] = useState(false);
  async function resendVerification() {
    setResending(true);
    const { error } = await authClient.sendVerificationEmail({ email: user.email, callbackURL: "/profile" });
    setResending(false);
    if (error) toast.error(error.message ?? "Could not send the verification link");
    else toast.success(`Verification link sent to ${user.email}`);
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex flex-wrap items-center gap-2">
          Email
          {user.emailVerified ? (
            <Badge variant="success">Verified</Badge>
          ) : (
            <Badge variant="warning">Not verified</Badge>
          )}
        </CardTitle>
        <CardDescription>
          You sign in with <span className="break-words text-foreground">{user.email}</span>
          {user.emailVerified
            ? ". To change it, confirm from this address first, then verify the new one."
            : ". It changes at once; then verify the new address."}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form id={form.id} onSubmit={form.onSubmit} className="grid gap-4" noValidate>
          <FormField
            label="Email"
            name={fields.email.name}
            type="email"
            autoComplete="email"
            defaultValue={fields.email.defaultValue}
            error={fields.email.errors?.[0]}
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              {busy ? "Sending…" : "Change email"}
            </Button>
            {user.emailVerified ? null : (
              <Button type="button" variant="outline" onClick={resendVerification} disabled={resending}>
                Send the verification link again
              </Button>
            )}
          </div>
        </form>
        {done ? (
          // green-800 in light mode: the success green on its own tint is under 4.5:1.
          <Alert variant="success" className="break-words text-green-800 dark:text-success">
            {done}
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  );
}
