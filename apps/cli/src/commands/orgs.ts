// packyard orgs list|create|members|invite: the organizations the token's user belongs to
// (decision 040), a new one (its creator is its owner), its members, and an invitation by email
// (the server mails the link, valid 7 days; it is printed too). Needs the login token or a key
// for all projects.
import { type Command, type CommandGroup, stringOption } from "../command.ts";
import { createOrgSchema, inviteMemberSchema, orgRoles } from "../contract.ts";
import { usageError } from "../errors.ts";
import { shortTime, table } from "../output.ts";

/** The first problem zod found, as a usage error naming the field. */
function invalid(error: { issues: { path: PropertyKey[]; message: string }[] }, fallback: string) {
  const issue = error.issues[0];
  return usageError(`${issue?.path.join(".") || fallback}: ${issue?.message}`);
}

const list: Command = {
  usage: "orgs list",
  summary: "List your organizations and your role in each",
  args: { min: 0, max: 0 },
  async run(context) {
    const organizations = await context.api().listOrgs();
    context.result({ organizations }, () => {
      if (organizations.length === 0)
        return context.print("No organizations yet: packyard orgs create SLUG --name NAME");
      context.print(
        table(
          ["ORGANIZATION", "ROLE", "MEMBERS", "PROJECTS", "NAME"],
          organizations.map((o) => [o.slug, o.role, String(o.memberCount), String(o.projectCount), o.name]),
        ),
      );
    });
  },
};

const create: Command = {
  usage: "orgs create SLUG --name NAME",
  summary: "Create an organization; you are its owner",
  details: [
    "SLUG is in its projects' URLs (/dl/SLUG/…) and shares one namespace with usernames.",
    "Create its projects with packyard projects create SLUG --owner ORG.",
  ],
  options: { name: { type: "string", value: "NAME", description: "Display name (default: the slug)" } },
  args: { min: 1, max: 1 },
  async run(context, [slug = ""], options) {
    const input = createOrgSchema.safeParse({ slug, name: stringOption(options, "name") ?? slug });
    if (!input.success) throw invalid(input.error, "organization");
    const organization = await context.api().createOrg(input.data);
    context.result({ organization }, () =>
      context.print(`Created organization ${organization.slug} (${organization.name}); you are its owner`),
    );
  },
};

const members: Command = {
  usage: "orgs members ORG",
  summary: "List an organization's members and their roles",
  args: { min: 1, max: 1 },
  async run(context, [slug = ""]) {
    const list = await context.api().listMembers(slug);
    context.result({ members: list }, () =>
      context.print(
        table(
          ["USERNAME", "ROLE", "JOINED", "NAME"],
          list.map((m) => [m.username, m.role, shortTime(m.joinedAt), m.name]),
        ),
      ),
    );
  },
};

const invite: Command = {
  usage: "orgs invite ORG EMAIL --role ROLE",
  summary: "Invite someone by email; the link is mailed and valid 7 days (admins and owners)",
  details: [
    "owner: billing, deleting the organization, and everything an admin may do",
    "admin: members, invitations, API keys and every project's settings",
    "publisher: upload, yank and edit releases",
    "viewer: read private projects and install from their repositories",
  ],
  options: {
    role: { type: "string", value: orgRoles.join("|"), description: "The member's role (required)" },
  },
  args: { min: 2, max: 2 },
  async run(context, [slug = "", email = ""], options) {
    const role = stringOption(options, "role");
    if (role === undefined) throw usageError(`--role is required: ${orgRoles.join(", ")}`);
    const input = inviteMemberSchema.safeParse({ email, role });
    if (!input.success) throw invalid(input.error, "invitation");
    const invitation = await context.api().inviteMember(slug, input.data);
    context.result({ invitation }, () => {
      context.print(
        `Invited ${invitation.email} to ${invitation.organization} as ${invitation.role}; the link was mailed:`,
      );
      context.print(invitation.url);
      context.print(`Valid until ${shortTime(invitation.expiresAt)} UTC`);
    });
  },
};

export const orgsCommand: CommandGroup = {
  summary: "Organizations: list, create, members, invite",
  subcommands: { list, create, members, invite },
};
