// The form that creates an API key: name, expiry, access and scope (all projects, or chosen
// ones). A Conform form (lib/forms.ts) submitted to the /api-keys action, which validates
// everything again; its answer (`lastResult`) brings back the errors and the values posted.
import { type SubmissionResult, useForm } from "@conform-to/react";
import { FolderGit2, Globe2, PenLine, ShieldCheck } from "lucide-react";
import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { parseForm } from "../../lib/forms.ts";
import { Button } from "../ui/button.tsx";
import { FormField } from "../ui/form-field.tsx";
import { Label } from "../ui/label.tsx";
import { RadioCards } from "../ui/radio-cards.tsx";
import { createKeyForm, EXPIRY_OPTIONS, KEY_NAME_MAX } from "./options.ts";

const selectClass =
  "flex h-10 w-full rounded-md border border-input bg-background px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-destructive";

export function CreateKeyForm({
  projects,
  lastResult,
}: {
  projects: { id: string; slug: string; name: string }[];
  lastResult?: SubmissionResult;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "create";
  const [form, fields] = useForm({
    lastResult,
    onValidate: ({ formData }) => parseForm(formData, createKeyForm),
  });
  const [scope, setScope] = useState(fields.scope.defaultValue === "projects" ? "projects" : "all");
  const chosen = new Set(fields.projectIds.defaultOptions ?? []);
  const errors = {
    name: fields.name.errors?.[0],
    expiry: fields.expiry.errors?.[0],
    access: fields.access.errors?.[0],
    scope: fields.scope.errors?.[0],
    projectIds: fields.projectIds.errors?.[0],
  };
  return (
    <Form
      method="post"
      id={form.id}
      onSubmit={form.onSubmit}
      noValidate
      className="grid gap-6"
      onChange={(event) => {
        const target: EventTarget = event.target;
        if (target instanceof HTMLInputElement && target.name === fields.scope.name) setScope(target.value);
      }}
    >
      <input type="hidden" name="intent" value="create" />
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField
          label="Name"
          name={fields.name.name}
          defaultValue={fields.name.defaultValue}
          maxLength={KEY_NAME_MAX}
          placeholder="e.g. GitHub Actions"
          autoComplete="off"
          error={errors.name}
          hint="Something that tells you where the key is used."
        />
        <div className="grid content-start gap-2">
          <Label htmlFor="key-expiry">Expires</Label>
          <select
            id="key-expiry"
            name={fields.expiry.name}
            defaultValue={fields.expiry.defaultValue ?? "90"}
            className={selectClass}
            aria-invalid={errors.expiry ? true : undefined}
            aria-describedby={errors.expiry ? "key-expiry-error" : undefined}
          >
            {EXPIRY_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          {errors.expiry ? (
            <p id="key-expiry-error" className="text-sm text-destructive">
              {errors.expiry}
            </p>
          ) : null}
        </div>
      </div>

      <RadioCards
        legend="Access"
        name={fields.access.name}
        defaultValue={fields.access.defaultValue === "read" ? "read" : "publish"}
        error={errors.access}
        options={[
          {
            value: "read",
            label: "Read",
            description: "List projects and releases, download private files.",
            icon: ShieldCheck,
          },
          {
            value: "publish",
            label: "Publish",
            description: "Everything Read does, plus upload files and edit or yank releases.",
            icon: PenLine,
          },
        ]}
      />

      <div className="grid gap-3">
        <RadioCards
          legend="Projects"
          name={fields.scope.name}
          defaultValue={scope}
          error={errors.scope}
          options={[
            {
              value: "all",
              label: "All projects",
              description: "Including projects you create later. Needed to create projects.",
              icon: Globe2,
            },
            {
              value: "projects",
              label: "Chosen projects",
              description: "Only the projects you tick below.",
              icon: FolderGit2,
            },
          ]}
        />
        {scope === "projects" ? (
          <fieldset
            className="grid gap-2 rounded-md border border-border p-4"
            aria-describedby={errors.projectIds ? "key-projects-error" : undefined}
            data-testid="project-choices"
          >
            <legend className="px-1 text-sm font-medium">Projects this key may use</legend>
            {projects.length === 0 ? (
              <p className="text-sm text-muted-foreground">
                You have no projects yet.{" "}
                <Link to="/projects" className="font-medium text-primary hover:underline">
                  Create one
                </Link>{" "}
                first, or give the key access to all projects.
              </p>
            ) : (
              <div className="grid gap-1 sm:grid-cols-2">
                {projects.map((p) => (
                  <label
                    key={p.id}
                    className="flex cursor-pointer items-center gap-3 rounded-md px-2 py-1.5 text-sm hover:bg-muted"
                  >
                    <input
                      type="checkbox"
                      name={fields.projectIds.name}
                      value={p.id}
                      defaultChecked={chosen.has(p.id)}
                      className="size-4 accent-primary"
                    />
                    <span className="min-w-0">
                      <span className="font-medium">{p.name}</span>{" "}
                      <span className="font-mono text-xs text-muted-foreground">{p.slug}</span>
                    </span>
                  </label>
                ))}
              </div>
            )}
            {errors.projectIds ? (
              <p id="key-projects-error" className="text-sm text-destructive">
                {errors.projectIds}
              </p>
            ) : null}
          </fieldset>
        ) : null}
      </div>

      <div>
        <Button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create key"}
        </Button>
      </div>
    </Form>
  );
}
