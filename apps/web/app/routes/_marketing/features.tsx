// /features: every capability Packyard has today (README.md, docs/apt.md, docs/rpm.md,
// docs/cli.md, docs/api.md), grouped, each with a short explanation and a picture — a screenshot
// of the real product or a diagram.
import { ArrowRight } from "lucide-react";
import { Link } from "react-router";
import { FeaturePicture, type Picture } from "../../components/marketing/feature-picture.tsx";
import { CallToAction, PageIntro, SectionHeading } from "../../components/marketing/section.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/features";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Features",
    description:
      "Everything Packyard does today: releases and files, the CLI and CI, signed APT and YUM/DNF repositories, atomic publishing, key rotation, private repositories, organizations, API keys, release pages and self-hosting.",
  });

interface Feature {
  title: string;
  text: string;
  points: string[];
  picture: Picture;
}

interface Group {
  id: string;
  title: string;
  lead: string;
  features: Feature[];
}

const W = 1200;
const H = 750;
const shot = (name: string, alt: string): Picture => ({ name, kind: "screenshot", alt, width: W, height: H });
const diagram = (name: string, alt: string): Picture => ({ name, kind: "diagram", alt, width: W, height: H });

const groups: Group[] = [
  {
    id: "publishing",
    title: "Publishing",
    lead: "From a build to a release, from wherever you build: the dashboard, your terminal or your CI.",
    features: [
      {
        title: "Releases and files",
        text: "A project holds releases; a release holds notes and files — .deb, .rpm, .zip, .tar.gz and plain binaries.",
        points: [
          "Upload several files at once from the dashboard, each with its progress",
          "Every file stored with its size, SHA-256 and SHA-512; files are immutable",
          "Release notes in Markdown, rendered safely",
          "A refused or interrupted upload leaves nothing behind",
        ],
        picture: shot(
          "upload",
          "A release in the dashboard: its notes, the upload area, and the files table with sizes, kinds and checksums.",
        ),
      },
      {
        title: "The packyard CLI and the API",
        text: "packyard login opens the browser and stores a token; packyard push creates the release and uploads every file.",
        points: [
          "Each upload verified against what the server stored; re-runs never upload twice",
          "Retries with backoff on dropped connections, 429, 502, 503 and 504",
          "--json output for scripts; releases, projects, keys and signing keys commands",
          "A REST API with stable error codes, described by an OpenAPI document",
        ],
        picture: shot(
          "cli-login",
          "The page the CLI opens at login: it names the program asking for access and offers Authorize or Cancel.",
        ),
      },
      {
        title: "Publishing from CI",
        text: "Set PACKYARD_SERVER and PACKYARD_TOKEN (an API key with publish access) and push on every tag.",
        points: [
          "Ready-made GitHub Actions workflow and GitLab CI job in the documentation",
          "Keys scoped to the projects a pipeline publishes, read or publish",
          "A file already in the release with the same content counts as pushed",
        ],
        picture: diagram(
          "ci-pipeline",
          "A tag triggers a CI job, which runs packyard push with an API key; Packyard creates the release, signs the packages and publishes the repositories.",
        ),
      },
      {
        title: "Yank without breaking installs",
        text: "A bad release can be yanked with a reason: it leaves the APT and YUM indexes and latest at once.",
        points: [
          "Its files stay downloadable by exact URL, so pinned installs keep working",
          "Unyank restores it; deleting files or releases republishes too",
        ],
        picture: shot(
          "yank",
          "The yank dialog in the dashboard, asking for the reason shown on the release page.",
        ),
      },
    ],
  },
  {
    id: "repositories",
    title: "Repositories",
    lead: "Every project is a signed APT repository and a signed YUM/DNF repository, built from what you upload.",
    features: [
      {
        title: "APT for Debian and Ubuntu",
        text: "A .deb is parsed once at upload and installable as soon as the upload answers.",
        points: [
          "Suites (default stable, serving every release) and components; per-distribution builds when you need them",
          "A one-line setup script: keyring in /etc/apt/keyrings, deb822 source with Signed-By",
          "Architecture: all packages listed for every architecture",
        ],
        picture: shot(
          "apt-setup",
          "A project's install card in the dashboard: the apt setup line, the deb822 source and the signing key's fingerprint.",
        ),
      },
      {
        title: "YUM and DNF for Fedora, RHEL and friends",
        text: "An .rpm is signed with the project's key on upload, so gpgcheck=1 and repo_gpgcheck=1 both pass.",
        points: [
          "Groups (?group=el9) for per-distribution repositories",
          "A setup script that imports the key and writes the .repo file",
          "repomd.xml.asc always matches the repomd.xml the client holds",
        ],
        picture: shot(
          "dnf-setup",
          "The same install card on its dnf tab: the setup line, the dnf install line and a link to the .repo file.",
        ),
      },
      {
        title: "Atomic publishing",
        text: "No “Hash Sum mismatch” and no half-updated repodata, even for clients and caches mid-update.",
        points: [
          "New index files are written first, content-addressed (by-hash, checksum-named repodata)",
          "The entry file (InRelease, repomd.xml) switches last, in one database write",
          "Earlier generations stay served for an hour; the last three always",
        ],
        picture: diagram(
          "atomic-publishing",
          "Generation 41 is served while generation 42's index files are written by hash; then InRelease switches to generation 42, and generation 41 stays served for the grace period.",
        ),
      },
      {
        title: "Fast, incremental publishing",
        text: "Package metadata is read once, at upload; an index is assembled from stored fragments, never by re-reading packages.",
        points: [
          "One more package into a 10,000-package repository: 70 ms for APT, 53 ms for YUM (median)",
          "Publishes to one repository are serialized and coalesced, never lost",
          "After a crash, the next start publishes whatever was committed",
        ],
        picture: diagram(
          "incremental-publishing",
          "An upload is parsed once into stored fragments; a publish re-reads only the changed release, recompresses one block, signs and switches.",
        ),
      },
    ],
  },
  {
    id: "security",
    title: "Signing and access",
    lead: "Signing on every plan, keys with a lifecycle, and private repositories that never put a secret in a URL.",
    features: [
      {
        title: "A signing key per project",
        text: "Each project gets its own OpenPGP key when it is created: RSA-3072 by default, or Ed25519.",
        points: [
          "Accepted by apt's sqv policy and by old rpm",
          "Private keys encrypted at rest; public keys at gpg.key and keyring.gpg",
          "Fingerprints shown on every project and release page",
        ],
        picture: shot(
          "signing-key",
          "A release page's install card: the deb822 source with Signed-By, and the project's signing key fingerprint in groups of four.",
        ),
      },
      {
        title: "Key rotation with an overlap",
        text: "Rotate a key and the repository is signed with both keys until the overlap ends, then with the new one alone.",
        points: [
          "Machines that trust only the old key keep verifying during the overlap (7 days by default)",
          "keyring.gpg carries both keys, so re-running the setup script is enough",
          "From the API or the CLI: packyard signing-keys rotate",
        ],
        picture: diagram(
          "key-rotation",
          "A timeline: before rotation the old key signs; during the overlap both keys sign and keyrings carry both; afterwards the new key signs alone.",
        ),
      },
      {
        title: "Private repositories",
        text: "Every download path of a private project answers 404 without credentials.",
        points: [
          "Read keys for the project go into apt's auth.conf.d or the .repo file (mode 600)",
          "The setup scripts take the key from PACKYARD_TOKEN",
          "Basic auth with the key as password, as apt and dnf send it",
        ],
        picture: shot(
          "private-setup",
          "The install card of a private project: the setup line passes a read API key in a header, never in the URL.",
        ),
      },
      {
        title: "Organizations and roles",
        text: "A team's projects belong to an organization, not to whoever created them: members publish by their role.",
        points: [
          "Owner, admin, publisher and viewer; invitations by email, valid 7 days",
          "Organization API keys for CI that keep working when someone leaves",
          "Move a project into an organization: old URLs and apt and dnf lines keep working",
          "Each organization has its own plan; members are not charged for",
        ],
        picture: shot(
          "organizations",
          "An organization's members page: four members, each with a role to change and a button to remove them, and the start of the form that invites someone by email.",
        ),
      },
      {
        title: "API keys with scopes",
        text: "Keys for all projects or chosen ones, with read or publish access, and an expiry.",
        points: [
          "Shown once when created; listed with their first characters and last use",
          "Deleting a key stops everything using it at once",
          "5,000 requests a minute per key, enough for a matrix build",
        ],
        picture: shot(
          "api-keys",
          "The API keys page: the form that creates a key, with its name, expiry, read or publish access, and projects.",
        ),
      },
      {
        title: "Accounts",
        text: "Sign-up with email verification, password reset, and sessions you can end by signing out.",
        points: [
          "Password sign-in limited per email address as well as per client address",
          "Sign-in links carry your chosen plan through sign-up and onboarding",
        ],
        picture: shot(
          "signin",
          "The sign-in page with email and password, and links to create an account or reset a password.",
        ),
      },
    ],
  },
  {
    id: "releases",
    title: "Release pages and downloads",
    lead: "The installer's side: a page per release, stable URLs, and checksums to verify against.",
    features: [
      {
        title: "Public release pages",
        text: "Every release of a public project has a page with its notes, files, checksums and the exact apt and dnf lines.",
        points: [
          "A version picker; yanked releases marked with their reason",
          "/releases/you/widget always leads to the latest release that is not yanked",
          "Private projects' pages are not found for anyone else",
        ],
        picture: shot(
          "release-page",
          "A public release page: project header, release notes, files with sizes and download counts, and the install card.",
        ),
      },
      {
        title: "Stable download URLs and checksums",
        text: "Each file has a URL that never changes, and latest points at the newest release.",
        points: [
          "/dl/you/widget/releases/1.2.0/… and /dl/you/widget/releases/latest/…",
          "A SHA256SUMS list per release for sha256sum -c",
          "Range requests and download counts per file",
        ],
        picture: shot(
          "release-files",
          "The files of a release with their sizes, SHA-256 checksums, download counts and copy buttons.",
        ),
      },
      {
        title: "Search public releases",
        text: "Anyone can browse and search the public projects on a Packyard.",
        points: [
          "Search by project name, slug, description or owner",
          "Each project shows its latest release",
        ],
        picture: shot(
          "releases-search",
          "The public releases page with a search box and a list of projects.",
        ),
      },
      {
        title: "Usage and plan limits",
        text: "The dashboard shows your projects, releases, this month's downloads and the storage used against your plan.",
        points: [
          "Limits are enforced on the server, with a clear error and a link to the plans",
          "Downloads are never cut off; a downgrade never deletes anything",
        ],
        picture: shot(
          "usage",
          "The dashboard overview: projects, releases, downloads this month, storage used of the plan's 2 GB, and recent releases.",
        ),
      },
    ],
  },
  {
    id: "self-hosting",
    title: "Hosted, or on your own server",
    lead: "Use the hosted service, or run the same Packyard yourself.",
    features: [
      {
        title: "One process, embedded defaults",
        text: "A single Node.js process serves the site, the API and the downloads, with nothing else to set up.",
        points: [
          "SQLite and the local disk by default; PostgreSQL with DATABASE_URL",
          "Mail written to an outbox until SMTP is configured",
          "A command to create verified users; graceful shutdown and crash recovery",
        ],
        picture: diagram(
          "self-hosting",
          "One Packyard process serving the web app, the API and /dl downloads, backed by SQLite or PostgreSQL and the local disk.",
        ),
      },
    ],
  },
];

