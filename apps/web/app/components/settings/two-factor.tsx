// Two-factor authentication (better-auth's two-factor plugin, TOTP with backup codes). Turning it
// on: the password, then a QR code (and the secret, for typing in) for an authenticator app, then
// a code from the app, which turns it on; the backup codes are shown once. Once on, every password
// or provider sign-in asks for a code. Turning it off and new backup codes need the password.
import { ShieldCheck, ShieldOff } from "lucide-react";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { useOutletContext, useRevalidator } from "react-router";
import { toast } from "sonner";
import { z } from "zod";
import { authClient } from "../../lib/auth-client.ts";
import { text } from "../../lib/forms.ts";
import type { SessionUser } from "../../lib/session.server.ts";
import { Alert } from "../ui/alert.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { CopyButton } from "../ui/copy-button.tsx";
import { FormField } from "../ui/form-field.tsx";
import { BackupCodes } from "./backup-codes.tsx";
import { type Refusal, totpCodeSchema, useClientForm, WRONG_PASSWORD } from "./client-form.ts";

type Step =
  | { kind: "idle" }
  | { kind: "password"; purpose: "enable" | "disable" | "codes" }
  | { kind: "scan"; totpURI: string; secret: string; backupCodes: string[] }
  | { kind: "codes"; backupCodes: string[]; title: string };

const passwordForm = z.object({ password: text(z.string().min(1, "Enter your password")) });

const codeForm = z.object({ code: totpCodeSchema });

/** The secret an authenticator app takes by hand: the totpURI's base32 `secret`. */
export function totpSecret(totpURI: string): string {
  return new URL(totpURI).searchParams.get("secret") ?? "";
}

/** In groups of four, as authenticator apps show it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

function PasswordStep({
  purpose,
  onDone,
  onCancel,
}: {
  purpose: "enable" | "disable" | "codes";
  onDone: (step: Step) => Promise<void>;
  onCancel: () => void;
}) {
  const { form, fields, busy } = useClientForm(
    `two-factor-${purpose}`,
    passwordForm,
    async ({ password }): Promise<Refusal | undefined> => {
      if (purpose === "enable") {
        const { data, error } = await authClient.twoFactor.enable({ password });
        if (error || !data || !("totpURI" in data) || !data.totpURI)
          return error?.code === "INVALID_PASSWORD"
            ? { fieldErrors: { password: [WRONG_PASSWORD] } }
            : { formError: error?.message ?? "Could not start two-factor authentication" };
        await onDone({
          kind: "scan",
          totpURI: data.totpURI,
          secret: totpSecret(data.totpURI),
          backupCodes: data.backupCodes ?? [],
        });
        return undefined;
      }
      if (purpose === "disable") {
        const { error } = await authClient.twoFactor.disable({ password });
        if (error)
          return error.code === "INVALID_PASSWORD"
            ? { fieldErrors: { password: [WRONG_PASSWORD] } }
            : { formError: error.message ?? "Could not turn off two-factor authentication" };
        toast.success("Two-factor authentication is off");
        await onDone({ kind: "idle" });
        return undefined;
      }
      const { data, error } = await authClient.twoFactor.generateBackupCodes({ password });
      if (error || !data)
        return error?.code === "INVALID_PASSWORD"
          ? { fieldErrors: { password: [WRONG_PASSWORD] } }
          : { formError: error?.message ?? "Could not make new backup codes" };
      await onDone({
        kind: "codes",
        backupCodes: data.backupCodes,
        title: "Your new backup codes",
      });
      return undefined;
    },
  );
  const label = {
    enable: "Continue",
    disable: "Turn off two-factor authentication",
    codes: "Make new backup codes",
  }[purpose];
  const explanation = {
    enable: "Enter your password to set up two-factor authentication.",
    disable:
      "Enter your password to turn off two-factor authentication. Sign-ins will then need only your password.",
    codes: "Enter your password to make new backup codes. The old ones stop working.",
  }[purpose];
  return (
    <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
      <p className="text-sm text-muted-foreground">{explanation}</p>
      {form.errors?.[0] ? <Alert variant="error">{form.errors[0]}</Alert> : null}
      <FormField
        label="Password"
        name={fields.password.name}
        type="password"
        autoComplete="current-password"
        autoFocus
        error={fields.password.errors?.[0]}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant={purpose === "disable" ? "destructive" : "default"} disabled={busy}>
          {label}
        </Button>
        <Button type="button" variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function ScanStep({
  step,
  onVerified,
  onCancel,
}: {
  step: Extract<Step, { kind: "scan" }>;
  onVerified: () => Promise<void>;
  onCancel: () => void;
}) {
  const { form, fields, busy } = useClientForm(
    "two-factor-verify",
    codeForm,
    async ({ code }): Promise<Refusal | undefined> => {
      const { error } = await authClient.twoFactor.verifyTotp({ code });
      if (error)
        return {
          fieldErrors: {
            code: [
              error.code === "INVALID_CODE"
                ? "That code is not right. Enter the code your app shows now (it changes every 30 seconds)."
                : (error.message ?? "Could not check the code"),
            ],
          },
        };
      await onVerified();
      return undefined;
    },
  );
  return (
    <div className="grid gap-6">
      <ol className="grid gap-6 text-sm">
        <li className="grid gap-3">
          <p>
            <span className="font-medium">1. Scan this QR code</span> with an authenticator app (1Password,
            Google Authenticator, Authy, Aegis…).
          </p>
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
            <div className="self-start rounded-lg border border-border bg-white p-3">
              <QRCodeSVG
                value={step.totpURI}
                size={168}
                marginSize={0}
                title="QR code for your authenticator app"
                data-testid="totp-qr"
              />
            </div>
            <div className="grid min-w-0 gap-2">
              <p className="text-muted-foreground">Can't scan it? Enter this key in the app instead:</p>
              <div className="flex items-center gap-2">
                <code
                  className="min-w-0 break-all rounded-md border border-border bg-background px-3 py-2 font-mono text-sm"
                  data-testid="totp-secret"
                >
                  {grouped(step.secret)}
                </code>
                <CopyButton value={step.secret} label="Copy the key" successMessage="Key copied" />
              </div>
              <p className="text-muted-foreground">Time-based, 6 digits, every 30 seconds.</p>
            </div>
          </div>
        </li>
        <li className="grid gap-3">
          <p>
            <span className="font-medium">2. Enter the 6-digit code</span> the app shows for Packyard.
          </p>
          <form id={form.id} className="grid gap-4" onSubmit={form.onSubmit} noValidate>
            <FormField
              label="Code"
              name={fields.code.name}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              className="max-w-40 font-mono tracking-widest"
              error={fields.code.errors?.[0]}
            />
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={busy}>
                Turn on
              </Button>
              <Button type="button" variant="ghost" onClick={onCancel} disabled={busy}>
                Cancel
              </Button>
            </div>
          </form>
        </li>
      </ol>
    </div>
  );
}

/** What can be done when no step is under way. */
function IdleActions({
  enabled,
  hasPassword,
  ask,
}: {
  enabled: boolean;
  hasPassword: boolean;
  ask: (purpose: "enable" | "disable" | "codes") => void;
}) {
  if (!hasPassword)
    return (
      <p className="text-sm text-muted-foreground">
        Set a password first (above): turning two-factor authentication on and off asks for it.
      </p>
    );
  if (!enabled)
    return (
      <Button className="justify-self-start" onClick={() => ask("enable")}>
        Set up two-factor authentication
      </Button>
    );
  return (
    <div className="flex flex-wrap gap-2">
      <Button variant="outline" onClick={() => ask("codes")}>
        Make new backup codes
      </Button>
      <Button
        variant="ghost"
        className="text-destructive hover:text-destructive"
        onClick={() => ask("disable")}
      >
        Turn off
      </Button>
    </div>
  );
}

