// packyard projects list|create|transfer: the token's user's projects and those of the user's
// organizations (a key scoped to chosen projects sees those only), a new one with its signing
// key (yours, or an organization's with --owner), and moving one to another owner.
import { type CommandGroup, stringOption } from "../command.ts";
import { createProjectInput, orgSlug } from "../contract.ts";
import { usageError } from "../errors.ts";
import { table } from "../output.ts";
import { parseProjectRef, refName } from "../project-ref.ts";

export const projectsCommand: CommandGroup = {
  summary: "List, create and transfer projects",
  subcommands: {
    list: {
      usage: "projects list",
      summary: "List the projects the token can see",
      args: { min: 0, max: 0 },
      async run(context) {
        const projects = await context.api().listProjects();
        context.result({ projects }, () => {
          if (projects.length === 0) return context.print("No projects yet: packyard projects create SLUG");
          context.print(
            table(
              ["PROJECT", "VISIBILITY", "LATEST", "RELEASES", "DOWNLOADS", "NAME"],
              projects.map((p) => [
                `${p.owner}/${p.slug}`,
                p.visibility,
                p.latestVersion ?? "-",
                String(p.releaseCount),
                String(p.downloads),
                p.name,
              ]),
            ),
          );
        });
      },
    },
    create: {
      usage: "projects create SLUG [--owner ORG]",
      summary: "Create a project (needs a key for all projects, or a login token)",
      options: {
        owner: {
          type: "string",
          value: "ORG",
          description: "Create it in this organization (its admins and owners may); default: yours",
        },
        name: { type: "string", value: "NAME", description: "Display name (default: the slug)" },
        description: { type: "string", value: "TEXT", description: "Short description" },
        visibility: { type: "string", value: "public|private", description: "Default public" },
        homepage: { type: "string", value: "URL", description: "Project homepage" },
        "source-url": { type: "string", value: "URL", description: "Source repository" },
        license: { type: "string", value: "SPDX", description: "License, e.g. MIT" },
        "key-algorithm": {
          type: "string",
          value: "rsa3072|ed25519",
          description: "Repository signing key (default rsa3072, which every apt and rpm accepts)",
        },
      },
      args: { min: 1, max: 1 },
      async run(context, [slug], options) {
        const input = createProjectInput.safeParse({
          slug,
          owner: stringOption(options, "owner"),
          name: stringOption(options, "name") ?? slug,
          description: stringOption(options, "description"),
          visibility: stringOption(options, "visibility"),
          homepage: stringOption(options, "homepage"),
          sourceUrl: stringOption(options, "source-url"),
          license: stringOption(options, "license"),
          keyAlgorithm: stringOption(options, "key-algorithm"),
        });
        if (!input.success) {
          const issue = input.error.issues[0];
          throw usageError(`${issue?.path.join(".") || "project"}: ${issue?.message}`);
        }
        const project = await context.api().createProject(input.data);
        context.result({ project }, () =>
          context.print(`Created ${project.visibility} project ${project.owner}/${project.slug}`),
        );
      },
    },
    transfer: {
      usage: "projects transfer PROJECT OWNER",
      summary: "Move a project to an organization you administer, or back to yourself",
      details: [
        "Its releases, files, signing keys and repositories go with it. Its old /dl and /releases",
        "URLs redirect to the new owner, so machines keep installing from their old source lines.",
      ],
      args: { min: 2, max: 2 },
      async run(context, [projectArg = "", owner = ""]) {
        const ref = parseProjectRef(projectArg);
        const valid = orgSlug.safeParse(owner);
        if (!valid.success)
          throw usageError(`"${owner}" is not a username or organization: ${valid.error.issues[0]?.message}`);
        const project = await context.api().transferProject(refName(ref), valid.data);
        context.result({ project }, () =>
          context.print(`Moved ${refName(ref)} to ${project.owner}/${project.slug}`),
        );
      },
    },
  },
};
