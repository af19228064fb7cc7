// /invitations/{invitationId}: the link in an organization's invitation mail (decision 040). It
// says which organization, role and inviter; signed out, it offers to sign in or create an
// account and comes back here; signed in with the invited address, Accept joins the
// organization (acceptInvitation) and opens its page; with another address, it says so. Accepted
// and expired invitations are explained. The id is the secret: anyone holding the link sees it.
import { orgRoleDescriptions } from "@packyard/contract/orgs.ts";
import { Building2 } from "lucide-react";
import { Form, Link, redirect, useNavigation } from "react-router";
import { AuthShell } from "../components/auth-shell.tsx";
import { FormAlert } from "../components/dashboard/project-dialogs.tsx";
import { invitationForm } from "../components/orgs/forms.ts";
import { RoleBadge } from "../components/orgs/org-header.tsx";
import { Button } from "../components/ui/button.tsx";
import { domainFailure, sessionCaller } from "../lib/dashboard.server.ts";
import { parseForm } from "../lib/forms.ts";
import { pageMeta } from "../lib/meta.ts";
import { acceptInvitation, viewInvitation } from "../lib/orgs.server.ts";
import { orgPath } from "../lib/project-path.ts";
import { clientAddress, getSessionUser, services } from "../lib/session.server.ts";
import type { Route } from "./+types/invitation";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData?.invitation ? `Join ${loaderData.invitation.organization.name}` : "Invitation",
    noindex: true,
  });

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  const s = services(context);
  let invitation: Awaited<ReturnType<typeof viewInvitation>>;
  try {
    invitation = await viewInvitation(s.database.db, params.invitationId, s.clock);
  } catch {
    return { invitation: null, back: url.pathname };
  }
  const user = await getSessionUser(request, context);
  const here = url.pathname;
  return {
    invitation,
    back: here,
    signIn: `/auth/signin?${new URLSearchParams({ redirect: here })}`,
    signUp: `/auth/signin?${new URLSearchParams({ mode: "signup", redirect: here })}`,
    user: user ? { email: user.email, matches: user.email.toLowerCase() === invitation.email } : null,
  };
}

export async function action({ request, context, params, url }: Route.ActionArgs) {
  const user = await getSessionUser(request, context);
  if (!user) throw redirect(`/auth/signin?${new URLSearchParams({ redirect: url.pathname })}`);
  const s = services(context);
  const formData = await request.formData();
  const submission = parseForm(formData, invitationForm);
  let joined: Awaited<ReturnType<typeof acceptInvitation>>;
  try {
    joined = await acceptInvitation(
      { db: s.database.db, clock: s.clock },
      sessionCaller(user, clientAddress(context)),
      { invitationId: params.invitationId },
    );
  } catch (error) {
    return domainFailure(submission, error);
  }
  const target = `${orgPath(joined.slug)}?joined=1`;
  throw redirect(user.username ? target : `/onboarding?${new URLSearchParams({ redirect: target })}`);
}

export default function Invitation({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const { invitation } = loaderData;
  if (!invitation) {
    return (
      <AuthShell
        title="This invitation doesn't exist"
        description="The link may be mistyped, or the invitation was deleted with its organization."
        footer={<Link to="/dashboard">Go to your dashboard</Link>}
      >
        <p className="text-sm text-muted-foreground">Ask the organization for a new invitation.</p>
      </AuthShell>
    );
  }
  const { organization, role, invitedBy, email, state } = invitation;
  const summary = (
    <div className="grid gap-3 rounded-md border border-border p-4 text-sm" data-testid="invitation">
      <div className="flex items-center gap-2">
        <Building2 className="size-4 text-primary" aria-hidden="true" />
        <span className="font-medium">{organization.name}</span>
        <span className="font-mono text-muted-foreground">{organization.slug}</span>
      </div>
      <p className="flex flex-wrap items-center gap-2">
        Role <RoleBadge role={role} />
        <span className="text-muted-foreground">{orgRoleDescriptions[role]}</span>
      </p>
      <p className="text-muted-foreground">
        For <span className="font-medium text-foreground">{email}</span>
        {invitedBy ? (
          <>
            , invited by <span className="font-mono text-foreground">@{invitedBy}</span>
          </>
        ) : null}
      </p>
    </div>
  );

  if (state !== "open") {
    return (
      <AuthShell
        title={state === "accepted" ? "This invitation was already accepted" : "This invitation has expired"}
        description={
          state === "accepted"
            ? "It works once. If it was you, the organization is in your dashboard's owner menu."
            : "Invitations are valid for 7 days, and can be withdrawn. Ask the organization's admins for a new one."
        }
        footer={<Link to="/dashboard">Go to your dashboard</Link>}
      >
        {summary}
      </AuthShell>
    );
  }

  if (!("user" in loaderData) || !loaderData.user) {
    return (
      <AuthShell
        title={`Join ${organization.name} on Packyard`}
        description="Sign in or create an account with the invited address to accept. You come back here afterwards."
      >
        <div className="grid gap-4">
          {summary}
          <div className="grid gap-2 sm:grid-cols-2">
            <Button asChild>
              <Link to={loaderData.signIn}>Sign in</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to={loaderData.signUp}>Create an account</Link>
            </Button>
          </div>
        </div>
      </AuthShell>
    );
  }

  const { user } = loaderData;
  return (
    <AuthShell
      title={`Join ${organization.name}`}
      description={`Signed in as ${user.email}.`}
      footer={<Link to="/dashboard">Not now</Link>}
    >
      <div className="grid gap-4">
        {summary}
        {user.matches ? (
          <Form method="post" className="grid gap-4">
            <FormAlert errors={actionData?.result.error?.[""] ?? undefined} code={actionData?.code} />
            <input type="hidden" name="invitationId" value={invitation.id} />
            <Button type="submit" disabled={busy}>
              Accept invitation
            </Button>
          </Form>
        ) : (
          <FormAlert
            errors={[
              `This invitation is for ${email}, and you are signed in as ${user.email}: sign out and sign in with ${email} (or create an account with it) to accept.`,
            ]}
          />
        )}
      </div>
    </AuthShell>
  );
}
