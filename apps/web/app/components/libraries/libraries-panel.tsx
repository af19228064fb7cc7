// A project's npm packages and Python distributions on its Libraries tab (docs/npm.md,
// docs/pypi.md): how to point npm, twine and pip at the project's registry and index, then each
// package with its newest version, dist-tags, who published it and when, and a version's
// deprecation or provenance.
import { AlertTriangle, Library, ShieldCheck } from "lucide-react";
import { Link } from "react-router";
import type { ProjectNpmPackage } from "../../../server/formats/npm/page-data.ts";
import type { ProjectPythonPackage } from "../../../server/formats/pypi/page-data.ts";
import { formatCount } from "../../lib/format.ts";
import { FormattedDate } from "../dashboard/formatted-date.tsx";
import { EmptyState } from "../empty-state.tsx";
import { Snippet } from "../repository-setup.tsx";
import { Badge } from "../ui/badge.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";

export interface LibrariesPanelProps {
  /** {BASE_URL}/npm/{owner}/{project}/ */
  npmRegistry: string;
  /** {BASE_URL}/pypi/{owner}/{project}/ */
  pypiUpload: string;
  npm: ProjectNpmPackage[];
  python: ProjectPythonPackage[];
  /** The dashboard page of a release, for a package's newest version. */
  releaseHref: (version: string) => string;
  /** A scope to show in the .npmrc example: the owner's name. */
  scope: string;
}

/** What .npmrc needs for a scope of the project's registry, with the key read from the environment. */
export function npmrcLines(registry: string, scope: string): string {
  const hostPath = registry.replace(/^https?:/, "");
  return [`@${scope}:registry=${registry}`, `${hostPath}:_authToken=\${PACKYARD_TOKEN}`].join("\n");
}

export function LibrariesPanel({
  npmRegistry,
  pypiUpload,
  npm,
  python,
  releaseHref,
  scope,
}: LibrariesPanelProps) {
  const simple = `${pypiUpload}simple/`;
  return (
    <div className="space-y-6">
      <div className="grid gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle className="text-base">npm</CardTitle>
            <CardDescription>
              Add to the project's <code className="font-mono text-foreground">.npmrc</code>, with an API key
              in <code className="font-mono text-foreground">PACKYARD_TOKEN</code> (a read key or an
              entitlement token to install), then{" "}
              <code className="font-mono text-foreground">npm publish</code>.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid min-w-0 grid-cols-1 gap-2">
            <Snippet value={npmrcLines(npmRegistry, scope)} label="Copy the .npmrc lines" />
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle className="text-base">Python</CardTitle>
            <CardDescription>
              Upload wheels and sdists with twine (user{" "}
              <code className="font-mono text-foreground">__token__</code>, an API key as the password);
              install with pip from the project's index.
            </CardDescription>
          </CardHeader>
          <CardContent className="grid min-w-0 grid-cols-1 gap-2">
            <Snippet
              value={`twine upload --repository-url ${pypiUpload} -u __token__ -p "$PACKYARD_TOKEN" dist/*`}
              label="Copy the twine upload command"
            />
            <Snippet
              value={`pip install --index-url ${simple} PACKAGE`}
              label="Copy the pip install command"
            />
          </CardContent>
        </Card>
      </div>

      <section aria-labelledby="npm-packages-heading" className="space-y-3">
        <h2 id="npm-packages-heading" className="text-lg font-semibold tracking-tight">
          npm packages
        </h2>
        {npm.length === 0 ? (
          <EmptyState icon={Library} title="No npm packages yet">
            Publish with <code className="font-mono">npm publish</code> to this project's registry: each
            version becomes a file of the release of the same version.
          </EmptyState>
        ) : (
          <Card className="overflow-hidden">
            <ul className="divide-y divide-border" data-testid="npm-packages">
              {npm.map((pkg) => (
                <li key={pkg.name} className="space-y-1.5 px-4 py-3 sm:px-6">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                    <span className="break-all font-mono font-medium">{pkg.name}</span>
                    <Link
                      className="font-mono text-sm text-primary hover:underline"
                      to={releaseHref(pkg.latest)}
                    >
                      {pkg.latest}
                    </Link>
                    {pkg.tags.map((t) => (
                      <Badge key={t.tag} variant="secondary" className="font-mono text-[11px]">
                        {t.tag}: {t.version}
                      </Badge>
                    ))}
                    <span className="text-xs text-muted-foreground sm:ml-auto">
                      {formatCount(pkg.versions, "version")} ·{" "}
                      <FormattedDate iso={pkg.publishedAt} withTime />
                      {pkg.publishedBy ? ` · ${pkg.publishedBy}` : ""}
                    </span>
                  </div>
                  {pkg.deprecated ? (
                    <p className="flex items-start gap-1.5 text-xs text-amber-700 dark:text-amber-400">
                      <AlertTriangle aria-hidden className="mt-px size-3.5 shrink-0" />
                      <span>Deprecated: {pkg.deprecated}</span>
                    </p>
                  ) : null}
                  {pkg.provenance ? (
                    <p className="flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
                      <ShieldCheck
                        aria-hidden
                        className="size-3.5 shrink-0 text-emerald-600 dark:text-emerald-400"
                      />
                      Published from CI:{" "}
                      <span className="break-all font-mono">{pkg.provenance.repository}</span>
                      {pkg.provenance.workflow ? (
                        <span className="font-mono">· {pkg.provenance.workflow}</span>
                      ) : null}
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          </Card>
        )}
      </section>

      <section aria-labelledby="python-packages-heading" className="space-y-3">
        <h2 id="python-packages-heading" className="text-lg font-semibold tracking-tight">
          Python distributions
        </h2>
        {python.length === 0 ? (
          <EmptyState icon={Library} title="No Python distributions yet">
            Upload a wheel or an sdist with <code className="font-mono">twine upload</code>: each becomes a
            file of the release of its version, listed in the project's simple index.
          </EmptyState>
        ) : (
          <Card className="overflow-hidden">
            <ul className="divide-y divide-border" data-testid="python-packages">
              {python.map((pkg) => (
                <li key={pkg.name} className="space-y-1.5 px-4 py-3 sm:px-6">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                    <a
                      className="break-all font-mono font-medium hover:underline"
                      href={`${simple}${pkg.name}/`}
                    >
                      {pkg.displayName}
                    </a>
                    <Link
                      className="font-mono text-sm text-primary hover:underline"
                      to={releaseHref(pkg.latest)}
                    >
                      {pkg.latest}
                    </Link>
                    {pkg.yanked ? <Badge variant="destructive">yanked</Badge> : null}
                    {pkg.requiresPython ? (
                      <Badge variant="outline" className="font-mono text-[11px]">
                        Python {pkg.requiresPython}
                      </Badge>
                    ) : null}
                    <span className="text-xs text-muted-foreground sm:ml-auto">
                      {formatCount(pkg.versions, "version")} · {formatCount(pkg.files, "file")} ·{" "}
                      <FormattedDate iso={pkg.uploadedAt} withTime />
                    </span>
                  </div>
                  {pkg.summary ? <p className="text-sm text-muted-foreground">{pkg.summary}</p> : null}
                </li>
              ))}
            </ul>
          </Card>
        )}
      </section>
    </div>
  );
}
