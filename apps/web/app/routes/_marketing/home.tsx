// The home page: what Packyard does, how publishing works (push, sign, install), the lines an
// installer copies, what makes publishing safe, and the measured speed (docs/benchmarks.md).
import {
  ArrowRight,
  Check as CheckIcon,
  FileCheck2,
  KeyRound,
  Layers,
  Lock,
  type LucideIcon,
  PackageCheck,
  ShieldCheck,
  Terminal,
  Upload,
  Workflow,
} from "lucide-react";
import { Link, useRouteLoaderData } from "react-router";
import { CommandBlock } from "../../components/marketing/command-block.tsx";
import { FeaturePicture } from "../../components/marketing/feature-picture.tsx";
import { InstallTabs } from "../../components/marketing/install-tabs.tsx";
import { CallToAction, SectionHeading } from "../../components/marketing/section.tsx";
import { aptSpeed, yumSpeed } from "../../components/marketing/speed-figures.ts";
import { SpeedTable } from "../../components/marketing/speed-table.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import type { IslandsHandle } from "../../islands/config.ts";
import { Island } from "../../islands/island.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { loader as rootLoader } from "../../root.tsx";
import type { Route } from "./+types/home";

/**
 * Served as an islands document (decision 054): server-rendered HTML whose interactive parts (the
 * header's menu, the install tabs, the copy buttons) are hydrated as React islands, without React
 * Router in the browser. A client-side navigation to / renders it as any other page.
 */
export const handle: IslandsHandle = { hydrate: "islands" };

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname });

/** The server's own origin, so the lines on this page work against this Packyard. */
function useOrigin(): string {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  return root?.baseUrl ?? "https://packyard.example";
}

const steps: { icon: LucideIcon; title: string; text: string }[] = [
  {
    icon: Upload,
    title: "Push",
    text: "packyard push from your laptop or CI, the REST API, or the dashboard's upload. Each file is streamed, hashed and checked; a re-run never uploads a file twice.",
  },
  {
    icon: KeyRound,
    title: "Sign",
    text: "Every project has its own OpenPGP key. RPMs are signed on upload; Release, InRelease and repomd.xml are signed on every publish.",
  },
  {
    icon: PackageCheck,
    title: "Install",
    text: "Your users run one setup line, then apt-get install or dnf install. The package is installable as soon as the upload answers.",
  },
];

const highlights: { icon: LucideIcon; title: string; text: string; to: string }[] = [
  {
    icon: Layers,
    title: "APT and YUM/DNF from one upload",
    text: "A .deb lands in the project's APT repository, an .rpm in its YUM/DNF repository. Suites and groups for per-distribution builds.",
    to: "/features#repositories",
  },
  {
    icon: ShieldCheck,
    title: "Signing and key rotation",
    text: "RSA-3072 or Ed25519 keys, encrypted at rest. Rotation signs with the old and the new key through an overlap, then retires the old one.",
    to: "/features#security",
  },
  {
    icon: FileCheck2,
    title: "Release pages",
    text: "Notes, files with sizes and SHA-256, a SHA256SUMS list, download counts and the exact apt and dnf lines, at a stable URL.",
    to: "/features#releases",
  },
  {
    icon: Terminal,
    title: "A CLI made for CI",
    text: "Browser login or an API key, retries with backoff, verification of what the server stored, and --json output for scripts.",
    to: "/features#publishing",
  },
  {
    icon: Lock,
    title: "Private repositories",
    text: "Private projects answer 404 without a key. Read keys go into apt's auth.conf or dnf's .repo file, never into a URL.",
    to: "/features#security",
  },
  {
    icon: Workflow,
    title: "Yank, don't break",
    text: "Yanking takes a bad release out of the indexes and out of latest; its files stay downloadable by exact URL for pinned installs.",
    to: "/features#releases",
  },
];