export default function Features() {
  return (
    <main>
      <PageIntro
        eyebrow="Features"
        title="Everything Packyard does today"
        lead="Publishing, signed repositories, release pages and the controls around them — with pictures of the real product."
      >
        <nav aria-label="Feature groups" className="mt-8 flex flex-wrap gap-2">
          {groups.map((group) => (
            <a
              key={group.id}
              href={`#${group.id}`}
              className="rounded-full border border-border px-4 py-1.5 text-sm font-medium text-muted-foreground transition-colors hover:border-primary/50 hover:text-foreground"
            >
              {group.title}
            </a>
          ))}
        </nav>
      </PageIntro>

      {groups.map((group, index) => (
        <section
          key={group.id}
          aria-labelledby={group.id}
          className={index % 2 === 0 ? "border-t border-border bg-muted/30" : "border-t border-border"}
        >
          <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
            <SectionHeading id={group.id} title={group.title} lead={group.lead} />
            <div className="mt-10 grid gap-6 md:grid-cols-2">
              {group.features.map((feature) => (
                <article
                  key={feature.title}
                  className="flex flex-col rounded-xl border border-border bg-card p-5 shadow-sm"
                >
                  <FeaturePicture picture={feature.picture} className="shadow-none" />
                  <h3 className="mt-5 text-lg font-semibold">{feature.title}</h3>
                  <p className="mt-2 text-muted-foreground">{feature.text}</p>
                  <ul className="mt-4 grid gap-2 text-sm">
                    {feature.points.map((point) => (
                      <li key={point} className="flex gap-2">
                        <span aria-hidden="true" className="mt-2 size-1.5 shrink-0 rounded-full bg-primary" />
                        {point}
                      </li>
                    ))}
                  </ul>
                </article>
              ))}
            </div>
          </div>
        </section>
      ))}

      <section aria-labelledby="speed-link" className="border-t border-border">
        <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-12 sm:flex-row sm:items-center sm:justify-between sm:px-6">
          <div>
            <h2 id="speed-link" className="text-xl font-semibold">
              How fast is publishing?
            </h2>
            <p className="mt-1 text-muted-foreground">
              The benchmark figures against reprepro, aptly and createrepo_c, with the command to reproduce
              them.
            </p>
          </div>
          <Link
            to="/#benchmarks"
            className="inline-flex items-center gap-1 font-medium text-primary hover:underline"
          >
            See the measurements <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        </div>
      </section>

      <CallToAction />
    </main>
  );
}
