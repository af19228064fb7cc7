// /orgs/{orgSlug}/members: who belongs to the organization and with which role. Admins and owners
// change roles (only owners make or unmake owners, which is how ownership is handed over), remove
// members, invite by email (the link is mailed, and shown here while open) and revoke
// invitations; anyone may leave. The rules are the domain's (server/orgs/storage.ts): an
// organization keeps at least one owner, and its refusals show in the form's alert.
import { useForm } from "@conform-to/react";
import { type OrgRole, orgRoleDescriptions, orgRoles } from "@packyard/contract/orgs.ts";
import { useEffect, useRef } from "react";
import { data, Form, redirect, useNavigation } from "react-router";
import { toast } from "sonner";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { FormAlert } from "../../components/dashboard/project-dialogs.tsx";
import { selectClass } from "../../components/dashboard/transfer-project.tsx";
import { invitationForm, inviteForm, memberForm, memberRoleForm } from "../../components/orgs/forms.ts";
import { OrgHeader, RoleBadge } from "../../components/orgs/org-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { CopyButton } from "../../components/ui/copy-button.tsx";
import { FormField } from "../../components/ui/form-field.tsx";
import { Label } from "../../components/ui/label.tsx";
import {
  domainFailure,
  invalid,
  refused,
  sessionActor,
  sessionCaller,
  succeeded,
} from "../../lib/dashboard.server.ts";
import { type FormReply, parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import {
  changeMemberRole,
  inviteMember,
  listInvitations,
  listMembers,
  orgAbilities,
  orgOr404,
  removeMember,
  revokeInvitation,
} from "../../lib/orgs.server.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/org-members";

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: loaderData ? `Members · ${loaderData.org.name}` : "Members",
    noindex: true,
  });

/** A page that shows invitation links: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url, params }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config } = services(context);
  const actor = sessionActor(user);
  const { org, role } = await orgOr404(database.db, actor, params.orgSlug);
  const can = orgAbilities(actor, role);
  return {
    org: { slug: org.slug, name: org.name },
    role,
    can,
    me: user.username,
    members: await listMembers(database.db, actor, org.slug),
    invitations: can.admin ? await listInvitations(database.db, actor, org.slug, config.baseUrl) : [],
  };
}

/** Which of the page's forms an answer is for. */
type Section = "members" | "invite" | "invitations";
type Reply = FormReply & { section: Section };

function answer(section: Section, reply: ReturnType<typeof succeeded>): ReturnType<typeof data<Reply>> {
  return data<Reply>({ ...reply.data, section }, reply.init ?? undefined);
}

export async function action({ request, context, url, params }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const { database, config, mailer, clock } = services(context);
  const db = database.db;
  const actor = sessionActor(user);
  const slug = params.orgSlug;
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  await orgOr404(db, actor, slug);
  const caller = sessionCaller(user, clientAddress(context));

  switch (intent) {
    case "role": {
      const submission = parseForm(formData, memberRoleForm);
      if (submission.status !== "success") return answer("members", invalid(submission));
      try {
        const { username, role } = submission.value;
        const member = await changeMemberRole({ db }, caller, { organization: slug, username, role });
        return answer("members", succeeded(submission, `${member.username} is now ${member.role}`));
      } catch (error) {
        return answer("members", domainFailure(submission, error));
      }
    }
    case "remove":
    case "leave": {
      const submission = parseForm(formData, memberForm);
      if (submission.status !== "success") return answer("members", invalid(submission));
      const leaving = intent === "leave";
      const username = leaving ? user.username : submission.value.username;
      try {
        await removeMember({ db }, caller, { organization: slug, username });
      } catch (error) {
        return answer("members", domainFailure(submission, error));
      }
      if (leaving) throw redirect(`/dashboard?left=${encodeURIComponent(slug)}`);
      return answer("members", succeeded(submission, `${submission.value.username} was removed`));
    }
    case "invite": {
      const submission = parseForm(formData, inviteForm);
      if (submission.status !== "success") return answer("invite", invalid(submission));
      try {
        const invitation = await inviteMember({ db, mailer, baseUrl: config.baseUrl, clock }, caller, {
          ...submission.value,
          organization: slug,
        });
        return answer(
          "invite",
          data<FormReply>({
            result: submission.reply({ resetForm: true }),
            message: `Invitation mailed to ${invitation.email}`,
          }),
        );
      } catch (error) {
        return answer("invite", domainFailure(submission, error, { ALREADY_MEMBER: "email" }));
      }
    }
    case "revoke": {
      const submission = parseForm(formData, invitationForm);
      if (submission.status !== "success") return answer("invitations", invalid(submission));
      const { invitationId } = submission.value;
      try {
        await revokeInvitation({ db, clock }, caller, { organization: slug, invitationId });
      } catch (error) {
        return answer("invitations", domainFailure(submission, error));
      }
      return answer("invitations", succeeded(submission, "Invitation revoked"));
    }
    default:
      return answer(
        "members",
        refused(parseForm(formData, memberForm), 400, { formError: "Unknown action" }),
      );
  }
}