export default function Home() {
  const origin = useOrigin();
  const dl = `${origin}/dl/you/widget`;
  return (
    <main>
      {/* Opening */}
      <section className="relative overflow-hidden border-b border-border">
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top_right,var(--accent),transparent_60%)]"
        />
        <div className="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-16 sm:px-6 sm:py-24 lg:grid-cols-[1.05fr_1fr]">
          <div className="min-w-0">
            <p className="text-sm font-semibold uppercase tracking-wide text-primary">
              Package management made simple
            </p>
            <h1 className="mt-3 text-4xl font-bold tracking-tight text-balance sm:text-5xl">
              Ship .deb and .rpm packages your users install with one line.
            </h1>
            <p className="mt-5 max-w-xl text-lg text-muted-foreground">
              Packyard keeps your builds as releases and serves them as signed APT and YUM/DNF repositories,
              public release pages and stable download URLs — pushed from your laptop or your CI.
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Button asChild size="lg">
                <Link to="/auth/signin?mode=signup">
                  Start for free
                  <ArrowRight aria-hidden="true" />
                </Link>
              </Button>
              <Button asChild size="lg" variant="outline">
                <Link to="/pricing">See pricing</Link>
              </Button>
            </div>
            <p className="mt-4 text-sm text-muted-foreground">
              Unlimited public projects and signing on every plan, the free one included.
            </p>
          </div>
          <Island
            name="command-block"
            component={CommandBlock}
            props={{
              title: "Publishing from a terminal",
              lines: [
                {
                  command: "npx packyard push you/widget 1.2.0 dist/*.deb dist/*.rpm",
                  label: "Copy the push command",
                },
                { output: "Created release you/widget 1.2.0" },
                { output: "Uploaded widget_1.2.0_amd64.deb (1.21 MB, sha256 6f1c…)" },
                {
                  output:
                    "Uploaded widget-1.2.0-1.x86_64.rpm (1.3 MB, signed by Packyard, header and payload verified)",
                },
                { output: "" },
                { output: `Release: ${origin}/releases/you/widget/1.2.0` },
              ],
            }}
          />
        </div>
      </section>

      {/* How it works */}
      <section aria-labelledby="how-it-works" className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
        <SectionHeading
          id="how-it-works"
          eyebrow="How it works"
          title="Push, sign, install"
          lead="Three steps from a build to a machine that installs it. Packyard does the middle one for you."
        />
        <ol className="mt-10 grid gap-4 md:grid-cols-3">
          {steps.map(({ icon: Icon, title, text }, index) => (
            <li key={title}>
              <Card className="h-full p-6">
                <div className="flex items-center gap-3">
                  <span className="flex size-10 items-center justify-center rounded-lg bg-accent text-primary">
                    <Icon className="size-5" aria-hidden="true" />
                  </span>
                  <span className="text-sm font-semibold text-muted-foreground">Step {index + 1}</span>
                </div>
                <h3 className="mt-4 text-lg font-semibold">{title}</h3>
                <p className="mt-2 text-sm text-muted-foreground">{text}</p>
              </Card>
            </li>
          ))}
        </ol>
      </section>

      {/* Install lines */}
      <section aria-labelledby="install" className="border-y border-border bg-muted/30">
        <div className="mx-auto grid max-w-6xl gap-10 px-4 py-20 sm:px-6 lg:grid-cols-[1fr_1.2fr] lg:items-center">
          <SectionHeading
            id="install"
            eyebrow="APT and YUM/DNF"
            title="Two lines your users copy"
            lead={
              <>
                The setup script installs the project's keyring and source (deb822 with Signed-By, or a .repo
                file with gpgcheck and repo_gpgcheck) and refreshes the index. Every release page shows these
                lines for its project; here they are for a project{" "}
                <code className="text-base">you/widget</code>.
              </>
            }
          />
          <Island name="install-tabs" component={InstallTabs} props={{ dl }} />
        </div>
      </section>

      {/* Atomic publishing */}
      <section aria-labelledby="atomic" className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
        <div className="grid gap-10 lg:grid-cols-2 lg:items-center">
          <div>
            <SectionHeading
              id="atomic"
              eyebrow="Atomic publishing"
              title="No “Hash Sum mismatch”"
              lead="apt and dnf read an entry file, then the index files it names. If a repository changes between the two requests, the client fails."
            />
            <ul className="mt-6 grid gap-3 text-muted-foreground">
              <li className="flex gap-3">
                <Check />
                Every new index file is written first, under its own hash (APT by-hash, checksum-named
                repodata).
              </li>
              <li className="flex gap-3">
                <Check />
                The entry file — InRelease or repomd.xml — switches last, in one database write.
              </li>
              <li className="flex gap-3">
                <Check />
                The previous generations stay served for an hour, so clients and caches mid-update still find
                every file they were promised.
              </li>
            </ul>
          </div>
          <FeaturePicture
            picture={{
              name: "atomic-publishing",
              kind: "diagram",
              alt: "Generation 41 is served while generation 42's index files are written by hash; then InRelease switches to generation 42, and generation 41 stays served for the grace period.",
              width: 640,
              height: 360,
            }}
          />
        </div>
      </section>

      {/* Highlights */}
      <section aria-labelledby="highlights" className="border-t border-border bg-muted/30">
        <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
          <SectionHeading
            id="highlights"
            eyebrow="What you get"
            title="Repositories and releases in one place"
            lead="A release page and an APT or YUM repository are two views of the same files. You publish once."
          />
          <div className="mt-10 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {highlights.map(({ icon: Icon, title, text, to }) => (
              <Link
                key={title}
                to={to}
                className="group rounded-xl border border-border bg-card p-6 shadow-sm transition-colors hover:border-primary/50"
              >
                <Icon className="size-6 text-primary" aria-hidden="true" />
                <h3 className="mt-4 font-semibold">{title}</h3>
                <p className="mt-2 text-sm text-muted-foreground">{text}</p>
                <span className="mt-4 inline-flex items-center gap-1 text-sm font-medium text-primary">
                  More about it{" "}
                  <ArrowRight
                    className="size-4 transition-transform group-hover:translate-x-0.5"
                    aria-hidden="true"
                  />
                </span>
              </Link>
            ))}
          </div>
        </div>
      </section>

      {/* Speed */}
      <section aria-labelledby="benchmarks" className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
        <SectionHeading
          id="benchmarks"
          eyebrow="Measured, not promised"
          title="One more package into 10,000, in under 100 ms"
          lead={
            <>
              Publishing one more package into a 10,000-package repository, median (min–max) of the newest run
              of each format, against the tools people run today. Packyard's clock runs from the start of the
              HTTP upload to the moment the new signed entry file is served; the tools' clocks cover their
              commands only.
            </>
          }
        />
        <div className="mt-10 grid gap-6 lg:grid-cols-2">
          {[aptSpeed, yumSpeed].map((run) => (
            <SpeedTable key={run.caption} caption={run.caption} rows={run.rows} samples={run.samples} />
          ))}
        </div>
        <div className="mt-6 grid gap-4 text-sm text-muted-foreground">
          <p className="max-w-3xl">
            Measured on 2 shared virtual cores, Debian 12, Node 24, local disk: APT at commit{" "}
            <code>{aptSpeed.commit}</code> on {aptSpeed.date} ({aptSpeed.samples} samples), YUM at commit{" "}
            <code>{yumSpeed.commit}</code> on {yumSpeed.date} ({yumSpeed.samples} samples). Packyard fsyncs
            every file it publishes; none of the tools fsync their index files. The packages are tiny and
            uniform, so real repositories take longer per publish. The full tables, the method, memory figures
            and the caveats are in <code>docs/benchmarks.md</code> in the Packyard source; reproduce them
            with:
          </p>
          <Island
            name="command-block"
            component={CommandBlock}
            props={{
              className: "lg:max-w-3xl",
              lines: [
                { command: aptSpeed.command, label: "Copy the APT benchmark command" },
                { command: yumSpeed.command, label: "Copy the YUM benchmark command" },
              ],
            }}
          />
        </div>
      </section>

      <CallToAction />
    </main>
  );
}

function Check() {
  return (
    <span className="mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full bg-success/15 text-success">
      <CheckIcon className="size-3.5" aria-hidden="true" />
    </span>
  );
}
