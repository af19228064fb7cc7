// The home page: what Packyard does, in a few honest lines.
import { Boxes, FileCheck2, Gauge, ShieldCheck } from "lucide-react";
import { Link } from "react-router";
import { Button } from "../../components/ui/button.tsx";
import { Card } from "../../components/ui/card.tsx";
import { pageMeta } from "../../lib/meta.ts";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({ baseUrl: matches[0]?.loaderData?.baseUrl, path: location.pathname });

const features = [
  {
    icon: Boxes,
    title: "APT and YUM in one place",
    text: "Push .deb and .rpm files; Packyard serves repositories that apt and dnf install from.",
  },
  {
    icon: ShieldCheck,
    title: "Signed on every plan",
    text: "Each project gets its own OpenPGP key. Repository metadata and RPMs are signed on upload.",
  },
  {
    icon: Gauge,
    title: "No Hash Sum mismatch",
    text: "Indexes are content-addressed and switched atomically, so clients mid-update keep working.",
  },
  {
    icon: FileCheck2,
    title: "Releases with checksums",
    text: "Release pages with notes, download counts and a signed SHA256SUMS for every file.",
  },
];

export default function Home() {
  return (
    <main>
      <section className="mx-auto max-w-6xl px-4 pb-16 pt-16 sm:px-6 sm:pt-24">
        <p className="text-sm font-semibold uppercase tracking-wide text-primary">
          Package management made simple
        </p>
        <h1 className="mt-3 max-w-3xl text-4xl font-bold tracking-tight sm:text-5xl">
          Ship .deb and .rpm packages your users install with one line.
        </h1>
        <p className="mt-5 max-w-2xl text-lg text-muted-foreground">
          Packyard keeps your builds as releases and serves them as signed APT and YUM repositories, release
          pages and stable download URLs — pushed from your laptop or CI.
        </p>
        <div className="mt-8 flex flex-wrap gap-3">
          <Button asChild size="lg">
            <Link to="/auth/signin?mode=signup">Start for free</Link>
          </Button>
          <Button asChild size="lg" variant="outline">
            <Link to="/auth/signin">Sign in</Link>
          </Button>
        </div>
        <pre className="mt-10 overflow-x-auto rounded-xl border border-border bg-muted p-4 text-sm">
          <code>{`curl -fsSL https://packyard.example/dl/acme/widget/setup.deb.sh | sudo bash
sudo apt-get install widget`}</code>
        </pre>
      </section>
      <section id="how-it-works" className="border-t border-border bg-muted/30">
        <div className="mx-auto grid max-w-6xl gap-4 px-4 py-16 sm:grid-cols-2 sm:px-6 lg:grid-cols-4">
          {features.map(({ icon: Icon, title, text }) => (
            <Card key={title} className="p-6">
              <Icon className="size-6 text-primary" aria-hidden="true" />
              <h2 className="mt-4 font-semibold">{title}</h2>
              <p className="mt-2 text-sm text-muted-foreground">{text}</p>
            </Card>
          ))}
        </div>
      </section>
    </main>
  );
}