/** The roles a member with `role` may give (only owners give or take "owner"). */
function assignable(role: OrgRole): readonly OrgRole[] {
  return role === "owner" ? orgRoles : orgRoles.filter((r) => r !== "owner");
}

export default function OrgMembers({ loaderData, actionData }: Route.ComponentProps) {
  const { org, role, can, me, members, invitations } = loaderData;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  const reply = actionData as Reply | undefined;
  const toasted = useRef<Reply | undefined>(undefined);
  useEffect(() => {
    if (!reply || toasted.current === reply) return;
    toasted.current = reply;
    // A reset form's answer (the invitation sent) carries no status: only refusals say "error".
    if (reply.result.status !== "error" && reply.message) toast.success(reply.message);
  }, [reply]);
  const errorsOf = (section: Section) =>
    reply?.section === section && reply.result.status === "error"
      ? (reply.result.error?.[""] ?? undefined)
      : undefined;

  return (
    <>
      <OrgHeader org={org} role={role} admin={can.admin} />
      <div className="grid max-w-3xl gap-6">
        <Card>
          <CardHeader>
            <CardTitle>Members</CardTitle>
            <CardDescription>
              {can.admin
                ? "Change a member's role or remove them. Only owners make or remove owners; the organization always keeps one."
                : "Who belongs to this organization. Its admins and owners manage members."}
            </CardDescription>
          </CardHeader>
          <CardContent className="grid gap-4">
            <FormAlert errors={errorsOf("members")} code={reply?.code} />
            <ul
              className="min-w-0 divide-y divide-border rounded-md border border-border"
              aria-label="Members"
            >
              {members.map((member) => {
                const self = member.username === me;
                const mayChange = can.admin && (member.role !== "owner" || can.own);
                return (
                  <li
                    key={member.userId}
                    className="flex flex-col gap-3 p-3 sm:flex-row sm:items-center sm:justify-between"
                    data-testid={`member-${member.username}`}
                  >
                    <div className="min-w-0">
                      <p className="truncate font-medium">
                        {member.name} {self ? <span className="text-muted-foreground">(you)</span> : null}
                      </p>
                      <p className="truncate text-sm text-muted-foreground">
                        <span className="font-mono">@{member.username}</span> · joined{" "}
                        <FormattedDate iso={member.joinedAt} />
                      </p>
                    </div>
                    <div className="flex flex-wrap items-center gap-2">
                      {mayChange ? (
                        <Form method="post" className="flex items-center gap-2">
                          <input type="hidden" name="intent" value="role" />
                          <input type="hidden" name="username" value={member.username} />
                          <Label htmlFor={`role-${member.userId}`} className="sr-only">
                            Role of {member.username}
                          </Label>
                          <select
                            id={`role-${member.userId}`}
                            name="role"
                            defaultValue={member.role}
                            key={member.role}
                            className={`${selectClass} h-9 w-32`}
                          >
                            {assignable(role).map((r) => (
                              <option key={r} value={r}>
                                {r}
                              </option>
                            ))}
                          </select>
                          <Button type="submit" variant="outline" size="sm" disabled={busy}>
                            Save role
                          </Button>
                        </Form>
                      ) : (
                        <RoleBadge role={member.role} />
                      )}
                      {self ? (
                        <Form method="post">
                          <input type="hidden" name="intent" value="leave" />
                          <input type="hidden" name="username" value={member.username} />
                          <Button type="submit" variant="outline" size="sm" disabled={busy}>
                            Leave
                          </Button>
                        </Form>
                      ) : mayChange ? (
                        <Form method="post">
                          <input type="hidden" name="intent" value="remove" />
                          <input type="hidden" name="username" value={member.username} />
                          <Button
                            type="submit"
                            variant="outline"
                            size="sm"
                            className="text-destructive hover:text-destructive"
                            disabled={busy}
                            aria-label={`Remove ${member.username}`}
                          >
                            Remove
                          </Button>
                        </Form>
                      ) : null}
                    </div>
                  </li>
                );
              })}
            </ul>
          </CardContent>
        </Card>

        {can.admin ? (
          <InviteCard role={role} reply={reply?.section === "invite" ? reply : undefined} busy={busy} />
        ) : null}

        {can.admin ? (
          <Card>
            <CardHeader>
              <CardTitle>Open invitations</CardTitle>
              <CardDescription>
                Each link is valid for 7 days and works once, for the address it was sent to.
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-4">
              <FormAlert errors={errorsOf("invitations")} code={reply?.code} />
              {invitations.length === 0 ? (
                <p className="text-sm text-muted-foreground">No open invitations.</p>
              ) : (
                <ul
                  className="min-w-0 divide-y divide-border rounded-md border border-border"
                  aria-label="Open invitations"
                >
                  {invitations.map((invitation) => (
                    <li
                      key={invitation.id}
                      className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between"
                    >
                      <div className="min-w-0">
                        <p className="break-all font-medium">{invitation.email}</p>
                        <p className="text-sm text-muted-foreground">
                          {invitation.role} · expires <FormattedDate iso={invitation.expiresAt} />
                          {invitation.invitedBy ? ` · by @${invitation.invitedBy}` : ""}
                        </p>
                      </div>
                      <div className="flex items-center gap-2">
                        <CopyButton
                          value={invitation.url}
                          label={`Copy the invitation link for ${invitation.email}`}
                          variant="outline"
                          size="sm"
                        >
                          Copy link
                        </CopyButton>
                        <Form method="post">
                          <input type="hidden" name="intent" value="revoke" />
                          <input type="hidden" name="invitationId" value={invitation.id} />
                          <Button
                            type="submit"
                            variant="outline"
                            size="sm"
                            disabled={busy}
                            aria-label={`Revoke the invitation for ${invitation.email}`}
                          >
                            Revoke
                          </Button>
                        </Form>
                      </div>
                    </li>
                  ))}
                </ul>
              )}
            </CardContent>
          </Card>
        ) : null}
      </div>
    </>
  );
}

