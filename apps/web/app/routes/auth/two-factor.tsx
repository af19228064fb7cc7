// /auth/two-factor: the second step of signing in to an account with two-factor authentication
// on. A password sign-in (lib/auth-client.ts) or a provider sign-in (server/auth/account-rules.ts)
// leaves a short-lived two-factor challenge cookie and sends the browser here; a code from the
// authenticator app, or one of the backup codes, turns it into a session. Then on to `redirect`
// (same-site paths only) or the dashboard.

import { useState } from "react";
import { Link, redirect, useNavigate, useSearchParams } from "react-router";
import { z } from "zod";
import { AuthShell } from "../../components/auth-shell.tsx";
import { type Refusal, totpCodeSchema, useClientForm } from "../../components/settings/client-form.ts";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { trimmed } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { safeRedirectPath } from "../../lib/redirects.ts";
import { getSessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/two-factor";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Two-factor authentication",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const target = safeRedirectPath(url.searchParams.get("redirect"));
  if (await getSessionUser(request, context)) throw redirect(target);
  // The challenge cookie of better-auth's two-factor plugin: without it there is nothing to
  // answer (never signed in, or it expired after 10 minutes).
  const cookieName = (await services(context).auth.$context).createAuthCookie("two_factor").name;
  const challenge = (request.headers.get("cookie") ?? "")
    .split(";")
    .some((part) => part.trim().startsWith(`${cookieName}=`));
  return { challenge };
}

/** Sign-in again, coming back to the same place afterwards. */
function signInPath(target: string) {
  return target === "/dashboard"
    ? "/auth/signin"
    : `/auth/signin?${new URLSearchParams({ redirect: target })}`;
}

const totpForm = z.object({ code: totpCodeSchema, trustDevice: z.string().optional() });
const backupForm = z.object({
  code: trimmed(z.string().min(1, "Enter one of your backup codes")),
  trustDevice: z.string().optional(),
});

type Method = "totp" | "backup";

// better-auth's two-factor refusals, in this page's words. null: the challenge is over.
function refusalOf(error: { code?: string; message?: string }, method: Method): Refusal | null {
  switch (error.code) {
    case "INVALID_CODE":
      return {
        fieldErrors: {
          code: ["That code is not right. Enter the code your app shows now (it changes every 30 seconds)."],
        },
      };
    case "INVALID_BACKUP_CODE":
      return { fieldErrors: { code: ["That backup code is not valid, or it was already used."] } };
    case "INVALID_TWO_FACTOR_COOKIE":
    case "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE":
      return null;
    default:
      return {
        formError:
          error.message ??
          (method === "totp" ? "Could not check the code" : "Could not check the backup code"),
      };
  }
}

function CodeForm({
  method,
  target,
  onSwitch,
  onEnded,
}: {
  method: Method;
  target: string;
  onSwitch: () => void;
  onEnded: (message: string) => void;
}) {
  const navigate = useNavigate();
  const totp = method === "totp";
  const { form, fields, busy } = useClientForm(
    `two-factor-${method}`,
    totp ? totpForm : backupForm,
    async ({ code, trustDevice }): Promise<Refusal | undefined> => {
      const trust = trustDevice === "on";
      const { error } = totp
        ? await authClient.twoFactor.verifyTotp({ code, trustDevice: trust })
        : await authClient.twoFactor.verifyBackupCode({ code, trustDevice: trust });
      if (!error) {
        await navigate(target, { replace: true });
        return undefined;
      }
      const refusal = refusalOf(error, method);
      if (refusal) return refusal;
      onEnded(
        error.code === "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE"
          ? "Too many wrong codes. Sign in again to try once more."
          : EXPIRED,
      );
      return undefined;
    },
  );
  return (
    <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
      {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
      <FormField
        label={totp ? "Authentication code" : "Backup code"}
        name={fields.code.name}
        inputMode={totp ? "numeric" : "text"}
        autoComplete={totp ? "one-time-code" : "off"}
        autoCapitalize="none"
        spellCheck={false}
        autoFocus
        maxLength={totp ? 7 : 20}
        className="font-mono tracking-widest"
        error={fields.code.errors?.[0]}
      />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name={fields.trustDevice.name} className="size-4 accent-primary" />
        Trust this device for 30 days
      </label>
      <Button type="submit" disabled={busy}>
        {busy ? "Checking…" : "Verify"}
      </Button>
      <Button type="button" variant="link" onClick={onSwitch}>
        {totp ? "Use a backup code instead" : "Use your authenticator app instead"}
      </Button>
    </form>
  );
}

const EXPIRED = "Your sign-in has expired. Sign in again to get a new code prompt.";

export default function TwoFactor({ loaderData }: Route.ComponentProps) {
  const [search] = useSearchParams();
  const target = safeRedirectPath(search.get("redirect"));
  const [method, setMethod] = useState<Method>("totp");
  // The challenge ended (expired, or too many wrong codes): only signing in again helps.
  const [ended, setEnded] = useState<string | null>(loaderData.challenge ? null : EXPIRED);

  if (ended) {
    return (
      <AuthShell title="Two-factor authentication">
        <div className="grid gap-4">
          <Alert variant="error">{ended}</Alert>
          <Button asChild>
            <Link to={signInPath(target)}>Sign in again</Link>
          </Button>
        </div>
      </AuthShell>
    );
  }

  const totp = method === "totp";
  return (
    <AuthShell
      title="Two-factor authentication"
      description={
        totp
          ? "Enter the 6-digit code from your authenticator app."
          : "Enter one of the backup codes you saved when you set up two-factor authentication. Each works once."
      }
      footer={
        <>
          Not you?{" "}
          <Link to="/auth/signin" className="font-medium text-primary hover:underline">
            Sign in with another account
          </Link>
        </>
      }
    >
      <CodeForm
        key={method}
        method={method}
        target={target}
        onSwitch={() => setMethod(totp ? "backup" : "totp")}
        onEnded={setEnded}
      />
    </AuthShell>
  );
}
