// The comparison pages' content. Every statement about another product is taken from that
// product's public documentation, cites it, and carries the date it was read; where the
// documentation we read says nothing, the table says so rather than guessing. Packyard's column
// describes what this code base does today (README.md, docs/apt.md, docs/rpm.md, docs/cli.md).

import { plans } from "@packyard/contract/plans.ts";
import { type CompareSlug, comparePages } from "@packyard/contract/site.ts";

/** When the peers' documentation was read for these pages. */
export const READ_ON = "2026-11-23";

export interface Source {
  title: string;
  url: string;
}

export interface Claim {
  text: string;
  /** Indexes into the comparison's `sources`. */
  sources: number[];
}

export const topics = [
  "APT hosting",
  "YUM/DNF hosting",
  "Signing and key rotation",
  "Atomic publishing",
  "Release pages",
  "Self-hosting",
  "Pricing model",
  "CLI and API",
] as const;

export type Topic = (typeof topics)[number];

const dollars = (cents: number) => `$${cents / 100}`;

export const packyard: Record<Topic, string> = {
  "APT hosting":
    "Yes. Every project is a signed APT repository: suites (default stable) and components, by-hash index files, a one-line setup script that installs the keyring and a deb822 source with Signed-By.",
  "YUM/DNF hosting":
    "Yes. Every project is a signed YUM/DNF repository; groups for per-distribution builds. Installs with gpgcheck=1 and repo_gpgcheck=1.",
  "Signing and key rotation":
    "A key per project (RSA-3072 or Ed25519), private key encrypted at rest. RPMs are signed on upload; repository metadata on every publish. Rotation signs with the old and the new key through an overlap (7 days by default), then retires the old key.",
  "Atomic publishing":
    "New index files are written first under their hashes; the entry file (InRelease, repomd.xml) switches last in one database write. Earlier generations stay served for an hour (the last three always).",
  "Release pages":
    "A public page per release: notes, files with size and SHA-256, a SHA256SUMS list, download counts and the apt and dnf lines. Stable download URLs, including latest.",
  "Self-hosting":
    "Yes. One Node.js process; SQLite and the local disk by default, PostgreSQL with DATABASE_URL.",
  "Pricing model": `Per account, a person's or an organization's (members are not charged for): Basic free (unlimited public projects, 1 private), Starter ${dollars(plans.starter.monthlyPrice)} a month, Pro ${dollars(plans.pro.monthlyPrice)} a month, each with storage and download allowances. Signing on every plan.`,
  "CLI and API":
    "The packyard CLI (browser login or API key, verified uploads, retries, --json) and a REST API described by an OpenAPI document. API keys scoped to projects with read or publish access; organizations have keys of their own that outlive the person who made them.",
};

export interface Comparison {
  slug: CompareSlug;
  peer: string;
  /** One line on what the peer is, for the page's opening. */
  summary: string;
  rows: Record<Topic, Claim>;
  /** Where the peer is the better choice, sourced like the rows. */
  strengths: Claim[];
  sources: Source[];
}

const githubReleases: Comparison = {
  slug: "github-releases",
  peer: "GitHub Releases",
  summary:
    "GitHub Releases attaches files to Git tags of a GitHub repository. It is a good download page, but not a package repository.",
  sources: [
    {
      title: "GitHub Docs — About releases",
      url: "https://docs.github.com/en/repositories/releasing-projects-on-github/about-releases",
    },
    {
      title: "GitHub Docs — Working with a GitHub Packages registry",
      url: "https://docs.github.com/en/packages/working-with-a-github-packages-registry",
    },
    {
      title: "GitHub Docs — Immutable releases",
      url: "https://docs.github.com/en/code-security/concepts/supply-chain-security/immutable-releases",
    },
    {
      title: "GitHub CLI manual — gh release upload",
      url: "https://cli.github.com/manual/gh_release_upload",
    },
    {
      title: "GitHub Enterprise Server 3.15 Docs — About releases",
      url: "https://docs.github.com/enterprise-server@3.15/repositories/releasing-projects-on-github/about-releases",
    },
  ],
  rows: {
    "APT hosting": {
      text: "No. GitHub Packages offers Container, npm, RubyGems, Apache Maven, Gradle and NuGet registries; none serves Debian packages.",
      sources: [1],
    },
    "YUM/DNF hosting": {
      text: "No. The same list has no RPM registry.",
      sources: [1],
    },
    "Signing and key rotation": {
      text: "An immutable release gets a release attestation, a signed record of its tag, commit and assets, checked with gh release verify. No OpenPGP signing of packages or repositories.",
      sources: [2],
    },
    "Atomic publishing": {
      text: "Not applicable: assets are downloaded one by one; there are no package indexes to keep consistent.",
      sources: [0, 1],
    },
    "Release pages": {
      text: "Yes. Releases are based on Git tags, with release notes written by hand or generated, and assets; the Releases API reports how often each asset was downloaded.",
      sources: [0],
    },
    "Self-hosting": {
      text: "GitHub Enterprise Server, the self-hosted GitHub, has releases too.",
      sources: [4],
    },
    "Pricing model": {
      text: "Part of a GitHub repository. Each file in a release must be under 2 GiB; GitHub states no limit on a release's total size or on bandwidth.",
      sources: [0],
    },
    "CLI and API": {
      text: "gh release create and gh release upload, and the Releases REST API.",
      sources: [0, 3],
    },
  },
  strengths: [
    {
      text: "Your code is already on GitHub and your users download archives by hand: releases come with the repository, with no size or bandwidth limit on the whole release.",
      sources: [0],
    },
    {
      text: "You want the tag and the assets frozen and attested by GitHub: immutable releases do that.",
      sources: [2],
    },
  ],
};

