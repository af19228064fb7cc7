// The CI configuration a trusted publisher needs, ready to paste: for GitHub Actions a workflow
// whose job may ask for its ID token (`permissions: id-token: write`), for GitLab CI a job with
// the ID token in PACKYARD_ID_TOKEN (`id_tokens:`, for this server as the audience). Both install
// the CLI this server serves and push (lib/publish-commands.ts); the CLI trades the ID token for
// a publish token itself. The job's trigger follows the publisher's ref pattern, its environment
// the publisher's, so a job of the snippet is one the publisher trusts.
import type { TrustedPublisherSummary } from "@packyard/contract/trusted-publishing.ts";
import {
  CI_FILE,
  type CiSystem,
  type PublishTarget,
  projectArgument,
  SERVER_VARIABLE,
} from "../../lib/publish-commands.ts";

export interface CiSnippet {
  system: CiSystem;
  /** The file it goes in. */
  path: string;
  text: string;
}

type Publisher = Pick<TrustedPublisherSummary, "provider" | "workflow" | "environment" | "ref">;

/** A YAML scalar: plain when it reads back unchanged, else double-quoted (JSON's quoting is YAML's). */
function yamlScalar(value: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(value) ? value : JSON.stringify(value);
}

/** Which refs the publisher allows: tags, branches, either by name, or any. */
function refKind(ref: string | null): { kind: "tag" | "branch" | "name"; pattern: string } | null {
  if (!ref) return null;
  if (ref.startsWith("refs/tags/")) return { kind: "tag", pattern: ref.slice("refs/tags/".length) };
  if (ref.startsWith("refs/heads/")) return { kind: "branch", pattern: ref.slice("refs/heads/".length) };
  return { kind: "name", pattern: ref };
}

const server = (baseUrl: string) => baseUrl.replace(/\/+$/, "");

/** Installs the CLI the server in PACKYARD_SERVER serves (publish-commands.ts installCliCommand). */
const INSTALL_CLI = `curl -fsSL "$${SERVER_VARIABLE}/cli/install.sh" | sh`;

export function githubSnippet(publisher: Publisher, target: PublishTarget): CiSnippet {
  const ref = refKind(publisher.ref);
  // With no ref condition, the docs' trigger: tags such as v1.2.0.
  const tags = ref === null ? "v*" : ref.kind !== "branch" ? ref.pattern : null;
  const branches = ref !== null && ref.kind !== "tag" ? ref.pattern : null;
  const byTag = branches === null;
  const path = publisher.workflow ? `.github/workflows/${publisher.workflow}` : CI_FILE["github-actions"];
  const lines = [
    `# ${path}`,
    "# Publishes to Packyard with trusted publishing: no secret to store.",
    "name: Publish to Packyard",
    "",
    "on:",
    "  push:",
    ...(branches !== null ? [`    branches: [${JSON.stringify(branches)}]`] : []),
    ...(tags !== null ? [`    tags: [${JSON.stringify(tags)}]`] : []),
    "",
    "jobs:",
    "  publish:",
    "    runs-on: ubuntu-latest",
    ...(publisher.environment ? [`    environment: ${yamlScalar(publisher.environment)}`] : []),
    "    permissions:",
    "      contents: read",
    "      id-token: write # the job's ID token, traded for a publish token",
    "    steps:",
    "      - uses: actions/checkout@v4",
    "      - uses: actions/setup-node@v4",
    "        with:",
    "          node-version: 22",
    "      # Your build: anything that leaves the files to publish in dist/.",
    "      - run: make dist",
    "      - name: Push to Packyard",
    "        env:",
    `          ${SERVER_VARIABLE}: ${server(target.baseUrl)}`,
    "        run: |",
    `          ${INSTALL_CLI}`,
    '          export PATH="$HOME/.local/bin:$PATH"',
    ...(byTag
      ? ["          # v1.2.0 → release 1.2.0"]
      : ["          # VERSION: the version this run publishes, e.g. from your build"]),
    `          packyard push ${projectArgument(target)} ${byTag ? `"\${GITHUB_REF_NAME#v}"` : "VERSION"} dist/*`,
  ];
  return { system: "github-actions", path, text: `${lines.join("\n")}\n` };
}

/** A ref pattern as a GitLab rules regex: anchored, `*` any characters. */
function gitlabRegex(pattern: string): string {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&"))
    .join(".*");
  return `/^${source}$/`;
}

function gitlabRule(ref: string | null): string {
  const parsed = refKind(ref);
  if (parsed === null) return "$CI_COMMIT_TAG =~ /^v/";
  const variable =
    parsed.kind === "tag"
      ? "$CI_COMMIT_TAG"
      : parsed.kind === "branch"
        ? "$CI_COMMIT_BRANCH"
        : "$CI_COMMIT_REF_NAME";
  return parsed.pattern.includes("*")
    ? `${variable} =~ ${gitlabRegex(parsed.pattern)}`
    : `${variable} == ${JSON.stringify(parsed.pattern)}`;
}

export function gitlabSnippet(publisher: Publisher, target: PublishTarget): CiSnippet {
  const base = server(target.baseUrl);
  const parsed = refKind(publisher.ref);
  const byTag = parsed === null || parsed.kind === "tag";
  const lines = [
    `# ${CI_FILE["gitlab-ci"]}`,
    "# Publishes to Packyard with trusted publishing: no secret to store. It",
    "# pushes what an earlier job of the pipeline left in dist/ (its artifacts).",
    "publish:packyard:",
    "  stage: deploy",
    "  image: node:22-bookworm-slim",
    ...(publisher.environment ? [`  environment: ${yamlScalar(publisher.environment)}`] : []),
    "  rules:",
    `    - if: ${gitlabRule(publisher.ref)}`,
    "  id_tokens:",
    "    PACKYARD_ID_TOKEN: # traded for a publish token",
    `      aud: ${base}`,
    "  variables:",
    `    ${SERVER_VARIABLE}: ${base}`,
    "  script:",
    "    - apt-get update -qq && apt-get install -y -qq curl ca-certificates >/dev/null",
    `    - ${INSTALL_CLI}`,
    '    - export PATH="$HOME/.local/bin:$PATH"',
    ...(byTag ? [] : ["    # VERSION: the version this pipeline publishes, e.g. from your build"]),
    `    - packyard push ${projectArgument(target)} ${byTag ? `"\${CI_COMMIT_TAG#v}"` : "VERSION"} dist/*`,
  ];
  return { system: "gitlab-ci", path: CI_FILE["gitlab-ci"], text: `${lines.join("\n")}\n` };
}

/** The configuration for the publisher's CI. */
export function ciSnippet(publisher: Publisher, target: PublishTarget): CiSnippet {
  return publisher.provider === "github"
    ? githubSnippet(publisher, target)
    : gitlabSnippet(publisher, target);
}
