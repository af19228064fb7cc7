// /integrations/{nexus|artifactory|gitlab|github-releases}: moving to Packyard from each. The
// GitHub Releases, Nexus and Artifactory pages start imports (docs/imports.md) into a project of
// the user's and show that project's imports, polling while one runs; the guide follows, with the
// real commands (lib/publish-commands.ts) for the user's project.
import type { SubmissionResult } from "@conform-to/react";
import { importEnded } from "@packyard/contract";
import { useEffect } from "react";
import { data, Link, redirect, useRevalidator } from "react-router";
import { ImportForm } from "../../components/imports/import-form.tsx";
import { importForm, SECRET_FIELDS } from "../../components/imports/import-form-schema.ts";
import { ImportList } from "../../components/imports/import-list.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { CiVariables, ConfigFile, PublishCommands } from "../../components/publish-instructions.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { listOwnProjects } from "../../lib/api-keys.server.ts";
import { domainFailure, isDomainError, sessionActor } from "../../lib/dashboard.server.ts";
import { parseForm } from "../../lib/forms.ts";
import { projectImports, startImport } from "../../lib/imports.server.ts";
import { integrationGuides, type StepCommands } from "../../lib/integrations.ts";
import { pageMeta } from "../../lib/meta.ts";
import { CI_FILE, ciConfig, PLACEHOLDER_PROJECT, parseProjectArgument } from "../../lib/publish-commands.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { Route } from "./+types/integration";

function guideOr404(slug: string | undefined) {
  const guide = integrationGuides.find((g) => g.slug === slug);
  if (!guide) throw data(null, { status: 404 });
  return guide;
}

export async function loader({ params, request, context, url }: Route.LoaderArgs) {
  const guide = guideOr404(params.integration);
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const projects = await listOwnProjects(s.database.db, user.id);
  const chosen = url.searchParams.get("project");
  const project = projects.find((p) => p.slug === chosen) ?? projects[0];
  return {
    slug: guide.slug,
    baseUrl: s.config.baseUrl,
    // The commands name the chosen project, else the CLI's OWNER/PROJECT placeholder.
    publishTo: project ? { owner: user.username, slug: project.slug } : null,
    projects: guide.importer ? projects.map(({ slug, name }) => ({ slug, name })) : [],
    project: guide.importer ? (project?.slug ?? null) : null,
    imports: guide.importer && project ? await projectImports(s, project.id) : [],
  };
}

export async function action({ params, request, context, url }: Route.ActionArgs) {
  const guide = guideOr404(params.integration);
  if (!guide.importer) throw data(null, { status: 405 });
  const user = await requireOnboardedUser(request, context, url);
  const submission = parseForm(await request.formData(), importForm);
  const reply = (options: Parameters<typeof submission.reply>[0] = {}) =>
    submission.reply({ ...options, hideFields: SECRET_FIELDS });
  if (submission.status !== "success") return data({ result: reply() }, { status: 400 });
  const { project, source } = submission.value;
  try {
    const caller = { actor: sessionActor(user), address: clientAddress(context) };
    await startImport(services(context), caller, project, source);
  } catch (error) {
    if (isDomainError(error, "NOT_FOUND") || isDomainError(error, "INVALID_SLUG"))
      return data(
        { result: reply({ fieldErrors: { project: ["Choose one of your projects"] } }) },
        { status: 400 },
      );
    // Any other refusal (a role that may not import): the form's alert, the tokens not echoed.
    return domainFailure({ reply, payload: submission.payload }, error);
  }
  return redirect(`${url.pathname}?project=${encodeURIComponent(project)}`);
}

export const meta: Route.MetaFunction = ({ matches, location, loaderData }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: integrationGuides.find((g) => g.slug === loaderData?.slug)?.title ?? "Integrations",
    noindex: true,
  });

/** How often the page reads the imports again while one is queued or running. */
const POLL_MS = 1500;

