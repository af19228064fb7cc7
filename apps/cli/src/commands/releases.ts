// packyard releases list|show|yank|unyank|delete|promote: a project's releases as the API has
// them. Yanking takes a release out of the repositories and "latest"; its files stay
// downloadable. Promoting moves its packages to another suite, component or group of the project,
// or copies it into another project without uploading again (decision 035).
import { createInterface } from "node:readline/promises";
import type { Command, CommandGroup } from "../command.ts";
import { stringOption } from "../command.ts";
import type { Context } from "../context.ts";
import { promoteInput, type Release, releaseVersion, yankInput } from "../contract.ts";
import { CliError, exitCodes, usageError } from "../errors.ts";
import { formatBytes, shortTime, table } from "../output.ts";
import { parseProjectRef, projectKey, requireProject } from "../project-ref.ts";

/** PROJECT VERSION from the command line, checked, and the project found. */
async function releaseArgs(context: Context, [projectArg = "", version = ""]: string[]) {
  const ref = parseProjectRef(projectArg);
  const parsed = releaseVersion.safeParse(version);
  if (!parsed.success)
    throw usageError(`"${version}" is not a release version: ${parsed.error.issues[0]?.message}`);
  const api = context.api();
  const project = await requireProject(api, ref);
  return { api, project, version, name: `${project.owner}/${project.slug} ${version}` };
}

function printRelease(context: Context, owner: string, slug: string, release: Release) {
  const server = context.credentials().server;
  context.print(`${owner}/${slug} ${release.version}${release.title ? ` — ${release.title}` : ""}`);
  context.print(`Published ${shortTime(release.publishedAt)} UTC`);
  if (release.yanked)
    context.print(`Yanked ${shortTime(release.yankedAt)} UTC: ${release.yankedReason ?? ""}`);
  context.print(`Page: ${server}/releases/${owner}/${slug}/${encodeURIComponent(release.version)}`);
  if (release.notes) {
    context.print();
    context.print(release.notes.trimEnd());
  }
  context.print();
  if (release.files.length === 0) return context.print("No files.");
  context.print(
    table(
      ["FILE", "SIZE", "KIND", "DOWNLOADS", "SHA256"],
      release.files.map((f) => [f.filename, formatBytes(f.size), f.kind, String(f.downloads), f.sha256]),
    ),
  );
}

const list: Command = {
  usage: "releases list PROJECT",
  summary: "List a project's releases, newest first",
  args: { min: 1, max: 1 },
  async run(context, [projectArg = ""]) {
    const api = context.api();
    const project = await requireProject(api, parseProjectRef(projectArg));
    const releases = await api.listReleases(projectKey(project));
    context.result({ releases }, () => {
      if (releases.length === 0) return context.print(`${project.owner}/${project.slug} has no releases yet`);
      context.print(
        table(
          ["VERSION", "PUBLISHED", "FILES", "DOWNLOADS", "YANKED", "TITLE"],
          releases.map((r) => [
            r.version,
            shortTime(r.publishedAt),
            String(r.fileCount),
            String(r.downloads),
            r.yanked ? "yes" : "-",
            r.title ?? "",
          ]),
        ),
      );
    });
  },
};

const show: Command = {
  usage: "releases show PROJECT VERSION",
  summary: "Show a release: notes and files with their sha256",
  args: { min: 2, max: 2 },
  async run(context, args) {
    const { api, project, version } = await releaseArgs(context, args);
    const release = await api.getRelease(projectKey(project), version);
    context.result({ release }, () => printRelease(context, project.owner, project.slug, release));
  },
};

const yank: Command = {
  usage: "releases yank PROJECT VERSION --reason TEXT",
  summary: "Take a release out of the repositories and latest (files stay downloadable)",
  options: {
    reason: { type: "string", value: "TEXT", description: "Why, shown on the release page (required)" },
  },
  args: { min: 2, max: 2 },
  async run(context, args, options) {
    const reason = yankInput.safeParse({ reason: stringOption(options, "reason") ?? "" });
    if (!reason.success) throw usageError(`--reason: ${reason.error.issues[0]?.message}`);
    const { api, project, version, name } = await releaseArgs(context, args);
    const release = await api.yankRelease(projectKey(project), version, reason.data.reason);
    context.result({ release }, () => context.print(`Yanked ${name}: ${release.yankedReason}`));
  },
};