function InviteCard({ role, reply, busy }: { role: OrgRole; reply: Reply | undefined; busy: boolean }) {
  const [form, fields] = useForm({
    id: "invite-member",
    lastResult: reply?.result,
    defaultValue: { role: "publisher" },
    onValidate: ({ formData }) => parseForm(formData, inviteForm),
  });
  const roleError = fields.role.errors?.[0];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Invite a member</CardTitle>
        <CardDescription>
          We mail them a link; they accept it signed in with that address, with an account they have or make
          from the link.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <Form method="post" id={form.id} onSubmit={form.onSubmit} className="grid gap-4" noValidate>
          <input type="hidden" name="intent" value="invite" />
          <FormAlert errors={form.errors} code={reply?.code} />
          <FormField
            label="Email"
            type="email"
            name={fields.email.name}
            key={fields.email.key}
            autoComplete="off"
            defaultValue={fields.email.initialValue as string | undefined}
            error={fields.email.errors?.[0]}
          />
          <fieldset className="grid gap-2">
            <legend className="mb-2 text-sm font-medium">Role</legend>
            {assignable(role).map((r) => (
              <label
                key={r}
                className="flex items-start gap-3 rounded-md border border-border p-3 text-sm has-[:checked]:border-primary"
              >
                <input
                  type="radio"
                  name={fields.role.name}
                  value={r}
                  defaultChecked={(fields.role.initialValue ?? "publisher") === r}
                  className="mt-0.5 size-4 accent-primary"
                />
                <span>
                  <span className="font-medium capitalize">{r}</span>
                  <span className="block text-muted-foreground">{orgRoleDescriptions[r]}</span>
                </span>
              </label>
            ))}
            {roleError ? <p className="text-sm text-destructive">{roleError}</p> : null}
          </fieldset>
          <div>
            <Button type="submit" disabled={busy}>
              Send invitation
            </Button>
          </div>
        </Form>
      </CardContent>
    </Card>
  );
}
