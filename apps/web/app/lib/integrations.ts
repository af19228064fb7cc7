// Guides for publishers moving to Packyard from the tools they use today.
export interface IntegrationGuide {
  slug: "nexus" | "artifactory" | "gitlab" | "github-releases";
  title: string;
  summary: string;
  steps: { title: string; text: string }[];
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
};

export const integrationGuides: IntegrationGuide[] = [
  {
    slug: "nexus",
    title: "Moving from Nexus Repository",
    summary: "Replace a self-hosted Nexus apt or yum hosted repository with a signed Packyard repository.",
    steps: [
      common.project,
      {
        title: "Export your packages",
        text: "Download the .deb and .rpm files of the versions you still support from the Nexus hosted repository.",
      },
      common.key,
      {
        title: "Upload them as releases",
        text: "Push each version as a release; Packyard parses every package once and rebuilds the signed indexes.",
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
    steps: [
      common.project,
      {
        title: "List the artifacts to keep",
        text: "Use Artifactory's search to list the .deb and .rpm files of the local repositories you migrate.",
      },
      common.key,
      {
        title: "Re-publish with your pipeline",
        text: "Change the deploy step of your build to push to Packyard; RPMs are signed with the project's key on upload.",
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
      common.key,
      {
        title: "Add the key as a CI/CD variable",
        text: "Store the key as a masked, protected variable named PACKYARD_TOKEN.",
      },
      {
        title: "Push on tags",
        text: "Add a job that runs on tags and uploads the built files to the release named after the tag.",
      },
    ],
  },
  {
    slug: "github-releases",
    title: "Publishing next to GitHub Releases",
    summary:
      "Keep GitHub Releases for your changelog and let Packyard serve apt and dnf repositories from the same files.",
    steps: [
      common.project,
      common.key,
      {
        title: "Add the key as a repository secret",
        text: "Store the key as an Actions secret named PACKYARD_TOKEN.",
      },
      {
        title: "Publish from your release workflow",
        text: "After your build step, upload the same artifacts to Packyard under the tag's version.",
      },
    ],
  },
];
