// The ways to sign in to this account (spec §7 list-accounts): the password and each linked
// provider. Another configured provider can be linked (the provider's page, then back here);
// any but the last can be unlinked. A failed link comes back as /settings?error=<code>.
import { Link2, LockKeyhole } from "lucide-react";
import { useState } from "react";
import { useRevalidator, useSearchParams } from "react-router";
import { toast } from "sonner";
import type { SignInProvider } from "../../../server/auth/providers.ts";
import type { LinkedAccountView } from "../../lib/account-settings.server.ts";
import { authClient } from "../../lib/auth-client.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { Alert } from "../ui/alert.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { ReauthenticateAlert } from "./reauthenticate.tsx";

// The provider callback's error codes (spec §8) that linking can end with, in words.
const LINK_ERRORS: Record<string, string> = {
  account_already_linked_to_different_user: "That account is already linked to another Packyard account.",
  email_does_not_match:
    "That account's email is not the one of your Packyard account, so it can't be linked to it.",
  "email_doesn't_match":
    "That account's email is not the one of your Packyard account, so it can't be linked to it.",
  email_not_verified: "The provider has not verified that account's email, so it can't be linked.",
  unable_to_link_account:
    "That account could not be linked: the provider has not confirmed that its email address is yours. Verify the address with the provider, then try again.",
  account_not_linked:
    "The provider has not confirmed that this email address is yours, so the account can't be linked. Verify the address with the provider, then try again.",
  state_not_found: "The link was interrupted or took too long. Try again.",
  please_restart_the_process: "The link was interrupted or took too long. Try again.",
  invalid_code: "The provider did not confirm the link. Try again.",
  access_denied: "You cancelled linking at the provider.",
};

function linkErrorMessage(code: string, description: string | null): string {
  return LINK_ERRORS[code] ?? (description ? `Linking failed: ${description}` : `Linking failed (${code}).`);
}

type Problem = { kind: "error"; message: string } | { kind: "reauthenticate" } | null;

export function LinkedAccountsCard({
  accounts,
  linkable,
}: {
  accounts: LinkedAccountView[];
  linkable: SignInProvider[];
}) {
  const revalidator = useRevalidator();
  const [search] = useSearchParams();
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<Problem>(null);
  const linkError = search.get("error");

  async function unlink(account: LinkedAccountView) {
    setBusy(account.id);
    setProblem(null);
    // Packyard's /unlink-account takes the provider and the provider's account id (spec §7).
    const { error } = await authClient.$fetch<{ status: boolean }>("/unlink-account", {
      method: "POST",
      body: {
        providerId: account.providerId,
        ...(account.accountId ? { accountId: account.accountId } : {}),
      },
    });
    setBusy(null);
    if (error) {
      if ((error as { code?: string }).code === "SESSION_NOT_FRESH") setProblem({ kind: "reauthenticate" });
      else setProblem({ kind: "error", message: error.message ?? "Could not unlink the account" });
      return;
    }
    toast.success(`${account.label} unlinked`);
    await revalidator.revalidate();
  }

  async function link(provider: SignInProvider) {
    setBusy(provider.id);
    setProblem(null);
    const { error } = await authClient.linkSocial({
      provider: provider.id,
      callbackURL: "/settings",
      errorCallbackURL: "/settings",
    });
    // On success the browser is on its way to the provider.
    if (error) {
      setBusy(null);
      setProblem({ kind: "error", message: error.message ?? `Could not link ${provider.label}` });
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Linked accounts</CardTitle>
        <CardDescription>The ways you sign in to Packyard. Keep at least one.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {linkError ? (
          <Alert variant="error">{linkErrorMessage(linkError, search.get("error_description"))}</Alert>
        ) : null}
        {problem?.kind === "error" ? <Alert variant="error">{problem.message}</Alert> : null}
        {problem?.kind === "reauthenticate" ? (
          <ReauthenticateAlert>
            For your safety, unlinking needs a sign-in from the last day. Sign in again, then unlink.
          </ReauthenticateAlert>
        ) : null}
        <ul className="divide-y divide-border" aria-label="Linked accounts">
          {accounts.map((account) => (
            <li
              key={account.id}
              className="flex flex-col gap-3 py-4 first:pt-0 last:pb-0 sm:flex-row sm:items-center sm:justify-between"
            >
              <div className="flex min-w-0 gap-3">
                {account.providerId === "credential" ? (
                  <LockKeyhole className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
                ) : (
                  <Link2 className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
                )}
                <div className="grid min-w-0 gap-1">
                  <p className="font-medium">{account.label}</p>
                  <p className="break-all text-sm text-muted-foreground">
                    {account.accountId ? `Account ${account.accountId} · ` : ""}
                    Linked <FormattedDate iso={account.createdAt} />
                  </p>
                </div>
              </div>
              <Button
                variant="outline"
                size="sm"
                className="ml-8 shrink-0 self-start sm:ml-0 sm:self-center"
                disabled={busy !== null}
                onClick={() => unlink(account)}
                aria-label={`Unlink ${account.label}`}
              >
                {busy === account.id ? "Unlinking…" : "Unlink"}
              </Button>
            </li>
          ))}
        </ul>
        {linkable.length > 0 ? (
          <div className="grid gap-3 border-t border-border pt-4">
            <h3 className="text-sm font-medium">Link another account</h3>
            <div className="flex flex-wrap gap-2">
              {linkable.map((provider) => (
                <Button
                  key={provider.id}
                  variant="outline"
                  disabled={busy !== null}
                  onClick={() => link(provider)}
                >
                  {busy === provider.id ? `Opening ${provider.label}…` : `Link ${provider.label}`}
                </Button>
              ))}
            </div>
          </div>
        ) : null}
      </CardContent>
    </Card>
  );
}
