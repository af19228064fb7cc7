// The commands a publisher types to put files on this server: install the CLI, log in, push a
// release, or upload one file with curl (README "Publishing", docs/cli.md, docs/ci/). Every page
// that shows them (an empty project, a release, API keys, the integration guides) builds them
// here, so they are the same everywhere and name the server's own URL and the project's
// owner/slug.
import githubActionsWorkflow from "../../../../docs/ci/github-actions.yml?raw";
import gitlabCiJob from "../../../../docs/ci/gitlab-ci.yml?raw";

/** The environment variable the CLI, the CI examples and the README read an API key from. */
export const TOKEN_VARIABLE = "PACKYARD_TOKEN";
/** The environment variable the CLI reads the server's URL from. */
export const SERVER_VARIABLE = "PACKYARD_SERVER";

/** Where the files go: the server, and the project as owner and slug. */
export interface PublishTarget {
  baseUrl: string;
  owner: string;
  slug: string;
}

/** Shown when a page names no project: the CLI's own placeholder (docs/cli.md). */
export const PLACEHOLDER_PROJECT = "OWNER/PROJECT";
/** An example version for a project with no release yet. */
export const EXAMPLE_VERSION = "1.0.0";

/** A word as the shell reads it back unchanged: quoted only when it has to be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._/+:=@%-]+$/.test(word) && !word.startsWith("~")
    ? word
    : `'${word.replaceAll("'", `'\\''`)}'`;
}

const server = (baseUrl: string) => baseUrl.replace(/\/+$/, "");

/** OWNER/PROJECT as the CLI and the API take it: never ambiguous. */
export function projectArgument(target: Pick<PublishTarget, "owner" | "slug">): string {
  return `${target.owner}/${target.slug}`;
}

/** OWNER/PROJECT back into its parts; undefined for anything else. */
export function parseProjectArgument(value: string): { owner: string; slug: string } | undefined {
  const [owner, slug, ...rest] = value.split("/");
  return owner && slug && rest.length === 0 ? { owner, slug } : undefined;
}

/** Installs the CLI this server serves, checksum-verified, into ~/.local/bin. */
export function installCliCommand(baseUrl: string): string {
  return `curl -fsSL ${server(baseUrl)}/cli/install.sh | sh`;
}

/** Logs the CLI in from the browser, once per machine. */
export function loginCommand(baseUrl: string): string {
  return `packyard login --server ${server(baseUrl)}`;
}

/** Creates the release (or adds to it) and uploads every file. */
export function pushCommand(
  target: Pick<PublishTarget, "owner" | "slug">,
  version: string = EXAMPLE_VERSION,
  files = "dist/*",
): string {
  return `packyard push ${projectArgument(target)} ${shellWord(version)} ${files}`;
}

/** The API URL one file is PUT to; the release is created when it does not exist yet. */
export function uploadUrl(target: PublishTarget, version: string, filename: string): string {
  return `${server(target.baseUrl)}/api/v1/projects/${encodeURIComponent(target.owner)}/${encodeURIComponent(
    target.slug,
  )}/releases/${encodeURIComponent(version)}/files/${encodeURIComponent(filename)}`;
}

/** An example file name for a release: a .deb of the project, as the README's. */
export function exampleFilename(slug: string, version: string = EXAMPLE_VERSION): string {
  return `${slug}_${version}_amd64.deb`;
}

/** Sets the key for the commands after it (the secret itself, or a placeholder). */
export function exportTokenCommand(secret = "pky_…"): string {
  return `export ${TOKEN_VARIABLE}=${secret}`;
}

/** Uploads one file with curl and the key in PACKYARD_TOKEN, no CLI needed. */
export function curlUploadCommand(
  target: PublishTarget,
  version: string = EXAMPLE_VERSION,
  filename: string = exampleFilename(target.slug, version),
): string {
  return `curl -fsS -T ${shellWord(`dist/${filename}`)} -H "Authorization: Bearer $${TOKEN_VARIABLE}" ${shellWord(
    uploadUrl(target, version, filename),
  )}`;
}

/** Checks a key: lists the projects it can see. */
export function checkKeyCommand(baseUrl: string): string {
  return `curl -fsS -H "Authorization: Bearer $${TOKEN_VARIABLE}" ${server(baseUrl)}/api/v1/projects`;
}

/** The whole sequence for a terminal: install, log in, push. */
export function cliCommands(target: PublishTarget, version: string = EXAMPLE_VERSION): string[] {
  return [installCliCommand(target.baseUrl), loginCommand(target.baseUrl), pushCommand(target, version)];
}

/** The sequence for a machine with a key instead of a login: CI, or curl alone. */
export function tokenCommands(target: PublishTarget, version: string = EXAMPLE_VERSION): string[] {
  return [exportTokenCommand(), curlUploadCommand(target, version)];
}

export type CiSystem = "github-actions" | "gitlab-ci";

/** The file name each CI system reads its configuration from. */
export const CI_FILE: Record<CiSystem, string> = {
  "github-actions": ".github/workflows/packyard.yml",
  "gitlab-ci": ".gitlab-ci.yml",
};

/**
 * The CI configuration of docs/ci/ (the one the docs describe), with the project filled in when
 * one is known. The server's URL stays in PACKYARD_SERVER, a CI variable, as the file says.
 */
export function ciConfig(system: CiSystem, target?: Pick<PublishTarget, "owner" | "slug">): string {
  const file = system === "github-actions" ? githubActionsWorkflow : gitlabCiJob;
  // Only the push line: the file's comments keep telling what to replace.
  return target ? file.replaceAll(`push ${PLACEHOLDER_PROJECT} `, `push ${projectArgument(target)} `) : file;
}