const gitlab: Comparison = {
  slug: "gitlab",
  peer: "GitLab",
  summary:
    "GitLab's package registry and releases live inside a GitLab project. Its Debian support is an experiment and it has no RPM registry.",
  sources: [
    {
      title: "GitLab Docs — Debian packages in the package registry",
      url: "https://docs.gitlab.com/user/packages/debian_repository/",
    },
    {
      title: "GitLab Docs — Supported package managers and functionality",
      url: "https://docs.gitlab.com/user/packages/package_registry/supported_functionality",
    },
    {
      title: "GitLab Docs — GitLab package registry administration",
      url: "https://docs.gitlab.com/administration/packages",
    },
    {
      title: "GitLab Docs — Debian API (GitLab 16.11)",
      url: "https://docs.gitlab.com/16.11/ee/api/packages/debian.html",
    },
    {
      title: "GitLab Docs — Release fields",
      url: "https://docs.gitlab.com/user/project/releases/release_fields.html",
    },
    {
      title: "GitLab — Licensing and subscription FAQ",
      url: "https://about.gitlab.com/pricing/licensing-faq/",
    },
    {
      title: "glab manual — glab release create",
      url: "https://manpages.ubuntu.com/manpages/noble/en/man1/glab-release-create.1.html",
    },
  ],
  rows: {
    "APT hosting": {
      text: "Experimental. The Debian registry is marked Experiment, GitLab Self-Managed only, behind a feature flag that is off by default; GitLab says it “isn't ready for production use” and has known security vulnerabilities.",
      sources: [0, 1],
    },
    "YUM/DNF hosting": {
      text: "No. RPM is listed among the formats the package registry does not support.",
      sources: [2],
    },
    "Signing and key rotation": {
      text: "The experimental Debian registry serves signed Release files (InRelease, Release.gpg) for each distribution. Rotating the key is not described in the documentation we read.",
      sources: [3],
    },
    "Atomic publishing": {
      text: "Not described in the Debian registry's documentation.",
      sources: [0, 3],
    },
    "Release pages": {
      text: "Yes. Releases from Git tags with Markdown notes; assets are generated source archives plus links to files stored elsewhere.",
      sources: [4],
    },
    "Self-hosting": {
      text: "Yes, GitLab Self-Managed — the only place the Debian registry is offered.",
      sources: [0],
    },
    "Pricing model": {
      text: "Free, Premium and Ultimate tiers; paid subscriptions count users and are paid annually.",
      sources: [5],
    },
    "CLI and API": {
      text: "glab release create (with asset links) and the REST API, including the Debian API.",
      sources: [3, 6],
    },
  },
  strengths: [
    {
      text: "You need npm, Maven, NuGet, PyPI or generic packages next to your code and CI: those registries are generally available in GitLab.",
      sources: [1],
    },
    {
      text: "Your release notes should live with your merge requests and tags: GitLab releases are part of the project.",
      sources: [4],
    },
  ],
};

const nexus: Comparison = {
  slug: "nexus-oss",
  peer: "Nexus Repository OSS",
  summary:
    "Sonatype Nexus Repository is a repository manager you run yourself, for many formats, including APT and Yum proxy and hosted repositories.",
  sources: [
    {
      title: "Sonatype Help — Apt Repositories",
      url: "https://help.sonatype.com/en/apt-repositories.html",
    },
    {
      title: "Sonatype Help — Yum Repositories",
      url: "https://help.sonatype.com/repomanager3/nexus-repository-administration/formats/yum-repositories",
    },
    {
      title: "Sonatype Help — Raw Repositories",
      url: "https://help.sonatype.com/en/raw-repositories.html",
    },
    {
      title: "Sonatype Help — Understanding Your Usage",
      url: "https://help.sonatype.com/en/understanding-your-usage.html",
    },
    {
      title: "Sonatype Help — Components API",
      url: "https://help.sonatype.com/en/components-api.html",
    },
  ],
  rows: {
    "APT hosting": {
      text: "Yes: apt proxy and hosted repositories. A hosted repository needs a GPG signing key pair, generated or your own.",
      sources: [0],
    },
    "YUM/DNF hosting": {
      text: "Yes: yum proxy and hosted repositories; a hosted repository writes repodata at a configured “Repodata Depth” and rejects RPMs stored at a shallower path. New Yum v4 features are not supported.",
      sources: [1],
    },
    "Signing and key rotation": {
      text: "APT hosted repositories are signed with their key pair. For Yum, GPG signing is documented for proxy and group repositories; signing uploaded RPMs and rotating keys are not described in the documentation we read.",
      sources: [0, 1],
    },
    "Atomic publishing": {
      text: "How metadata is switched during an update is not described in its APT and Yum documentation.",
      sources: [0, 1],
    },
    "Release pages": {
      text: "Raw hosted repositories serve files in browsable directories; release pages with notes are not part of what its documentation describes.",
      sources: [2],
    },
    "Self-hosting": {
      text: "Yes — you run, size and back up the server. Usage warnings appear from 20,000 requests a day or 100,000 components on the embedded databases; beyond that Sonatype recommends Pro on PostgreSQL.",
      sources: [3],
    },
    "Pricing model": {
      text: "A free edition, and Nexus Repository Pro through Sonatype's sales team.",
      sources: [3],
    },
    "CLI and API": {
      text: "A REST API: the Components API lists and uploads components; curl works for uploads.",
      sources: [4],
    },
  },
  strengths: [
    {
      text: "You also need proxies of public repositories inside your network: Nexus caches remote APT and Yum repositories, so builds keep working when the internet does not.",
      sources: [0, 1],
    },
    {
      text: "Everything must stay on your own servers, with many formats in one tool.",
      sources: [3],
    },
  ],
};

