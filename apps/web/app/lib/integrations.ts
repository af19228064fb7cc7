// Guides for publishers moving to Packyard from the tools they use today.
export interface IntegrationGuide {
  slug: "nexus" | "artifactory" | "gitlab" | "github-releases";
  title: string;
  summary: string;
  /** The importer the page offers above its guide (docs/imports.md), if any. */
  importer?: { variant: "github-releases" | "repository"; product?: string };
  steps: IntegrationStep[];
}

/**
 * A step the page shows commands for, built with the server's URL and the user's project
 * (lib/publish-commands.ts): the CLI and curl, the CI variables, or a CI file of docs/ci/.
 */
export type StepCommands = "publish" | "ci-variables" | "github-actions" | "gitlab-ci";

export interface IntegrationStep {
  title: string;
  text: string;
  commands?: StepCommands;
}

const common = {
  project: {
    title: "Create a project",
    text: "In Projects, create one project per product. Its slug becomes part of every repository and download URL.",
  },
  key: {
    title: "Create a publish key",
    text: "In API keys, create a key scoped to that project with publish access, and store it as a secret in your CI.",
  },
  serverVariable: {
    title: "Name the server",
    text: "Store this server's URL as a CI variable named PACKYARD_SERVER. It is not a secret, and no Packyard secret is needed.",
    commands: "ci-variables" as const,
  },
};

export const integrationGuides: IntegrationGuide[] = [
  {
    slug: "nexus",
    title: "Moving from Nexus Repository",
    summary: "Replace a self-hosted Nexus apt or yum hosted repository with a signed Packyard repository.",
    importer: { variant: "repository", product: "Nexus" },
    steps: [
      common.project,
      {
        title: "Import the hosted repository",
        text: "Give the importer above the repository's URL (for APT also its distribution), and a Nexus user that may read it. Packyard reads the repository's index, downloads every package, checks each against the checksum the index gives, and publishes them as releases: one per version, or one you name.",
      },
      {
        title: "Check the summary",
        text: "The import lists what it imported and every package it could not, with the reason. Running it again later imports only what is new.",
      },
      common.key,
      {
        title: "Publish new versions to Packyard",
        text: "Change your pipeline's deploy step to push to Packyard with the key in PACKYARD_TOKEN, using the CLI or curl; Packyard parses every package once and rebuilds the signed indexes.",
        commands: "publish",
      },
      {
        title: "Point your machines at Packyard",
        text: "Replace the Nexus source or .repo file with the setup lines shown on the project page.",
      },
    ],
  },
  {
    slug: "artifactory",
    title: "Moving from JFrog Artifactory",
    summary:
      "Serve Debian and RPM packages that lived in Artifactory local repositories from Packyard instead.",
    importer: { variant: "repository", product: "Artifactory" },
    steps: [
      common.project,
      {
        title: "Import the local repository",
        text: "Give the importer above the repository's URL (https://…/artifactory/<repository>; for APT also its distribution), and a user name with an identity token. Packyard reads the index, downloads every package, checks each checksum and publishes them as releases.",
      },
      common.key,
      {
        title: "Re-publish with your pipeline",
        text: "Change the deploy step of your build to push to Packyard with the key in PACKYARD_TOKEN, using the CLI or curl; RPMs are signed with the project's key on upload.",
        commands: "publish",
      },
      {
        title: "Switch clients",
        text: "Install the project's keyring and source with the one-line setup script, then remove the Artifactory source.",
      },
    ],
  },
  {
    slug: "gitlab",
    title: "Publishing from GitLab CI",
    summary:
      "Publish packages from GitLab pipelines on every tag, next to or instead of GitLab's package registry.",
    steps: [
      common.project,
      {
        title: "Trust the GitLab project",
        text: "On the project's Publishing tab, add GitLab CI with the project's path (group/project) and the ref refs/tags/v*; for a self-managed GitLab, its URL as the issuer. Its pipelines then publish with a token valid 15 minutes, got from the job's ID token.",
      },
      common.serverVariable,
      {
        title: "Push on tags",
        text: "Add this job to .gitlab-ci.yml: on a v* tag GitLab gives it an ID token for your Packyard (id_tokens:), and it installs the CLI your Packyard serves and pushes the built files to the release named after the tag (v1.2.0 → 1.2.0). Running it again is safe.",
        commands: "gitlab-ci",
      },
    ],
  },
  {
    slug: "github-releases",
    title: "Publishing next to GitHub Releases",
    summary:
      "Keep GitHub Releases for your changelog and let Packyard serve apt and dnf repositories from the same files.",
    importer: { variant: "github-releases" },
    steps: [
      common.project,
      {
        title: "Import your existing releases",
        text: "Give the importer above owner/repo (and, for a private repository or drafts, a token that can read it). Each release arrives with its tag as the version (without a leading v), its name as the title, its notes, and its assets as files; .deb and .rpm assets land in the project's repositories. Running it again imports only new releases and assets.",
      },
      {
        title: "Trust the repository",
        text: "On the project's Publishing tab, add GitHub Actions with the repository (owner/name), the workflow file packyard.yml and the ref refs/tags/v*. Its jobs then publish with a token valid 15 minutes, got from the job's ID token.",
      },
      common.serverVariable,
      {
        title: "Publish from your release workflow",
        text: "Add this workflow: on a v* tag it asks GitHub for an ID token (permissions: id-token: write), runs your build, installs the CLI your Packyard serves and pushes the files to the tag's version (v1.2.0 → 1.2.0). Running it again is safe.",
        commands: "github-actions",
      },
    ],
  },
];
