// /auth/signin: one page for signing in and creating an account, by email and password or
// through each configured provider ("Continue with …", the OpenID Connect provider first).
// Honours `redirect` (same-site paths only), and carries `plan` and `annual` through to
// onboarding, which is where new users from a provider go. A provider error comes back here as
// ?error=<code> and is explained with the contract's texts (the server's /error page uses them too).
// An email at a domain an organization verified and signs in through its own identity provider
// (docs/sso.md) offers "Continue with {Organization} SSO" once typed: the page asks its own
// loader (?sso=<email>) which provider that is.

import { type SubmissionResult, useForm } from "@conform-to/react";
import { emailSchema, newPasswordSchema, passwordLengthMessage } from "@packyard/contract/account.ts";
import { explainAuthError } from "@packyard/contract/auth-errors.ts";
import { planParams } from "@packyard/contract/plans.ts";
import { KeyRound, LogIn } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, redirect, useFetcher, useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { OIDC_PROVIDER_ID, type SignInProvider, signInProviders } from "../../../server/auth/providers.ts";
import { providerForEmail } from "../../../server/orgs/sso.ts";
import { AuthShell } from "../../components/auth-shell.tsx";
import { ChosenPlan } from "../../components/chosen-plan.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { authClient } from "../../lib/auth-client.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { safeRedirectPath } from "../../lib/redirects.ts";
import { getSessionUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/signin";

export async function loader({ request, context, url }: Route.LoaderArgs) {
  // The sign-in form asks which organization's provider an email signs in through (none: null).
  const ssoEmail = url.searchParams.get("sso");
  if (ssoEmail !== null) {
    const found = emailSchema.safeParse(ssoEmail.trim()).success
      ? await providerForEmail(services(context).database.db, ssoEmail)
      : undefined;
    return {
      sso: found ? { email: ssoEmail.trim().toLowerCase(), organizationName: found.organizationName } : null,
    };
  }
  const user = await getSessionUser(request, context);
  // A signed-in user sent here with an error (a failed email-change link) is told about it on
  // the error page rather than sent on without a word.
  const error = url.searchParams.get("error");
  if (user && error) throw redirect(`/error?${new URLSearchParams({ error })}`);
  if (user) throw redirect(afterSignIn(url.searchParams));
  const { config } = services(context);
  return {
    providers: signInProviders(config),
    passwordLimits: { min: config.passwordMinLength, max: config.passwordMaxLength },
    payments: Boolean(config.stripe),
  };
}

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Sign in",
    description: "Sign in to Packyard or create an account to publish your packages.",
  });

/** Where to go once signed in: the requested page, else onboarding/dashboard with the plan. */
function afterSignIn(search: URLSearchParams): string {
  const params = planParams(search);
  const fallback = params.size ? `/onboarding?${params}` : "/dashboard";
  return safeRedirectPath(search.get("redirect"), fallback);
}

/** The params of this page worth keeping on the way through a provider (spec §2). */
function carriedParams(search: URLSearchParams): URLSearchParams {
  const params = planParams(search);
  const target = search.get("redirect");
  if (target && safeRedirectPath(target, "") !== "") params.set("redirect", target);
  return params;
}

/** Where a provider sends a user it has just created: onboarding, with the plan and target. */
function newUserTarget(search: URLSearchParams): string {
  const params = carriedParams(search);
  return params.size ? `/onboarding?${params}` : "/onboarding";
}

/** Where a provider error lands: this page again (better-auth appends &error=<code>). */
function errorTarget(search: URLSearchParams): string {
  const params = carriedParams(search);
  return params.size ? `/auth/signin?${params}` : "/auth/signin";
}

const signInForm = z.object({
  email: emailSchema,
  password: z.string().min(1, "Please enter your password"),
});

const signUpForm = (passwordLimits: { min: number; max: number }) =>
  z.object({
    name: z.string().trim().min(1, "Please enter your name").max(100, "Name must be at most 100 characters"),
    email: emailSchema,
    password: newPasswordSchema(passwordLimits, "Please choose a password"),
  });

type Mode = "signin" | "signup";
type Pending = { kind: "verify"; email: string } | null;

type SsoAnswer = { sso: { email: string; organizationName: string } | null };