export function TwoFactorCard({ enabled, hasPassword }: { enabled: boolean; hasPassword: boolean }) {
  const user = useOutletContext<SessionUser>();
  const revalidator = useRevalidator();
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const idle = () => setStep({ kind: "idle" });
  const refresh = async (next: Step) => {
    setStep(next);
    await revalidator.revalidate();
  };

  return (
    <Card>
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>Two-factor authentication</CardTitle>
          {enabled ? (
            <Badge variant="success">
              <ShieldCheck aria-hidden="true" />
              On
            </Badge>
          ) : (
            <Badge variant="secondary">
              <ShieldOff aria-hidden="true" />
              Off
            </Badge>
          )}
        </div>
        <CardDescription>
          {enabled
            ? "Signing in needs your password and a code from your authenticator app (or a backup code)."
            : "Protect your projects and signing keys: after your password, signing in also asks for a code from an app on your phone. API keys are not affected."}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {step.kind === "codes" ? (
          <BackupCodes
            title={step.title}
            codes={step.backupCodes}
            email={user.email}
            actions={
              <Button type="button" onClick={idle}>
                I saved my codes
              </Button>
            }
          />
        ) : null}
        {step.kind === "password" ? (
          <PasswordStep purpose={step.purpose} onDone={refresh} onCancel={idle} />
        ) : step.kind === "scan" ? (
          <ScanStep
            step={step}
            onCancel={idle}
            onVerified={async () => {
              toast.success("Two-factor authentication is on");
              await refresh({
                kind: "codes",
                backupCodes: step.backupCodes,
                title: "Save your backup codes",
              });
            }}
          />
        ) : step.kind === "idle" ? (
          <IdleActions
            enabled={enabled}
            hasPassword={hasPassword}
            ask={(purpose) => setStep({ kind: "password", purpose })}
          />
        ) : null}
      </CardContent>
    </Card>
  );
}