const unyank: Command = {
  usage: "releases unyank PROJECT VERSION",
  summary: "Restore a yanked release",
  args: { min: 2, max: 2 },
  async run(context, args) {
    const { api, project, version, name } = await releaseArgs(context, args);
    const release = await api.unyankRelease(projectKey(project), version);
    context.result({ release }, () => context.print(`Restored ${name}`));
  },
};

const remove: Command = {
  usage: "releases delete PROJECT VERSION [--yes]",
  summary: "Delete a release and its files for good",
  options: { yes: { type: "boolean", short: "y", description: "Do not ask (required without a terminal)" } },
  args: { min: 2, max: 2 },
  async run(context, args, options) {
    const { api, project, version, name } = await releaseArgs(context, args);
    if (options.yes !== true) {
      if (!context.io.stdin.isTTY || context.flags.json) {
        throw usageError(`Deleting ${name} removes its files for good: add --yes to confirm`);
      }
      const prompt = createInterface({ input: context.io.stdin, output: context.io.stderr });
      const answer = await prompt
        .question(`Delete ${name} and all its files? [y/N] `)
        .finally(() => prompt.close());
      if (!/^y(es)?$/i.test(answer.trim()))
        throw new CliError("CANCELLED", "Nothing was deleted", exitCodes.failure);
    }
    await api.deleteRelease(projectKey(project), version);
    context.result({ deleted: { project: `${project.owner}/${project.slug}`, version } }, () =>
      context.print(`Deleted ${name}`),
    );
  },
};

const promote: Command = {
  usage:
    "releases promote PROJECT VERSION [--to-distribution SUITE] [--to-component NAME] [--to-group NAME] [--to-project SLUG]",
  summary: "Promote a release to another APT suite, component, YUM group or project, without uploading again",
  details: [
    "Within the project its packages move (testing to stable); with --to-project the release is copied",
    "into that project of yours: the same files, .rpm files signed again with that project's key.",
  ],
  options: {
    "to-distribution": { type: "string", value: "SUITE", description: "The APT suite its .deb files go to" },
    "to-component": { type: "string", value: "NAME", description: "The APT component its .deb files go to" },
    "to-group": { type: "string", value: "NAME", description: "The YUM group its .rpm files go to" },
    "to-project": { type: "string", value: "SLUG", description: "Copy it into this project of yours" },
  },
  args: { min: 2, max: 2 },
  async run(context, args, options) {
    const target = promoteInput.safeParse({
      distribution: stringOption(options, "to-distribution"),
      component: stringOption(options, "to-component"),
      group: stringOption(options, "to-group"),
      project: stringOption(options, "to-project"),
    });
    if (!target.success) {
      const issue = target.error.issues[0];
      const field = issue?.path[0];
      throw usageError(
        field === undefined
          ? "Name a target: --to-distribution, --to-component, --to-group and/or --to-project"
          : `--to-${String(field)}: ${issue?.message}`,
      );
    }
    const { api, project, name } = await releaseArgs(context, args);
    const promotion = await api.promoteRelease(projectKey(project), args[1] ?? "", target.data);
    context.result({ promotion }, () => {
      const where = `${project.owner}/${promotion.project} ${promotion.version}`;
      context.print(promotion.mode === "copied" ? `Copied ${name} to ${where}` : `Promoted ${name}`);
      context.print(
        table(
          ["FILE", "NOW IN", "SHA256"],
          promotion.files.map((f) => [
            f.filename,
            f.target === null ? "-" : f.target === "" ? "(root group)" : f.target,
            `${f.sha256}${f.resigned ? " (re-signed)" : ""}`,
          ]),
        ),
      );
    });
  },
};

export const releasesCommand: CommandGroup = {
  summary: "List, show, yank, restore, delete and promote releases",
  subcommands: { list, show, yank, unyank, delete: remove, promote },
};