export default function SignIn({ loaderData }: Route.ComponentProps) {
  const { providers, passwordLimits, payments } = loaderData as Exclude<typeof loaderData, SsoAnswer>;
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const [mode, setMode] = useState<Mode>(search.get("mode") === "signup" ? "signup" : "signin");
  // What better-auth answered, as Conform's result: its errors show like the schema's.
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const [leavingFor, setLeavingFor] = useState<string | null>(null);
  const target = afterSignIn(search);
  const errorCode = search.get("error");
  const providerError = errorCode ? explainAuthError(errorCode) : null;
  const [email, setEmail] = useState("");
  const ssoLookup = useFetcher<SsoAnswer>();
  const { load: lookUp } = ssoLookup;
  const sso =
    ssoLookup.data?.sso && ssoLookup.data.sso.email === email.trim().toLowerCase()
      ? ssoLookup.data.sso
      : null;

  // Once an address with a domain is typed (and the typing pauses), ask for its organization.
  useEffect(() => {
    const typed = email.trim();
    if (mode !== "signin" || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(typed)) return;
    const timer = setTimeout(() => lookUp(`/auth/signin?sso=${encodeURIComponent(typed)}`), 250);
    return () => clearTimeout(timer);
  }, [email, mode, lookUp]);

  async function continueWithSso(address: string, organizationName: string) {
    setLeavingFor("sso");
    const response = await fetch("/api/auth/sign-in/sso", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: address,
        callbackURL: target,
        newUserCallbackURL: newUserTarget(search),
        errorCallbackURL: errorTarget(search),
      }),
    }).catch(() => null);
    const answer = response?.ok ? ((await response.json()) as { url?: string }) : null;
    if (answer?.url) {
      window.location.assign(answer.url);
      return;
    }
    setLeavingFor(null);
    toast.error(`Could not start signing in with ${organizationName} SSO. Try again in a moment.`);
  }

  async function continueWith(provider: SignInProvider) {
    setLeavingFor(provider.id);
    const { error } = await authClient.signIn.social({
      provider: provider.id,
      callbackURL: target,
      newUserCallbackURL: newUserTarget(search),
      errorCallbackURL: errorTarget(search),
    });
    // On success the client has already sent the browser to the provider.
    if (error) {
      setLeavingFor(null);
      toast.error(error.message ?? `Could not start signing in with ${provider.label}.`);
    }
  }

  const [form, fields] = useForm<z.output<typeof signInForm> | z.output<ReturnType<typeof signUpForm>>>({
    lastResult,
    onValidate: ({ formData }) =>
      parseForm(formData, mode === "signin" ? signInForm : signUpForm(passwordLimits)),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      try {
        const values = submission.value;
        const email = values.email.trim().toLowerCase();
        if (!("name" in values)) {
          const { error } = await authClient.signIn.email({
            email,
            password: values.password,
            callbackURL: target,
          });
          if (error) {
            if (error.code === "EMAIL_NOT_VERIFIED") {
              setPending({ kind: "verify", email });
              return;
            }
            setLastResult(
              submission.reply({
                formErrors: [
                  error.code === "INVALID_EMAIL_OR_PASSWORD"
                    ? "Invalid email or password."
                    : (error.message ?? "Sign-in failed."),
                ],
              }),
            );
            return;
          }
          toast.success("Signed in");
          await navigate(target, { replace: true });
        } else {
          const { error } = await authClient.signUp.email({
            name: values.name,
            email,
            password: values.password,
            callbackURL: target,
          });
          if (error) {
            setLastResult(
              error.code === "PASSWORD_TOO_SHORT" || error.code === "PASSWORD_TOO_LONG"
                ? submission.reply({
                    fieldErrors: { password: [passwordLengthMessage(passwordLimits, error.code)] },
                  })
                : submission.reply({ formErrors: [error.message ?? "Could not create the account."] }),
            );
            return;
          }
          setPending({ kind: "verify", email });
        }
      } finally {
        setBusy(false);
      }
    },
  });

  async function resend(email: string) {
    const { error } = await authClient.sendVerificationEmail({ email, callbackURL: target });
    if (error) toast.error(error.message ?? "Could not send the verification email.");
    else toast.success("Verification email sent");
  }

  if (pending) {
    return (
      <AuthShell
        title="Check your email"
        description={
          <>
            We sent a verification link to <strong>{pending.email}</strong>.
          </>
        }
      >
        <div className="grid gap-4 text-sm">
          <Alert variant="info" data-testid="verify-notice">
            Your email address must be verified before you can sign in. Open the link in the message to
            continue; it is valid for one hour.
          </Alert>
          <Button variant="outline" onClick={() => resend(pending.email)}>
            Resend verification email
          </Button>
          <Button
            variant="link"
            onClick={() => {
              setPending(null);
              setMode("signin");
            }}
          >
            Back to sign in
          </Button>
        </div>
      </AuthShell>
    );
  }

  const signingIn = mode === "signin";
  return (
    <AuthShell
      title={signingIn ? "Sign in to Packyard" : "Create your Packyard account"}
      description={signingIn ? "Welcome back." : "Publish signed packages in minutes."}
      footer={
        signingIn ? (
          <>
            New to Packyard?{" "}
            <button
              type="button"
              className="font-medium text-primary hover:underline"
              onClick={() => setMode("signup")}
            >
              Create an account
            </button>
          </>
        ) : (
          <>
            Already have an account?{" "}
            <button
              type="button"
              className="font-medium text-primary hover:underline"
              onClick={() => setMode("signin")}
            >
              Sign in
            </button>
          </>
        )
      }
    >
      {search.get("deleted") === "1" ? (
        <Alert
          variant="success"
          className="mb-4 text-green-800 dark:text-success"
          data-testid="account-deleted"
        >
          Your account was deleted, with its projects, files, repositories and keys. Thank you for using
          Packyard.
        </Alert>
      ) : null}
      <ChosenPlan
        search={search}
        payments={payments}
        next="Checkout for it follows once you have chosen a username."
        className="mb-5"
      />
      {providerError ? (
        <Alert variant="error" className="mb-5 grid gap-1.5" data-testid="signin-error">
          <p className="font-semibold">{providerError.title}</p>
          <p className="text-foreground">{providerError.explanation}</p>
          <p className="text-foreground">{providerError.action}</p>
          <p className="text-xs text-muted-foreground">
            Error code: <code className="font-mono">{providerError.code}</code>
          </p>
        </Alert>
      ) : null}
      {providers.length > 0 ? (
        <>
          <ul className="grid gap-2" aria-label="Sign-in providers">
            {providers.map((provider) => (
              <li key={provider.id}>
                <Button
                  type="button"
                  variant="outline"
                  className="w-full"
                  disabled={leavingFor !== null}
                  onClick={() => continueWith(provider)}
                >
                  <ProviderIcon provider={provider} />
                  Continue with {provider.label}
                </Button>
              </li>
            ))}
          </ul>
          <div className="my-5 flex items-center gap-3 text-xs text-muted-foreground" aria-hidden="true">
            <span className="h-px flex-1 bg-border" />
            or with your email
            <span className="h-px flex-1 bg-border" />
          </div>
        </>
      ) : null}
      <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
        {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
        {signingIn ? null : (
          <FormField
            label="Name"
            name={fields.name.name}
            autoComplete="name"
            error={fields.name.errors?.[0]}
          />
        )}
        <FormField
          label="Email"
          name={fields.email.name}
          type="email"
          autoComplete="email"
          error={fields.email.errors?.[0]}
          onChange={(event) => setEmail(event.currentTarget.value)}
        />
        {signingIn && sso ? (
          <div className="grid gap-2 rounded-md border border-border bg-muted/40 p-3" data-testid="sso-offer">
            <p className="text-sm text-muted-foreground">
              {sso.organizationName} signs in its people through its own identity provider.
            </p>
            <Button
              type="button"
              disabled={leavingFor !== null}
              onClick={() => continueWithSso(sso.email, sso.organizationName)}
            >
              <KeyRound aria-hidden="true" />
              Continue with {sso.organizationName} SSO
            </Button>
          </div>
        ) : null}
        <FormField
          label="Password"
          name={fields.password.name}
          type="password"
          autoComplete={signingIn ? "current-password" : "new-password"}
          hint={signingIn ? undefined : `At least ${passwordLimits.min} characters.`}
          error={fields.password.errors?.[0]}
        />
        {signingIn ? (
          <Link
            to="/auth/forgot-password"
            className="-mt-2 justify-self-end text-sm text-primary hover:underline"
          >
            Forgot your password?
          </Link>
        ) : null}
        <Button type="submit" disabled={busy}>
          {signingIn ? "Sign in" : "Create account"}
        </Button>
      </form>
    </AuthShell>
  );
}

/** lucide-react has no brand marks: a key for single sign-on, a neutral sign-in mark for the others. */
function ProviderIcon({ provider }: { provider: SignInProvider }) {
  return provider.id === OIDC_PROVIDER_ID ? <KeyRound aria-hidden="true" /> : <LogIn aria-hidden="true" />;
}
