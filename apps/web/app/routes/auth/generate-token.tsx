// /auth/generate-token: a personal publish token for the packyard CLI (all projects, publish).
// Without a callback the token is shown once, to paste into the CLI. With
// ?callback=http://127.0.0.1:PORT/…&state=… (or localhost) the CLI is waiting on this machine:
// 'Authorize' creates the token and sends the browser to callback?token=…&state=…, 'Cancel' to
// callback?error=access_denied&state=…. Any other callback is refused and no token is made.
// This route is outside the guarded layout, so it guards itself.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { AlertTriangle, Check, KeyRound, Laptop } from "lucide-react";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { z } from "zod";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { EXPIRY_OPTIONS, EXPIRY_VALUES, KEY_NAME_MAX } from "../../components/api-keys/options.ts";
import { AuthShell } from "../../components/auth-shell.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Button } from "../../components/ui/button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { Label } from "../../components/ui/label.tsx";
import type { CreatedKey } from "../../lib/api-keys.server.ts";
import { parseForm, text } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import {
  callbackWith,
  checkLoopbackCallback,
  checkState,
  createCliToken,
  defaultTokenName,
} from "../../lib/tokens.server.ts";
import type { Route } from "./+types/generate-token";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Token for the CLI",
    noindex: true,
  });

/** Personal pages that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

type Request_ = { ok: true; callback: URL; state: string } | { ok: false; error: string } | { ok: null };

/** What the CLI asked for: nothing (manual), a valid loopback callback and state, or a refusal. */
function cliRequest(callback: string | null, state: string | null): Request_ {
  if (callback === null && state === null) return { ok: null };
  const cb = checkLoopbackCallback(callback);
  if (!cb.ok) return cb;
  const st = checkState(state);
  if (!st.ok) return st;
  return { ok: true, callback: cb.url, state: st.state };
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const cli = cliRequest(url.searchParams.get("callback"), url.searchParams.get("state"));
  const base = { username: user.username, defaultName: defaultTokenName() };
  if (cli.ok === null) return data({ ...base, mode: "manual" as const });
  if (!cli.ok) return data({ ...base, mode: "refused" as const, error: cli.error }, { status: 400 });
  return data({
    ...base,
    mode: "authorize" as const,
    callback: cli.callback.toString(),
    receiver: cli.callback.host,
    state: cli.state,
  });
}

/** A refusal (a bad callback, an unknown action), or the create form's answer and its token. */
type ActionAnswer =
  | { error: string; result?: undefined; created?: undefined }
  | { result: SubmissionResult; created?: CreatedKey; error?: undefined };

/** The token to paste: any name (an empty one gets the default), and when it expires. */
const createTokenForm = z.object({
  name: text(z.string()),
  expiry: z.preprocess(
    (value) => value ?? "never",
    z.enum(EXPIRY_VALUES, { message: "Choose when the token expires" }),
  ),
});

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");

  if (intent === "authorize" || intent === "deny") {
    const cli = cliRequest(
      form.get("callback") === null ? null : String(form.get("callback")),
      form.get("state") === null ? null : String(form.get("state")),
    );
    if (!cli.ok) {
      return data<ActionAnswer>(
        { error: cli.ok === null ? "No callback address was given." : cli.error },
        { status: 400 },
      );
    }
    if (intent === "deny")
      throw redirect(callbackWith(cli.callback, { error: "access_denied", state: cli.state }));
    const token = await createCliToken(s, user.id, {}, clientAddress(context));
    throw redirect(callbackWith(cli.callback, { token: token.key, state: cli.state }), {
      headers: { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
    });
  }

  if (intent === "create") {
    const submission = parseForm(form, createTokenForm);
    if (submission.status !== "success")
      return data<ActionAnswer>({ result: submission.reply() }, { status: 400 });
    const created = await createCliToken(s, user.id, submission.value, clientAddress(context));
    return data<ActionAnswer>({ result: submission.reply(), created });
  }

  return data<ActionAnswer>({ error: "Unknown action" }, { status: 400 });
}

const grants = [
  "Publish to all your projects: upload files, create, edit and yank releases",
  "Read your projects, including private ones",
  "Never expires; delete it any time on the API keys page",
];