export default function Integration({ loaderData, actionData }: Route.ComponentProps) {
  const guide = integrationGuides.find((g) => g.slug === loaderData.slug)!;
  const { projects, project, imports } = loaderData;
  const { revalidate } = useRevalidator();
  const active = imports.some((i) => !importEnded(i.status));
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => void revalidate(), POLL_MS);
    return () => clearTimeout(timer);
  }, [active, imports, revalidate]);

  return (
    <>
      <PageHeader title={guide.title} description={guide.summary} />
      <div className="grid max-w-3xl gap-8">
        {guide.importer ? (
          <Card>
            <CardHeader>
              <CardTitle>
                {guide.importer.variant === "github-releases"
                  ? "Import from GitHub Releases"
                  : `Import from ${guide.importer.product ?? "an APT or YUM"} repository`}
              </CardTitle>
              <CardDescription>
                {guide.importer.variant === "github-releases"
                  ? "Every release with its notes and assets, oldest first. A release arrives whole or not at all; running it again adds only what is new."
                  : "Every package in the repository's index, each checked against the index's checksum. A release arrives whole or not at all; running it again adds only what is new."}
              </CardDescription>
            </CardHeader>
            <CardContent>
              <ImportForm
                key={project ?? ""}
                variant={guide.importer.variant}
                projects={projects}
                defaultProject={project}
                repositoryProduct={guide.importer.product}
                lastResult={(actionData as { result?: SubmissionResult<string[]> } | undefined)?.result}
              />
            </CardContent>
          </Card>
        ) : null}

        {guide.importer && project ? (
          <section className="grid gap-3" aria-labelledby="imports-heading">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h2 id="imports-heading" className="text-lg font-semibold">
                Imports into {project}
              </h2>
              {projects.length > 1 ? (
                <nav aria-label="Imports of another project" className="flex flex-wrap gap-2 text-sm">
                  {projects
                    .filter((p) => p.slug !== project)
                    .map((p) => (
                      <Link
                        key={p.slug}
                        to={`?project=${encodeURIComponent(p.slug)}`}
                        className="text-primary hover:underline"
                      >
                        {p.slug}
                      </Link>
                    ))}
                </nav>
              ) : null}
            </div>
            {imports.length === 0 ? (
              <p className="text-sm text-muted-foreground">No imports into this project yet.</p>
            ) : (
              <ImportList imports={imports} />
            )}
          </section>
        ) : null}

        <section className="grid gap-3" aria-labelledby={guide.importer ? "guide-heading" : undefined}>
          {guide.importer ? (
            <h2 id="guide-heading" className="text-lg font-semibold">
              Step by step
            </h2>
          ) : null}
          <Card className="p-6">
            <ol className="grid list-decimal gap-4 pl-5">
              {guide.steps.map((step) => (
                <li key={step.title} className="min-w-0">
                  <p className="font-medium">{step.title}</p>
                  <p className="mt-1 text-sm text-muted-foreground">{step.text}</p>
                  {step.commands ? (
                    <StepCommandsView
                      commands={step.commands}
                      baseUrl={loaderData.baseUrl}
                      project={loaderData.publishTo}
                    />
                  ) : null}
                </li>
              ))}
            </ol>
          </Card>
        </section>
      </div>
    </>
  );
}

function StepCommandsView({
  commands,
  baseUrl,
  project,
}: {
  commands: StepCommands;
  baseUrl: string;
  project: { owner: string; slug: string } | null;
}) {
  const named = project ?? parseProjectArgument(PLACEHOLDER_PROJECT)!;
  return (
    <div className="mt-3 min-w-0">
      {commands === "publish" ? (
        <PublishCommands target={{ baseUrl, ...named }} />
      ) : commands === "ci-variables" ? (
        <CiVariables baseUrl={baseUrl} />
      ) : (
        <ConfigFile
          path={CI_FILE[commands]}
          text={ciConfig(commands, project ?? undefined)}
          system={commands}
        />
      )}
    </div>
  );
}
