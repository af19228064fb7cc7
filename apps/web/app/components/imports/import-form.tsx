// The form that starts an import (docs/imports.md): from GitHub Releases (owner/repo, a token,
// prereleases and drafts), or from an APT or YUM repository (its URL, the distribution and
// components for APT, credentials, how releases are named). A Conform form (lib/forms.ts)
// posted to the integration page's action, which validates it again.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { Layers, Package, Tag } from "lucide-react";
import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { parseForm } from "../../lib/forms.ts";
import { Button } from "../ui/button.tsx";
import { FormField } from "../ui/form-field.tsx";
import { Label } from "../ui/label.tsx";
import { RadioCards } from "../ui/radio-cards.tsx";
import { importForm } from "./import-form-schema.ts";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-destructive";

export type ImportFormVariant = "github-releases" | "repository";

export function ImportForm({
  variant,
  projects,
  defaultProject,
  lastResult,
  repositoryProduct,
}: {
  variant: ImportFormVariant;
  projects: { slug: string; name: string }[];
  defaultProject: string | null;
  lastResult?: SubmissionResult<string[]>;
  /** "Nexus", "Artifactory": named in the hints. */
  repositoryProduct?: string;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseForm(formData, importForm),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const [kind, setKind] = useState(
    fields.kind.defaultValue === "yum-repository" ? "yum-repository" : "apt-repository",
  );
  const [naming, setNaming] = useState(fields.naming.defaultValue === "named" ? "named" : "per-version");
  const error = (name: keyof typeof fields) => fields[name].errors?.[0];

  if (projects.length === 0)
    return (
      <p className="text-sm text-muted-foreground">
        Imports go into one of your projects, and you have none yet.{" "}
        <Link to="/projects" className="font-medium text-primary hover:underline">
          Create a project
        </Link>{" "}
        first.
      </p>
    );

  return (
    <Form
      method="post"
      id={form.id}
      onSubmit={form.onSubmit}
      noValidate
      className="grid gap-6"
      onChange={(event) => {
        const target: EventTarget = event.target;
        if (!(target instanceof HTMLInputElement)) return;
        if (target.name === fields.kind.name && variant === "repository") setKind(target.value);
        if (target.name === fields.naming.name) setNaming(target.value);
      }}
    >
      {form.errors?.[0] ? (
        <p
          role="alert"
          className="rounded-md border border-destructive/40 bg-destructive/10 px-4 py-3 text-sm text-destructive"
        >
          {form.errors[0]}
        </p>
      ) : null}
      <div className="grid content-start gap-2">
        <Label htmlFor="import-project">Import into project</Label>
        <select
          id="import-project"
          name={fields.project.name}
          defaultValue={fields.project.defaultValue ?? defaultProject ?? projects[0]?.slug}
          className={selectClass}
          aria-invalid={error("project") ? true : undefined}
          aria-describedby={error("project") ? "import-project-error" : undefined}
        >
          {projects.map((p) => (
            <option key={p.slug} value={p.slug}>
              {p.name} ({p.slug})
            </option>
          ))}
        </select>
        {error("project") ? (
          <p id="import-project-error" className="text-sm text-destructive">
            {error("project")}
          </p>
        ) : null}
      </div>

      {variant === "github-releases" ? (
        <>
          <input type="hidden" name={fields.kind.name} value="github-releases" />
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <FormField
              label="GitHub repository"
              name={fields.repository.name}
              defaultValue={fields.repository.defaultValue}
              placeholder="owner/repo"
              autoComplete="off"
              spellCheck={false}
              error={error("repository")}
              hint="As in github.com/owner/repo."
            />
            <FormField
              label="Token (optional)"
              name={fields.token.name}
              type="password"
              autoComplete="off"
              error={error("token")}
              hint="Needed for a private repository and for drafts. Kept encrypted until the import ends."
            />
          </div>
          <fieldset className="grid gap-2">
            <legend className="mb-1 text-sm font-medium">Which releases</legend>
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                name={fields.includePrereleases.name}
                defaultChecked={lastResult ? fields.includePrereleases.defaultValue === "on" : true}
                className="mt-0.5 size-4 accent-primary"
              />
              <span>Include prereleases</span>
            </label>
            <label className="flex items-start gap-3 text-sm">
              <input
                type="checkbox"
                name={fields.includeDrafts.name}
                defaultChecked={fields.includeDrafts.defaultValue === "on"}
                className="mt-0.5 size-4 accent-primary"
                aria-describedby={error("includeDrafts") ? "import-drafts-error" : undefined}
              />
              <span>Include drafts (needs a token)</span>
            </label>
            {error("includeDrafts") ? (
              <p id="import-drafts-error" className="text-sm text-destructive">
                {error("includeDrafts")}
              </p>
            ) : null}
          </fieldset>
        </>
      ) : (
        <>
          <RadioCards
            legend="Repository format"
            name={fields.kind.name}
            defaultValue={kind}
            error={error("kind")}
            options={[
              { value: "apt-repository", label: "APT", description: "Debian packages (.deb)", icon: Package },
              {
                value: "yum-repository",
                label: "YUM / DNF",
                description: "RPM packages (.rpm)",
                icon: Layers,
              },
            ]}
          />
          <FormField
            label="Repository URL"
            name={fields.url.name}
            defaultValue={fields.url.defaultValue}
            type="url"
            placeholder={repositoryPlaceholder(repositoryProduct, kind === "apt-repository" ? "apt" : "yum")}
            autoComplete="off"
            spellCheck={false}
            error={error("url")}
            hint={
              kind === "apt-repository"
                ? `The URL that holds dists/ and pool/${repositoryProduct ? ` (the ${repositoryProduct} repository's URL)` : ""}.`
                : `The URL that holds repodata/${repositoryProduct ? ` (the ${repositoryProduct} repository's URL)` : ""}.`
            }
          />
          {kind === "apt-repository" ? (
            <div className="grid items-start gap-4 sm:grid-cols-2">
              <FormField
                label="Distribution"
                name={fields.distribution.name}
                defaultValue={fields.distribution.defaultValue}
                placeholder="stable"
                autoComplete="off"
                spellCheck={false}
                error={error("distribution")}
                hint="The suite under dists/: stable, jammy, bookworm…"
              />
              <FormField
                label="Components (optional)"
                name={fields.components.name}
                defaultValue={fields.components.defaultValue}
                placeholder="main"
                autoComplete="off"
                spellCheck={false}
                error={error("components")}
                hint="Separated by spaces or commas; empty: every component."
              />
            </div>
          ) : null}
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <FormField
              label="Username (optional)"
              name={fields.username.name}
              defaultValue={fields.username.defaultValue}
              autoComplete="off"
              error={error("username")}
            />
            <FormField
              label="Password or token (optional)"
              name={fields.password.name}
              type="password"
              autoComplete="off"
              error={error("password")}
              hint="Kept encrypted until the import ends."
            />
          </div>
          <div className="grid gap-3">
            <RadioCards
              legend="Releases"
              name={fields.naming.name}
              defaultValue={naming}
              options={[
                {
                  value: "per-version",
                  label: "One release per version",
                  description: "Packages of the same version go into one release.",
                  icon: Tag,
                },
                {
                  value: "named",
                  label: "One release for everything",
                  description: "Every package goes into the release you name.",
                  icon: Layers,
                },
              ]}
            />
            {naming === "named" ? (
              <FormField
                label="Release name"
                name={fields.release.name}
                defaultValue={fields.release.defaultValue}
                placeholder="imported"
                autoComplete="off"
                error={error("release")}
              />
            ) : null}
          </div>
        </>
      )}

      <div>
        <Button type="submit" disabled={busy}>
          {busy ? "Starting…" : "Start import"}
        </Button>
      </div>
    </Form>
  );
}

/** Where each product keeps a hosted repository: the URL shape its users recognize. */
function repositoryPlaceholder(product: string | undefined, format: "apt" | "yum"): string {
  if (product === "Artifactory")
    return `https://example.jfrog.io/artifactory/${format === "apt" ? "debian" : "rpm"}-local/`;
  if (product === "Nexus") return `https://nexus.example.com/repository/${format}-hosted/`;
  return format === "apt" ? "https://packages.example.com/debian/" : "https://packages.example.com/rpm/";
}