export default function GenerateToken({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const pendingIntent = navigation.formData?.get("intent");
  const refusal = actionData?.error;
  const [form, fields] = useForm({
    lastResult: actionData?.result,
    onValidate: ({ formData }) => parseForm(formData, createTokenForm),
  });

  if (loaderData.mode === "refused" || (loaderData.mode === "authorize" && refusal)) {
    const error = loaderData.mode === "refused" ? loaderData.error : refusal;
    return (
      <AuthShell title="This link can't be used" description="No token was created.">
        <div className="grid gap-5">
          <Alert variant="error" className="flex gap-3" data-testid="callback-refused">
            <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <p>{error}</p>
          </Alert>
          <p className="text-sm text-muted-foreground">
            The packyard CLI only ever asks to receive a token on your own computer. If you followed a link
            from somewhere else, close this page.
          </p>
          <div className="flex flex-wrap gap-2">
            <Button asChild>
              <Link to="/auth/generate-token">Create a token to paste</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to="/dashboard">Go to Dashboard</Link>
            </Button>
          </div>
        </div>
      </AuthShell>
    );
  }

  if (loaderData.mode === "authorize") {
    return (
      <AuthShell
        title="Authorize the packyard CLI"
        description={
          <>
            A program on this computer asks for a token to act as{" "}
            <span className="font-medium text-foreground">@{loaderData.username}</span>.
          </>
        }
      >
        <Form method="post" className="grid gap-5">
          <input type="hidden" name="callback" value={loaderData.callback} />
          <input type="hidden" name="state" value={loaderData.state} />
          <div className="grid gap-2">
            <p className="text-sm font-medium">The token will be able to:</p>
            <ul className="grid gap-1.5 text-sm text-muted-foreground">
              {grants.map((g) => (
                <li key={g} className="flex gap-2">
                  <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden="true" />
                  {g}
                </li>
              ))}
            </ul>
          </div>
          <p className="flex items-start gap-2 rounded-md border border-border bg-muted px-3 py-2 text-sm">
            <Laptop className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
            <span>
              It will be sent to <span className="font-mono break-all">{loaderData.receiver}</span> on this
              computer. Only continue if you just ran a packyard command yourself.
            </span>
          </p>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button type="submit" name="intent" value="deny" variant="outline" disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" name="intent" value="authorize" disabled={busy}>
              <KeyRound aria-hidden="true" />
              {busy && pendingIntent === "authorize" ? "Authorizing…" : "Authorize"}
            </Button>
          </div>
        </Form>
      </AuthShell>
    );
  }

  const created = actionData?.created;
  const formError = refusal ?? fields.expiry.errors?.[0];
  return (
    <AuthShell
      title="Create a token for the CLI"
      description="A personal token that publishes to all your projects. Paste it where the packyard CLI asks for it."
      footer={
        <Link to="/api-keys" className="font-medium text-primary hover:underline">
          Manage your API keys
        </Link>
      }
    >
      {created ? (
        <NewSecret title={`Token “${created.name ?? "CLI"}”`} secret={created.key} className="p-4 sm:p-4">
          <p className="text-sm text-muted-foreground">
            {created.expiresAt ? "It expires on the date you chose." : "It never expires."} You can delete it
            any time on the API keys page.
          </p>
        </NewSecret>
      ) : (
        <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-4">
          <input type="hidden" name="intent" value="create" />
          <FormField
            label="Name"
            name={fields.name.name}
            defaultValue={loaderData.defaultName}
            maxLength={KEY_NAME_MAX}
            autoComplete="off"
            hint="Shown in your list of API keys."
          />
          <div className="grid gap-2">
            <Label htmlFor="token-expiry">Expires</Label>
            <select
              id="token-expiry"
              name={fields.expiry.name}
              defaultValue="never"
              className="flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring"
            >
              {EXPIRY_OPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          {formError ? <Alert variant="error">{formError}</Alert> : null}
          <Button type="submit" disabled={busy}>
            <KeyRound aria-hidden="true" />
            {busy ? "Generating…" : "Generate token"}
          </Button>
        </Form>
      )}
    </AuthShell>
  );
}
