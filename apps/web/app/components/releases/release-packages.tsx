// The npm packages and Python distributions of a release (docs/npm.md, docs/pypi.md): the line
// that installs each at this version from the project's own registry, a deprecation, and where
// a version published from CI was built (its provenance).
import { AlertTriangle, ExternalLink, ShieldCheck } from "lucide-react";
import type { ReleaseNpmPackage } from "../../../server/formats/npm/page-data.ts";
import type { ReleasePythonPackage } from "../../../server/formats/pypi/page-data.ts";
import { Snippet } from "../repository-setup.tsx";
import { Badge } from "../ui/badge.tsx";
import { Card } from "../ui/card.tsx";

/** What `npm install` needs to find the package in this project's registry, and the install. */
export function npmInstallLines(pkg: Pick<ReleaseNpmPackage, "name" | "version" | "registry">): string[] {
  const scope = pkg.name.startsWith("@") ? pkg.name.slice(0, pkg.name.indexOf("/")) : undefined;
  // A scope's packages come from the project's registry, everything else from npm's as before.
  if (scope)
    return [`npm config set ${scope}:registry ${pkg.registry}`, `npm install ${pkg.name}@${pkg.version}`];
  return [`npm install ${pkg.name}@${pkg.version} --registry ${pkg.registry}`];
}

/** The pip line: the project's index, the distribution pinned to this version. */
export function pipInstallLine(pkg: Pick<ReleasePythonPackage, "name" | "version" | "index">): string {
  return `pip install ${pkg.name}==${pkg.version} --index-url ${pkg.index}`;
}

const short = (sha: string) => sha.slice(0, 7);

export function ReleasePackages({
  npm,
  python,
  isPrivate,
}: {
  npm: ReleaseNpmPackage[];
  python: ReleasePythonPackage[];
  isPrivate: boolean;
}) {
  if (npm.length === 0 && python.length === 0) return null;
  return (
    <section aria-labelledby="release-packages-heading" className="grid gap-3">
      <h3 id="release-packages-heading" className="text-lg font-semibold tracking-tight">
        Libraries
      </h3>
      <Card className="grid gap-5 p-4 sm:p-5">
        {npm.map((pkg) => (
          <div key={`npm:${pkg.name}`} className="grid gap-2">
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <Badge variant="secondary">npm</Badge>
              <span className="break-all font-mono font-medium">
                {pkg.name}@{pkg.version}
              </span>
            </div>
            {pkg.deprecated ? (
              <p className="flex items-start gap-1.5 text-sm text-amber-700 dark:text-amber-400">
                <AlertTriangle aria-hidden className="mt-0.5 size-4 shrink-0" />
                <span>Deprecated: {pkg.deprecated}</span>
              </p>
            ) : null}
            <Snippet value={npmInstallLines(pkg).join("\n")} label={`Copy the npm install of ${pkg.name}`} />
            {pkg.provenance ? <ProvenanceLine provenance={pkg.provenance} /> : null}
          </div>
        ))}
        {python.map((pkg) => (
          <div key={`python:${pkg.name}`} className="grid gap-2">
            <div className="flex flex-wrap items-center gap-2 text-sm">
              <Badge variant="secondary">Python</Badge>
              <span className="break-all font-mono font-medium">
                {pkg.name}=={pkg.version}
              </span>
              {pkg.packagetypes.map((type) => (
                <Badge key={type} variant="outline" className="font-mono text-[11px]">
                  {type === "bdist_wheel" ? "wheel" : type}
                </Badge>
              ))}
            </div>
            <Snippet value={pipInstallLine(pkg)} label={`Copy the pip install of ${pkg.name}`} />
          </div>
        ))}
        {isPrivate ? (
          <p className="text-xs text-muted-foreground">
            This project is private: npm needs a read API key as <code className="break-all">_authToken</code>{" "}
            for the registry, pip one in the index URL (
            <code className="break-all">https://__token__:KEY@…</code>).
          </p>
        ) : null}
      </Card>
    </section>
  );
}

function ProvenanceLine({ provenance }: { provenance: NonNullable<ReleaseNpmPackage["provenance"]> }) {
  return (
    <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-xs text-muted-foreground">
      <ShieldCheck aria-hidden className="size-4 shrink-0 text-emerald-600 dark:text-emerald-400" />
      <span>Published from CI:</span>
      <span className="break-all font-mono text-foreground">{provenance.repository}</span>
      {provenance.workflow ? <span className="font-mono">· {provenance.workflow}</span> : null}
      {provenance.sha ? (
        provenance.commitUrl ? (
          <a className="font-mono text-primary hover:underline" href={provenance.commitUrl}>
            · {short(provenance.sha)}
          </a>
        ) : (
          <span className="font-mono">· {short(provenance.sha)}</span>
        )
      ) : null}
      {provenance.runUrl ? (
        <a className="inline-flex items-center gap-0.5 text-primary hover:underline" href={provenance.runUrl}>
          the run
          <ExternalLink aria-hidden className="size-3" />
        </a>
      ) : null}
    </p>
  );
}
