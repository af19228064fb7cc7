// The fields of a project, shared by the New project and Edit project dialogs.
import type { Project } from "@packyard/contract";
import { Globe, Lock } from "lucide-react";
import { useState } from "react";
import { FormField } from "../ui/form-field.tsx";
import { RadioCards } from "../ui/radio-cards.tsx";
import { TextareaField } from "../ui/textarea.tsx";

/** "My Tool 2" → "my-tool-2": a suggestion for the slug while the user types the name. */
export function slugify(name: string, max = 64): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, max)
    .replace(/-+$/, "");
}

const visibilityOptions = [
  {
    value: "public",
    label: "Public",
    description: "Anyone can see the release pages and download files.",
    icon: Globe,
  },
  {
    value: "private",
    label: "Private",
    description: "Only you and your API keys can see or download.",
    icon: Lock,
  },
];

export function ProjectFields({
  project,
  errors,
  withSlug,
}: {
  project?: Project;
  /** Messages by field name: Conform's `form.allErrors`. */
  errors: Record<string, string[] | undefined>;
  withSlug: boolean;
}) {
  const [name, setName] = useState(project?.name ?? "");
  const [slug, setSlug] = useState(project?.slug ?? "");
  const [slugEdited, setSlugEdited] = useState(false);
  return (
    <div className="grid grid-cols-1 gap-4">
      <FormField
        label="Name"
        name="name"
        value={name}
        onChange={(e) => {
          setName(e.target.value);
          if (withSlug && !slugEdited) setSlug(slugify(e.target.value));
        }}
        maxLength={100}
        autoComplete="off"
        error={errors.name?.[0]}
        data-autofocus
      />
      {withSlug ? (
        <FormField
          label="Slug"
          name="slug"
          value={slug}
          onChange={(e) => {
            setSlug(e.target.value);
            setSlugEdited(true);
          }}
          autoCapitalize="none"
          autoComplete="off"
          spellCheck={false}
          maxLength={64}
          className="font-mono"
          error={errors.slug?.[0]}
          hint="Lowercase letters, numbers and hyphens. Part of your repository and download URLs; it can't be changed later."
        />
      ) : null}
      <TextareaField
        label="Description"
        name="description"
        defaultValue={project?.description ?? ""}
        rows={3}
        maxLength={2000}
        error={errors.description?.[0]}
        hint="Optional. Shown on the project's public pages."
      />
      <RadioCards
        legend="Visibility"
        name="visibility"
        options={visibilityOptions}
        defaultValue={project?.visibility ?? "public"}
        error={errors.visibility?.[0]}
      />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <FormField
          label="Homepage"
          name="homepage"
          type="url"
          inputMode="url"
          placeholder="https://example.com"
          defaultValue={project?.homepage ?? ""}
          error={errors.homepage?.[0]}
        />
        <FormField
          label="Source URL"
          name="sourceUrl"
          type="url"
          inputMode="url"
          placeholder="https://github.com/you/project"
          defaultValue={project?.sourceUrl ?? ""}
          error={errors.sourceUrl?.[0]}
        />
      </div>
      <FormField
        label="License"
        name="license"
        placeholder="MIT, Apache-2.0, GPL-3.0-or-later…"
        defaultValue={project?.license ?? ""}
        maxLength={100}
        error={errors.license?.[0]}
      />
    </div>
  );
}