const artifactory: Comparison = {
  slug: "jfrog-artifactory",
  peer: "JFrog Artifactory",
  summary:
    "JFrog Artifactory is a universal artifact manager, in JFrog's cloud or on your servers, with local, remote and virtual Debian and RPM repositories.",
  sources: [
    {
      title: "JFrog Artifactory Documentation — Debian Repositories",
      url: "https://jfrog.com/help/r/jfrog-artifactory-documentation/debian-repositories",
    },
    {
      title: "JFrog Artifactory Documentation — Trigger RPM Metadata Updates",
      url: "https://jfrog.com/help/r/jfrog-artifactory-documentation/trigger-rpm-metadata-updates",
    },
    {
      title: "JFrog Artifactory Documentation — Sign RPM Metadata",
      url: "https://jfrog.com/help/r/jfrog-artifactory-documentation/sign-rpm-metadata",
    },
    {
      title: "JFrog Help — How Debian Repository metadata calculation works",
      url: "https://jfrog.com/help/r/how-debian-repository-metadata-calculation-works/how-debian-repository-metadata-calculation-works",
    },
    {
      title: "JFrog Artifactory Documentation — Understanding Release Bundles v2",
      url: "https://jfrog.com/help/r/jfrog-artifactory-documentation/understanding-release-bundles-v2",
    },
    {
      title: "JFrog Docs — Manage Your Cloud Usage",
      url: "https://docs.jfrog.com/administration/docs/manage-your-cloud-usage",
    },
    {
      title: "JFrog Help — Private links and Data Transfer Costs",
      url: "https://jfrog.com/help/r/artifactory-private-links-and-data-transfer-costs/artifactory-private-links-and-data-transfer-costs",
    },
    {
      title: "JFrog Docs — Manage Generic Files in Artifactory with JFrog CLI",
      url: "https://docs.jfrog.com/artifactory/docs/generic-files",
    },
  ],
  rows: {
    "APT hosting": {
      text: "Yes: local, remote and virtual Debian repositories; Artifactory calculates the metadata of packages deployed to local repositories.",
      sources: [0],
    },
    "YUM/DNF hosting": {
      text: "Yes: RPM repositories whose metadata is calculated on deploy, remove, copy and move, or on request.",
      sources: [1],
    },
    "Signing and key rotation": {
      text: "GPG signatures for Debian metadata, managed in the UI and the REST API. For RPM, a GPG key signs the repository metadata, “not for signing individual packages”. Overlapping keys during a change are not described in the documentation we read.",
      sources: [0, 2],
    },
    "Atomic publishing": {
      text: "Each Debian deploy queues an event; workers recalculate the metadata of one distribution path at a time, under a lock.",
      sources: [3],
    },
    "Release pages": {
      text: "Release Bundles v2 group a release's artifacts into a signed, immutable version promoted through environments — a release process inside the platform rather than a public download page.",
      sources: [4],
    },
    "Self-hosting": {
      text: "Yes: JFrog's cloud (SaaS) or self-managed installations.",
      sources: [5],
    },
    "Pricing model": {
      text: "Subscriptions; in the cloud, data storage and data transfer are measured, and transfer counts uploads and downloads over the billing period.",
      sources: [5, 6],
    },
    "CLI and API": {
      text: "JFrog CLI (jf rt upload and many more commands) and the REST API.",
      sources: [0, 7],
    },
  },
  strengths: [
    {
      text: "You need one system for many package types with remote and virtual repositories, and promotion of releases through environments.",
      sources: [0, 4],
    },
  ],
};

export const comparisons: Record<CompareSlug, Comparison> = {
  "github-releases": githubReleases,
  gitlab,
  "nexus-oss": nexus,
  "jfrog-artifactory": artifactory,
};

export const compareOrder = comparePages.map((page) => page.slug);
