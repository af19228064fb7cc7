// /settings: the account's security. Password (change it, or set a first one after signing up
// through a provider), sessions, linked sign-in methods, two-factor authentication, and deleting
// the account. Reads and server-only calls are in lib/account-settings.server.ts; the rest are
// better-auth's browser client calls.
import { data, useOutletContext } from "react-router";
import { z } from "zod";
import { useFetcherToasts } from "../../components/dashboard/use-fetcher-outcome.ts";
import { PageHeader } from "../../components/page-header.tsx";
import { DeleteAccountCard } from "../../components/settings/delete-account.tsx";
import { LinkedAccountsCard } from "../../components/settings/linked-accounts.tsx";
import {
  ChangePasswordCard,
  SET_PASSWORD_FETCHER,
  SetPasswordCard,
  setPasswordForm,
} from "../../components/settings/password.tsx";
import { type SessionAnswer, SessionsCard } from "../../components/settings/sessions.tsx";
import { TwoFactorCard } from "../../components/settings/two-factor.tsx";
import {
  loadAccountSettings,
  revokeSessionById,
  setFirstPassword,
} from "../../lib/account-settings.server.ts";
import { refused, succeeded } from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, type SessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/settings";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Settings",
    noindex: true,
  });

/** Personal and security details: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  return loadAccountSettings(services(context), request.headers, user.id);
}

const revokeForm = z.object({ sessionId: z.string().min(1) });

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");

  if (intent === "revoke-session") {
    const parsed = revokeForm.safeParse({ sessionId: form.get("sessionId") });
    const revoked =
      parsed.success && (await revokeSessionById(s, request.headers, user.id, parsed.data.sessionId));
    return revoked
      ? data<SessionAnswer>({ intent, ok: true })
      : data<SessionAnswer>({ intent, ok: false, error: "This session has already ended" }, { status: 404 });
  }

  if (intent === "set-password") {
    const submission = parseForm(form, setPasswordForm);
    if (submission.status !== "success")
      return data<FormReply>({ result: submission.reply(), code: "VALIDATION_FAILED" }, { status: 400 });
    const outcome = await setFirstPassword(s, request.headers, submission.value.newPassword);
    if (outcome.ok)
      return succeeded(submission, "Password set. You can now sign in with your email and password.");
    const field =
      outcome.code === "PASSWORD_TOO_SHORT" || outcome.code === "PASSWORD_TOO_LONG" ? "newPassword" : null;
    return refused(
      submission,
      400,
      field ? { fieldErrors: { [field]: [outcome.message] } } : { formError: outcome.message },
    );
  }

  return data<SessionAnswer>({ intent: null, ok: false, error: "Unknown action" }, { status: 400 });
}

export default function Settings({ loaderData, actionData }: Route.ComponentProps) {
  const settings = loaderData;
  const user = useOutletContext<SessionUser>();
  // The set-password card is replaced by the change-password one once it succeeds.
  useFetcherToasts(SET_PASSWORD_FETCHER);
  return (
    <>
      <PageHeader title="Settings" description="Keep your account secure." />
      <div className="grid max-w-3xl gap-6">
        {settings.hasPassword ? (
          <ChangePasswordCard minLength={settings.passwordMinLength} />
        ) : (
          <SetPasswordCard
            email={user.email}
            minLength={settings.passwordMinLength}
            reply={actionData && "result" in actionData ? actionData : undefined}
          />
        )}
        <TwoFactorCard enabled={settings.twoFactorEnabled} hasPassword={settings.hasPassword} />
        <SessionsCard sessions={settings.sessions} />
        <LinkedAccountsCard accounts={settings.accounts} linkable={settings.linkable} />
        <DeleteAccountCard
          summary={settings.deletion}
          accounts={settings.accounts.length}
          sessions={settings.sessions.length}
          hasPassword={settings.hasPassword}
          linkHours={settings.deletionLinkHours}
        />
      </div>
    </>
  );
}
